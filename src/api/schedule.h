#pragma once
// gpuplan schedule: replay a trace on a cluster under placement policies, side by side.
#include <CLI/CLI.hpp>

#include <optional>
#include <string>
#include <vector>

#include "api/options.h"
#include "api/output.h"
#include "catalog/catalog.h"
#include "schedule/cluster_yaml.h"
#include "api/fabric_options.h"

namespace gpuplan::api {

// Resolves cluster-file system names through the catalog (export, site and schedule read cluster files).
schedule::SystemResolver catalog_resolver(const Catalog& catalog);

// The options of `gpuplan schedule` (the CLI, run() and the faces over it share them).
struct ScheduleRequest : RequestBase {
  std::string cluster_path, trace = "generated", policy = "all", write_trace;
  bool backfill = false, preempt = false;
  int jobs_limit = 0;
  long long seed = 1;  // 0 or more
  double load = 0.9;
  std::optional<double> slowdown_pct;  // unset: from --slowdown-model, else 32%
  std::string slowdown_model, slowdown_system;
  FabricOptions fabric_opts;
  int timeline_bins = 0;
};

// Defines the options (names, ranges, help) on `app`, bound to `req`.
void add_schedule_options(CLI::App& app, ScheduleRequest& req);

// Evaluates the request: the document, or the terminal text, into `out`. Returns 0, or 3 when
// what was asked for does not fit; InputError on bad input.
int schedule(const Catalog& catalog, ScheduleRequest req, Output& output);

}  // namespace gpuplan::api
