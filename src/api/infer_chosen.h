#pragma once
// `gpuplan infer` with a target speed and the deployment left open: the operating-point chooser
// (inference/chooser.h) picks the deployment, its GPUs (--gpus, or whole units) and the load.
#include <string>

#include "api/infer.h"
#include "inference/inference.h"
#include "inference/serving_scenario.h"

namespace gpuplan::api {

struct ChosenLimits {
  double tpot_limit_s = 0;    // the target: 1 / tokens per user, or --tpot-ms
  double ttft_stated_s = -1;  // --ttft-ms in s when given (0: none); -1: the default by ISL
  std::string math, fallback;  // the executed math format and the fallback note
};

// The serving question infer asks, as validate's rows ask theirs (src/validate/row_scenario.h): the
// model on the system with the request's workload and engine; no speed target and no TTFT limit (the
// chooser's caller sets the traffic's targets).
ServingScenario infer_scenario(const Catalog& catalog, const InferRequest& req, const ModelArch& model,
                               const Hardware& hw, const InferenceWorkload& w);

// The chosen deployment's document or text into `output`: exit 0 when it meets the target, 3 (with
// why) when no deployment does.
int infer_chosen(const Catalog& catalog, const InferRequest& req, const ModelArch& model, const Hardware& hw,
                 const InferenceWorkload& w, const ChosenLimits& limits, Output& output);

}  // namespace gpuplan::api
