#pragma once
// gpuplan goodput: a training run's useful time under failures, checkpoints and restarts; with and
// without spares; side by side for two systems.
#include <CLI/CLI.hpp>

#include <optional>
#include <string>
#include <vector>

#include "api/options.h"
#include "api/output.h"
#include "catalog/catalog.h"
#include "training/training_step.h"
#include "api/cost_options.h"

namespace gpuplan::api {

// The options of `gpuplan goodput` (the CLI, run() and the faces over it share them).
struct GoodputRequest : RequestBase {
  std::string model_name = "llama3.1-405b", system = "hgx-h200", compare, precision = "bf16", plan_text;
  TrainingWorkload w = [] {
    TrainingWorkload x;
    x.num_gpus = 16384;
    x.global_batch = 0;  // 0: the model's default (training/default_batch.h)
    x.seq_len = 8192;
    return x;
  }();
  double mtbf_h = 0, checkpoint_s = 0, tokens = 15e12, usd = 0;
  CostOptions cost_opts;
};

// Defines the options (names, ranges, help) on `app`, bound to `req`.
void add_goodput_options(CLI::App& app, GoodputRequest& req);

// Evaluates the request: the document, or the terminal text, into `out`. Returns 0, or 3 when
// what was asked for does not fit; InputError on bad input.
int goodput(const Catalog& catalog, GoodputRequest req, Output& output);

}  // namespace gpuplan::api
