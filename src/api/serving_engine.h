#pragma once
// The serving engine's parameters a command's workloads take from the session's catalog (overlays and
// calibration files apply), so every command that builds a serving workload reads the same figures.
#include <string>

#include "catalog/catalog.h"

namespace gpuplan::api {

// The MTP acceptance per draft of `engine` in `catalog` (the framework string --engine takes), or of
// the catalog's default engine when `engine` is empty or names none. Every command that builds a
// serving workload (infer point, sweep and disaggregated, compare, recommend, cost, site) fills its
// workload's mtp_accept with it when the request states none; 0 where the catalog states none (the
// evaluator then falls back to the built-in catalog's default, src/inference/speculative.h).
double catalog_mtp_accept(const Catalog& catalog, const std::string& engine = {});

}  // namespace gpuplan::api
