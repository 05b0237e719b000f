#pragma once
// gpuplan compare: two systems side by side under each yardstick a headline might use, and vendors'
// claims replayed under their stated conditions.
#include <CLI/CLI.hpp>

#include <optional>
#include <string>
#include <vector>

#include "api/options.h"
#include "api/output.h"
#include "catalog/catalog.h"
#include "compare/compare.h"
#include "api/fabric_options.h"
#include "api/cost_options.h"
#include "api/long_context_options.h"

namespace gpuplan::api {

// The options of `gpuplan compare` (the CLI, run() and the faces over it share them).
struct CompareRequest : RequestBase {
  FabricOptions fabric_opts;
  CostOptions cost_opts;
  std::vector<std::string> systems;
  std::vector<std::string> models;
  std::string task = "both", per = "gpu", train_precision = "bf16", infer_precision = "fp8";
  std::vector<std::string> claims;
  compare::CompareSpec spec;
  long long global_batch = 0;
  double ttft_ms = 0, tpot_ms = 0;
  LongContextOptions long_context;  // --prefix-hit, --kv-offload: the serving figures' long-prompt inputs
};

// Defines the options (names, ranges, help) on `app`, bound to `req`.
void add_compare_options(CLI::App& app, CompareRequest& req);

// Evaluates the request: the document, or the terminal text, into `out`. Returns 0, or 3 when
// what was asked for does not fit; InputError on bad input.
int compare(const Catalog& catalog, CompareRequest req, Output& output);

}  // namespace gpuplan::api
