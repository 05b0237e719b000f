#include "api/long_context_options.h"

#include <fmt/format.h>

#include "core/error.h"
#include "physics/compute.h"

namespace gpuplan::api {

void add_long_context_options(CLI::App& app, LongContextOptions& o) {
  app.add_option("--prefix-hit", o.prefix_hit,
                 "Share of each prompt's tokens already in the prefix cache (0 to <1): they skip the prefill's "
                 "compute but still hold KV")
      ->capture_default_str();
  app.add_option("--kv-offload", o.kv_offload,
                 "Where cached prefixes live: none (the GPU's KV pool) or host (host memory; a hit is copied "
                 "back over the host link, overlapped with the prefill)")
      ->capture_default_str();
  app.add_option("--context-attention", o.context_attention,
                 "Math of the prompts' attention (context FMHA): bf16, or fp8 on the FP8 tensor cores (TensorRT-LLM's "
                 "use_fp8_context_fmha, FlashAttention-3 / FlashInfer FP8 prefill; it shortens long prompts most); "
                 "not for MLA models, whose prompts run the engines' MLA kernels")
      ->capture_default_str();
}

void apply_long_context(const LongContextOptions& o, InferenceWorkload& w) {
  if (!(o.prefix_hit >= 0 && o.prefix_hit < 1))
    throw InputError("--prefix-hit", fmt::format("must be in [0, 1), got {}", o.prefix_hit));
  if (o.kv_offload != "none" && o.kv_offload != "host")
    throw InputError("--kv-offload", fmt::format("must be none or host, got '{}'", o.kv_offload));
  if (o.kv_offload == "host" && o.prefix_hit == 0)
    throw InputError("--kv-offload", "host holds cached prefixes: give --prefix-hit (the share of prompt tokens they cover)");
  if (o.context_attention != "bf16" && o.context_attention != "fp8")
    throw InputError("--context-attention", fmt::format("must be bf16 or fp8, got '{}'", o.context_attention));
  w.prefix_hit_fraction = o.prefix_hit;
  w.kv_offload_host = o.kv_offload == "host";
  w.fp8_context_attention = o.context_attention == "fp8";
}

LongContextRefusal long_context_refusal(const LongContextOptions& o, const Hardware& hw) {
  if (o.kv_offload == "host" && !(hw.accelerator.host_link_bytes_per_s > 0))
    return {"--kv-offload", fmt::format("--kv-offload host: the catalog gives {} no host link to copy cached "
                                        "prefixes back over",
                                        hw.accelerator.name)};
  if (o.context_attention == "fp8")
    if (const std::string why = fp8_attention_refusal(hw.accelerator); !why.empty())
      return {"--context-attention", "--context-attention fp8: " + why};
  return {};
}

void check_long_context_model(const LongContextOptions& o, const ModelArch& m) {
  if (o.context_attention == "fp8" && m.attention == AttentionKind::mla)
    throw InputError("--context-attention",
                     fmt::format("fp8 applies to the prompts' flash attention; {}'s MLA prompts run the engines' MLA "
                                 "kernels at the generation's fitted rate (infer_mla_prefill_eff)",
                                 m.name));
}

std::string long_context_text(const LongContextOptions& o) {
  std::string s;
  if (o.prefix_hit > 0) s += fmt::format(", prefix-cache hits {:g}%", o.prefix_hit * 100);
  if (o.kv_offload == "host") s += ", cached prefixes in host memory";
  if (o.context_attention == "fp8") s += ", FP8 context attention";
  return s;
}

nlohmann::json long_context_json(const LongContextOptions& o) {
  return {{"prefix_hit", o.prefix_hit}, {"kv_offload", o.kv_offload}, {"context_attention", o.context_attention}};
}

}  // namespace gpuplan::api
