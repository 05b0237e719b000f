#pragma once
// gpuplan size: a serving demand sized on every system of the catalog (or those named): the deployment,
// the whole units to buy for the SLA at a confidence under the model's error bands, what they cost
// (owned or rented), their power, and the chance each is the cheapest. See docs/sizing.md.
#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "api/cost_options.h"
#include "api/long_context_options.h"
#include "api/open_loop_lengths.h"
#include "api/options.h"
#include "api/output.h"
#include "catalog/catalog.h"

namespace gpuplan::api {

struct SizeRequest : RequestBase {
  CostOptions cost_opts;
  std::vector<std::string> systems, rent_overrides;
  std::string model_name, precision = "fp8", price_mode = "own";
  std::string engine;  // --engine: the serving engine on every system (empty: the catalog's default)
  long long isl = 1024, osl = 1024;
  double requests_per_s = 0, users = 0, tokens_per_day = 0, peak_factor = 1;
  double ttft_p99_ms = -1, tokens_per_user = 0, tpot_p99_ms = 0;
  double confidence = 0.9;
  int draws = 1000;
  long long seed = 1;
  bool sensitivity = false;
  LongContextOptions long_context;  // --prefix-hit, --kv-offload, as infer reads them
  OpenLoopLengths lengths;          // --isl-max, --length-low, as infer --requests-per-s reads them
};

void add_size_options(CLI::App& app, SizeRequest& req);

// Evaluates the request into `out` (document gpuplan.size/v1 or text). InputError on bad input.
int size(const Catalog& catalog, SizeRequest req, Output& output);

}  // namespace gpuplan::api
