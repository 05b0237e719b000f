#pragma once
// gpuplan recommend: every system (and bare accelerator) in the catalog ranked for one workload, with
// how many GPUs, time to result, cost, energy, and the reasons the models give.
#include <CLI/CLI.hpp>

#include <optional>
#include <string>
#include <vector>

#include "api/finetune_options.h"
#include "api/long_context_options.h"
#include "api/options.h"
#include "api/output.h"
#include "catalog/catalog.h"
#include "compare/recommend.h"
#include "api/fabric_options.h"
#include "api/cost_options.h"

namespace gpuplan::api {

// The options of `gpuplan recommend` (the CLI, run() and the faces over it share them).
struct RecommendRequest : RequestBase {
  CostOptions cost_opts;
  compare::RecommendSpec spec;
  std::string model_name, task = "infer", precision;
  double tpot_ms = 0, ttft_ms = 0, tokens_per_user = 50;
  bool rank_unfitted = false;
  int top = 0;
  FabricOptions fabric_opts;
  FinetuneOptions finetune;  // --task finetune: --method full|lora|qlora and the adapters
  std::vector<std::string> rent_overrides;  // --rent-usd-per-gpu-hour SYSTEM=PRICE (train/finetune: rent against own)
  std::string price_mode = "own";           // train/finetune: rank the job's cost owned or rented
  LongContextOptions long_context;          // infer: --prefix-hit, --kv-offload, as infer reads them
};

// Defines the options (names, ranges, help) on `app`, bound to `req`.
void add_recommend_options(CLI::App& app, RecommendRequest& req);

// Evaluates the request: the document, or the terminal text, into `out`. Returns 0, or 3 when
// what was asked for does not fit; InputError on bad input.
int recommend(const Catalog& catalog, RecommendRequest req, Output& output);

}  // namespace gpuplan::api
