#pragma once
// Presenting a figure's error band (src/catalog/error_band.h): the JSON object and the "+/- x%" text.
#include <nlohmann/json.hpp>

#include <string>

#include "catalog/catalog.h"
#include "catalog/error_band.h"
#include "inference/inference.h"
#include "inference/serving_scenario.h"
#include "physics/hardware.h"
#include "plan/plan.h"

namespace gpuplan::api {

// {"value", "low", "high", "plus_minus_pct", "basis": {"kind", "generation", "rows", "families", "widened_by",
// "engine"}} (widened_by: why the band is wider than on the ground it was fitted on, empty when it is not;
// engine, serving bands only: the serving engine the question stated, or "not stated").
nlohmann::json band_json(const BandedFigure& f);

// The band itself, without a figure: {"kind", "generation", "rows", "families", "low_log", "high_log",
// "widened_by", "engine"} (the log-edges of measured/predicted, after widening; engine as in band_json).
nlohmann::json band_basis_json(const ErrorBand& b);

// "+/- 12% (80% band: 76 held-out rows, 3 source families[; widened: ...])" or "+/- 60% (80% band: hopper never measured
// for this kind)".
std::string band_text(const BandedFigure& f);

// The bands of one serving point (aggregated, or disaggregated prefill/decode pools): tokens/s per GPU
// (throughput band), TPOT and tokens/s per user (TPOT band; the user rate is its reciprocal), TTFT
// (TTFT band); each widened for the question off its ground (band_for, the question from serving_question).
nlohmann::json serving_bands_json(const Catalog& catalog, const Hardware& hw, const InferenceResult& r,
                                  bool disaggregated, const BandQuestion& q);
std::string serving_bands_text(const Catalog& catalog, const Hardware& hw, const InferenceResult& r,
                               bool disaggregated, const BandQuestion& q);
// A planner's question: a source no fit saw (a cluster of one's own), the precision it runs, its GPUs and
// the model's total parameters. The two below fill it from a serving point and a training plan.
BandQuestion band_question(Precision precision, const ModelArch& m, int num_gpus);
// The question of a serving point: a new source, the weights' precision, its GPUs and model size, and
// the serving engine (--engine: a framework string or entry name; blank: not stated, no engine widening).
// Every serving command asks its bands through these (band_for), so a question off the ground the bands
// were fitted on gets the widened band and its reasons.
BandQuestion serving_question(const InferenceWorkload& w, const ModelArch& m, int num_gpus,
                              const std::string& engine = {});
BandQuestion serving_question(const ServingScenario& s, int num_gpus);
// The question of a training plan: a new source, the workload's precision and GPUs, the model's size.
BandQuestion training_question(const ModelArch& m, const TrainingWorkload& w);

// The band of one serving figure on `hw`'s generation, widened for the question (band_for); the
// question's engine is read as the catalog's serving engine entry it names (band_engine).
ErrorBand serving_band(const Catalog& catalog, const Hardware& hw, bool disaggregated, ServingFigure figure,
                       const BandQuestion& q);
// The band of a training plan's throughput (its step time's is the reciprocal), widened for the plan.
ErrorBand training_band(const Catalog& catalog, const ModelArch& m, const Hardware& hw, const TrainingWorkload& w);

}  // namespace gpuplan::api
