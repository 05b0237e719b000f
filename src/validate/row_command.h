#pragma once
// Every validated row replays as a command: the `gpuplan infer` / `gpuplan train` line that asks the
// row's question through the options a user has, and the field of its --json document that holds the
// row's predicted figure.
#include <string>

#include "catalog/catalog.h"
#include "inference/inference.h"
#include "validate/inference_cases.h"
#include "validate/training_cases.h"

namespace gpuplan {

// Where a command's --json document holds the row's figure: `field` (a top-level key) times `scale`
// (1000 for a latency in ms read from seconds; (isl + osl) / osl for a throughput the row counts over
// input and output tokens).
struct RowReading {
  std::string field;
  double scale = 1.0;
};

// The `gpuplan infer ... --json` line that evaluates the case as validate does. `catalog` resolves the
// row's framework to its serving-engine entry (--engine), whose settings the line overrides where the
// row's differ.
std::string serving_row_command(const Catalog& catalog, const InferenceCase& c);
// The figure's field in that command's document; `r` is the row's evaluation (a TTFT row reads the
// median request's TTFT where the evaluation replayed one).
RowReading serving_row_reading(const InferenceCase& c, const InferenceResult& r);

}  // namespace gpuplan
