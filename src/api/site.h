#pragma once
// gpuplan site: will the site hold the cluster (power, cooling, positions), and what a power budget buys.
#include <CLI/CLI.hpp>

#include <optional>
#include <string>
#include <vector>

#include "api/options.h"
#include "api/output.h"
#include "catalog/catalog.h"

namespace gpuplan::api {

// The options of `gpuplan site` (the CLI, run() and the faces over it share them).
struct SiteRequest : RequestBase {
  std::string cluster_path, site_path, model_name = "llama3.1-70b", precision = "bf16", systems_text;
  std::string infer_model_name = "llama3.1-70b", infer_precision = "fp8";
  std::optional<double> pue, headroom;  // unset: the site file's, else the defaults
  double power_mw = 0, it_mw = 0, tpot_ms = 0, tokens_per_user = 0, ttft_ms = 0;
  long long isl = 1024, osl = 1024;
  int seq = 8192;
  long long global_batch = 0;  // training: sequences per step; 0: the model's default (training/default_batch.h)
  std::string mix_text;
};

// Defines the options (names, ranges, help) on `app`, bound to `req`.
void add_site_options(CLI::App& app, SiteRequest& req);

// Evaluates the request: the document, or the terminal text, into `out`. Returns 0, or 3 when
// what was asked for does not fit; InputError on bad input.
int site(const Catalog& catalog, SiteRequest req, Output& output);

}  // namespace gpuplan::api
