#pragma once
// gpuplan cost: total cost of ownership per GPU-hour by part, and with a model: $ per million tokens,
// joules per token, and the cost, energy and time of a whole training run.
#include <CLI/CLI.hpp>

#include <optional>
#include <string>
#include <vector>

#include "api/finetune_options.h"
#include "api/options.h"
#include "api/output.h"
#include "catalog/catalog.h"
#include "api/cost_options.h"

namespace gpuplan::api {

// The options of `gpuplan cost` (the CLI, run() and the faces over it share them).
struct CostRequest : RequestBase {
  CostOptions cost_opts;
  std::vector<std::string> systems;
  std::string model_name, task = "train", precision, reference = "hgx-h100", plan_text;
  int gpus = 0, seq = 8192;
  long long global_batch = 0, isl = 1024, osl = 1024;
  double tokens = 0, tokens_per_user = 50;
  FinetuneOptions finetune;  // --task train: --method full|lora|qlora and the adapters
  double ttft_ms = 0;  // serving: the mean-TTFT limit, ms, when given (0: none); not given: the default by ISL
};

// Defines the options (names, ranges, help) on `app`, bound to `req`.
void add_cost_options(CLI::App& app, CostRequest& req);

// Evaluates the request: the document, or the terminal text, into `out`. Returns 0, or 3 when
// what was asked for does not fit; InputError on bad input.
int cost(const Catalog& catalog, CostRequest req, Output& output);

}  // namespace gpuplan::api
