#pragma once
// A validated serving row as the value `gpuplan infer` builds: the ServingScenario (model, system,
// workload and engine settings, traffic) and the ServingDeployment (aggregated engine or disaggregated
// pools, MTP), evaluated through evaluate_scenario() as the commands evaluate theirs; the row's load
// (its concurrency, request rate or latency limits) picks the operating point.
#include "inference/serving_scenario.h"
#include "validate/inference_cases.h"

namespace gpuplan {

struct RowScenario {
  ServingScenario scenario;
  ServingDeployment deployment;
  long long concurrency = 0;  // the row's clients (0: as many as fit)
};

RowScenario row_scenario(const InferenceCase& c);

}  // namespace gpuplan
