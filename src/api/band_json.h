#pragma once
// Presenting a figure's error band (src/catalog/error_band.h): the JSON object and the "+/- x%" text.
#include <nlohmann/json.hpp>

#include <string>

#include "catalog/catalog.h"
#include "catalog/error_band.h"
#include "inference/inference.h"
#include "physics/hardware.h"

namespace gpuplan::api {

// {"value", "low", "high", "plus_minus_pct", "basis": {"kind", "generation", "rows", "families", "widened_by"}}
// (widened_by: why the band is wider than on the ground it was fitted on; empty when it is not).
nlohmann::json band_json(const BandedFigure& f);

// "+/- 12% (80% band: 76 held-out rows, 3 source families[; widened: ...])" or "+/- 60% (80% band: hopper never measured
// for this kind)".
std::string band_text(const BandedFigure& f);

// The bands of one serving point (aggregated, or disaggregated prefill/decode pools): tokens/s per GPU
// (throughput band), TPOT and tokens/s per user (TPOT band; the user rate is its reciprocal), TTFT
// (TTFT band); each widened for the question off its ground (band_for; the default: a planner's own
// cluster, a source no fit saw, at a precision, scale and model size not stated).
nlohmann::json serving_bands_json(const Catalog& catalog, const Hardware& hw, const InferenceResult& r,
                                  bool disaggregated = false, const BandQuestion& q = {});
std::string serving_bands_text(const Catalog& catalog, const Hardware& hw, const InferenceResult& r,
                               bool disaggregated = false, const BandQuestion& q = {});
// The question of a serving point: a new source, the weights' precision, its GPUs and model size.
BandQuestion serving_question(const InferenceWorkload& w, const ModelArch& m, int num_gpus);

}  // namespace gpuplan::api
