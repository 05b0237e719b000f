#pragma once
// gpuplan fabric: the scale-out network of N GPUs — topology, bill of materials, power, capex, and what
// each GPU gets. The planner is src/fabric; this file parses options and prints.
#include <CLI/CLI.hpp>

#include <optional>
#include <string>
#include <vector>

#include "api/options.h"
#include "api/output.h"
#include "catalog/catalog.h"
#include "api/fabric_options.h"

namespace gpuplan::api {

// The options of `gpuplan fabric` (the CLI, run() and the faces over it share them).
struct FabricRequest : RequestBase {
  std::string system_name, kind_name, topology = "rail-optimized", ratio = "1", node_optics = "single-port";
  long long gpus = 0;
  int max_tiers = 4, management_links = -1;
  std::vector<std::string> assume;
  std::string frontend;
  bool list_assumptions = false;
};

// Defines the options (names, ranges, help) on `app`, bound to `req`.
void add_fabric_options(CLI::App& app, FabricRequest& req);

// Evaluates the request: the document, or the terminal text, into `out`. Returns 0, or 3 when
// what was asked for does not fit; InputError on bad input.
int fabric(const Catalog& catalog, FabricRequest req, Output& output);

}  // namespace gpuplan::api
