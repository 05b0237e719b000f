#pragma once
// gpuplan search: enumerate training plans, drop those that do not divide or fit, rank the rest.
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

// The options of `gpuplan search` (the CLI, run() and the faces over it share them).
struct SearchRequest : RequestBase {
  std::string model, system, precision = "bf16", objective = "tokens";
  int gpus = 0, seq = 8192, top = 5;
  long long global_batch = 0;
  CostOptions cost_opts;
  FinetuneOptions finetune;  // --method full|lora|qlora and the adapters
};

// Defines the options (names, ranges, help) on `app`, bound to `req`.
void add_search_options(CLI::App& app, SearchRequest& req);

// Evaluates the request: the document, or the terminal text, into `out`. Returns 0, or 3 when
// what was asked for does not fit; InputError on bad input.
int search(const Catalog& catalog, SearchRequest req, Output& output);

}  // namespace gpuplan::api
