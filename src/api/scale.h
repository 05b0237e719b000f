#pragma once
// gpuplan scale: the best (or a fixed) plan at each GPU count, weak or strong scaling; MFU and
// tokens/s per GPU against N.
#include <CLI/CLI.hpp>

#include <optional>
#include <string>
#include <vector>

#include "api/options.h"
#include "api/output.h"
#include "catalog/catalog.h"

namespace gpuplan::api {

// The options of `gpuplan scale` (the CLI, run() and the faces over it share them).
struct ScaleRequest : RequestBase {
  std::string model, system, gpus, mode, precision = "bf16", plan;
  int seq = 8192;
  long long global_batch = 0;
  double batch_per_gpu = 0;
};

// "64,128,256" -> {64, 128, 256}: whole numbers from 1 to 2^20, none twice, at most 256; InputError naming
// `field` otherwise.
std::vector<int> parse_gpu_counts(const std::string& text, const std::string& field);

// Defines the options (names, ranges, help) on `app`, bound to `req`.
void add_scale_options(CLI::App& app, ScaleRequest& a);

// Evaluates the request: the document, or the terminal text, into `out`. Returns 0, or 3 when
// what was asked for does not fit; InputError on bad input.
int scale(const Catalog& catalog, ScaleRequest a, Output& output);

}  // namespace gpuplan::api
