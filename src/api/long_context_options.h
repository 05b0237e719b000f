#pragma once
// The long-context serving inputs every serving command shares (infer, compare, recommend --task infer,
// size): --prefix-hit (the share of each prompt found in the prefix cache), --kv-offload (where the
// cached prefixes live) and --context-attention (the prompts' attention math). One definition and one
// reading, so the same workload gives the same figure through every command (docs/long-context.md).
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <string>

#include "inference/inference.h"
#include "model/model.h"
#include "physics/hardware.h"

namespace gpuplan::api {

struct LongContextOptions {
  double prefix_hit = 0;            // share of prompt tokens found in the prefix cache, 0 to below 1
  std::string kv_offload = "none";  // none, or host: cached prefixes in host memory
  std::string context_attention = "bf16";  // bf16, or fp8: the prompts' attention on the FP8 tensor cores
};

void add_long_context_options(CLI::App& app, LongContextOptions& o);

// Checks the options (InputError naming --prefix-hit, --kv-offload or --context-attention, with the
// allowed values) and sets them on the workload: InferenceWorkload::prefix_hit_fraction, kv_offload_host
// and fp8_context_attention.
void apply_long_context(const LongContextOptions& o, InferenceWorkload& w);

// Why a system cannot take the options (message empty when it can), and the option that asks it:
// --kv-offload host needs a host link in the catalog to copy the cached prefixes back over,
// --context-attention fp8 FP8 tensor cores. For the commands that rank many systems.
struct LongContextRefusal {
  std::string option;   // "--kv-offload", "--context-attention"
  std::string message;  // the option, its value and why ("--kv-offload host: ...")
  bool empty() const { return message.empty(); }
};
LongContextRefusal long_context_refusal(const LongContextOptions& o, const Hardware& hw);

// Throws InputError (--context-attention) where the model cannot take the options: fp8 context attention
// is the prompts' flash attention, and an MLA model's prompts run the engines' MLA kernels at the
// generation's fitted rate.
void check_long_context_model(const LongContextOptions& o, const ModelArch& m);

// For headers: "" when none is set, else ", prefix-cache hits 50%" (+ ", cached prefixes in host memory",
// ", FP8 context attention").
std::string long_context_text(const LongContextOptions& o);
// {"prefix_hit": 0.5, "kv_offload": "host", "context_attention": "bf16"}.
nlohmann::json long_context_json(const LongContextOptions& o);

}  // namespace gpuplan::api
