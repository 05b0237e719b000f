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

// A row's blank TP: the smallest valid TP dividing `gpus` whose weights leave at least 30% of the
// accelerator's memory for the KV cache (the widest valid one when none does).
int smallest_kv_tp(const ModelArch& m, const Hardware& hw, const InferenceWorkload& w, int gpus);

// A latency-limited row (InferenceMode::under_limits) whose TP is blank: the TP a submitter tunes to
// the scenario's limits. From the filled TP (the smallest whose KV cache has room) up to the row's
// GPUs, each TP's largest load meeting the TTFT/TPOT limits (the operating-point chooser's
// solve_load, inference/chooser.h, as `gpuplan infer` solves it), and the TP with the most tokens/s per
// GPU there (a wider one only when it beats a narrower by more than the chooser's margin). EP = TP on
// MoE models (the row's blank-EP convention), no attention-DP unless the row states it. Sets
// c.parallel and says so in c.assumptions; false when no TP meets the limits (c.parallel unchanged).
bool choose_row_deployment(InferenceCase& c);

}  // namespace gpuplan
