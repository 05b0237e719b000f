#pragma once
// The long-context serving inputs every serving command shares (infer, compare, recommend --task infer,
// size): --prefix-hit (the share of each prompt found in the prefix cache) and --kv-offload (where the
// cached prefixes live). One definition and one reading, so the same workload gives the same figure
// through every command (docs/long-context.md).
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <string>

#include "inference/inference.h"
#include "physics/hardware.h"

namespace gpuplan::api {

struct LongContextOptions {
  double prefix_hit = 0;            // share of prompt tokens found in the prefix cache, 0 to below 1
  std::string kv_offload = "none";  // none, or host: cached prefixes in host memory
};

void add_long_context_options(CLI::App& app, LongContextOptions& o);

// Checks the options (InputError naming --prefix-hit or --kv-offload, with the allowed values) and sets
// them on the workload: InferenceWorkload::prefix_hit_fraction and kv_offload_host.
void apply_long_context(const LongContextOptions& o, InferenceWorkload& w);

// Why a system cannot take the options ("" when it can): --kv-offload host needs a host link in the
// catalog to copy the cached prefixes back over. For the commands that rank many systems.
std::string long_context_refusal(const LongContextOptions& o, const Hardware& hw);

// For headers: "" when neither is set, else ", prefix-cache hits 50%" (+ ", cached prefixes in host memory").
std::string long_context_text(const LongContextOptions& o);
// {"prefix_hit": 0.5, "kv_offload": "host"}.
nlohmann::json long_context_json(const LongContextOptions& o);

}  // namespace gpuplan::api
