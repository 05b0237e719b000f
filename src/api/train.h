#pragma once
// gpuplan train: predict one optimizer step of a training job under a plan.
#include <CLI/CLI.hpp>

#include <optional>
#include <string>
#include <vector>

#include "api/finetune_options.h"
#include "api/options.h"
#include "api/output.h"
#include "catalog/catalog.h"
#include "training/framework_release.h"
#include "training/training_step.h"
#include "api/fabric_options.h"

namespace gpuplan::api {

// The options of `gpuplan train` (the CLI, run() and the faces over it share them).
struct TrainRequest : RequestBase {
  std::string model_name = "llama3.1-70b", system = "hgx-h100", precision = "bf16", plan_text;
  std::string arch_text;                         // --arch layers=..,hidden=..: dimensions replacing the model's
  std::string framework_release = std::to_string(kNewestFrameworkRelease);  // --framework-release YEAR|YY.MM
  std::string flop_convention = "model";         // --flop-convention: how tflops_per_gpu counts FLOPs
  std::string ep_overlap;                        // --ep-overlap on|off; unset: as the release has it
  std::string attention_kernel;                  // --attention-kernel native|flash-attention-2; unset: the release's
  TrainingWorkload w = [] {
    TrainingWorkload x;
    x.num_gpus = 64;
    x.global_batch = 0;  // 0: the model's default (training/default_batch.h)
    x.seq_len = 8192;
    return x;
  }();
  FabricOptions fabric_opts;
  FinetuneOptions finetune;  // --method full|lora|qlora and the adapters
};

// Defines the options (names, ranges, help) on `app`, bound to `req`.
void add_train_options(CLI::App& app, TrainRequest& req);

// Evaluates the request: the document, or the terminal text, into `out`. Returns 0, or 3 when
// what was asked for does not fit; InputError on bad input.
int train(const Catalog& catalog, TrainRequest req, Output& output);

}  // namespace gpuplan::api
