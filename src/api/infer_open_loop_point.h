#pragma once
// `gpuplan infer --requests-per-s R` on a stated deployment (--gpus, --tp, --ep, --pp, --attention-dp; or
// --disagg with its --prefill-*/--decode-* pools):
// Poisson arrivals at R on that deployment as infer resolves it from the options (the plan, engine,
// batch caps and precision of the closed loop), in place of a purchase. The answer is the open loop's
// (inference/open_loop.h): whether the deployment keeps up, its load (the rate over its capacity), TTFT
// and TPOT at the mean, p50 and p99, the tokens it serves, and, with p99 limits, whether it meets them and
// the largest rate within them; each figure with its 80% band under the model's error and the chance the
// deployment keeps up and meets the limits (sizing/odds.h), drawn as `size` draws them. The open-loop
// rows `validate` scores replay as this command.
#include <optional>
#include <string>

#include "api/infer.h"
#include "api/output.h"
#include "catalog/catalog.h"
#include "inference/serving_scenario.h"

namespace gpuplan::api {

// The deployment infer resolved and what it said about it.
struct StatedDeployment {
  ServingScenario scenario;
  ServingDeployment deployment;
  std::string chosen;          // infer's note where it chose the split of --gpus ("" where stated)
  std::string precision_note;  // a format the chip lacks, run wider
  std::string option;          // the option that sized it (--tp or --gpus), for a deployment holding nothing
};

// Evaluates `q` on the deployment and emits the document or text. InputError where the deployment holds
// no sequence (naming `d.option`). Returns 0, or 3 where limits were given and are not met.
int infer_open_loop_point(const Catalog& catalog, const StatedOpenLoop& q, const StatedDeployment& d, Output& output);

}  // namespace gpuplan::api
