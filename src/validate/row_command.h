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
// A field holding a '.' is a path into nested objects ("mfu.with_attention").
struct RowReading {
  std::string field;
  double scale = 1.0;
};

// The `gpuplan infer ... --json` line that evaluates the case as validate does. `catalog` resolves the
// row's framework to its serving-engine entry (--engine), whose settings the line overrides where the
// row's differ.
std::string serving_row_command(const Catalog& catalog, const InferenceCase& c);
// The `gpuplan infer ... --requests-per-s R --json` line that asks the open loop of the case's deployment
// at `rate` requests/s (validate/open_loop_cases.h): the deployment and engine settings as
// serving_row_command states them, the load the Poisson arrivals' rate in place of the row's; prompts
// varying up to `isl_max` tokens (0: fixed) and the p99 limits where above 0.
std::string open_loop_row_command(const Catalog& catalog, const InferenceCase& c, double rate, long long isl_max,
                                  double ttft_p99_limit_s, double tpot_p99_limit_s);
// The figure's field in that command's document; `r` is the row's evaluation (a TTFT row reads the
// median request's TTFT where the evaluation replayed one).
RowReading serving_row_reading(const InferenceCase& c, const InferenceResult& r);

// The `gpuplan train ... --json` line that evaluates the case as validate does: the row's model (with
// `--arch` for the dimensions it states), system, GPUs, batch, sequence, precision, framework release,
// and `plan` (the row's plan with its blanks filled and dp derived) stated in full.
std::string training_row_command(const TrainingCase& c, const TrainingPlan& plan);
// Where that document holds the row's figure: step_time_s, tokens_per_s_per_gpu, tflops_per_gpu (under
// the row's --flop-convention) or an MFU ("mfu.with_attention", a path into the `mfu` object) x 100.
RowReading training_row_reading(const TrainingCase& c);
// The plan as `--plan` reads it back, every key stated (plan/plan.h parse_training_plan).
std::string full_plan_text(const TrainingPlan& p);

}  // namespace gpuplan
