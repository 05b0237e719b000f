#include "validate/inferencex_scripts.h"

#include <fmt/format.h>

#include "recipe/recipe_catalog.h"
#include "recipe/recipe_keys.h"

namespace gpuplan {

std::string SglangScriptRecvInterval::assumption(long long clients) const {
  return fmt::format("SGLang --scheduler-recv-interval {} (InferenceX's {} at concurrency {})", interval, script,
                     clients);
}

SglangScriptRecvInterval inferencex_sglang_recv_interval(const std::string& model, const std::string& generation,
                                                         Precision weights, int tp, bool attention_dp,
                                                         long long clients) {
  const bool b200 = generation == "blackwell", b300 = generation == "blackwell_ultra";
  if (attention_dp || !(b200 || b300)) return {};
  const std::string gpu = b300 ? "b300" : "b200";
  const bool fp8 = weights == Precision::fp8 || weights == Precision::mxfp8;
  const bool fp4 = weights == Precision::fp4 || weights == Precision::nvfp4;
  // The scripts' common branch: "recv every ~10 requests; if CONC >= 16, relax to ~30".
  auto by_clients = [&](const std::string& script) {
    return SglangScriptRecvInterval{clients >= 16 ? 30 : 10, script + " (30 at 16+ clients, else 10)"};
  };
  if (model == "deepseek-r1" || model == "deepseek-v3") {
    // dsr1_fp8_b200.sh / dsr1_fp8_b300.sh: the TP 4 branch (from 2026-01-13, PR #411) passes 10.
    if (fp8 && tp == 4) return {10, "dsr1_fp8_" + gpu + ".sh (TP 4 branch: 10)"};
    return by_clients(std::string("dsr1_") + (fp8 ? "fp8" : fp4 ? "fp4" : "bf16") + "_" + gpu + "(_mtp).sh");
  }
  if (model == "qwen3.5-397b-a17b") {
    if (fp8 && b300) return {10, "qwen3.5_fp8_b300(_mtp).sh (10)"};
    return by_clients(std::string("qwen3.5_") + (fp8 ? "fp8" : fp4 ? "fp4" : "bf16") + "_" + gpu + "(_mtp).sh");
  }
  if (model == "glm-5" && fp4) return {10, "glm5_fp4_" + gpu + ".sh (10)"};
  return {};
}

std::string TrtllmScriptBatchWait::assumption(long long clients) const {
  return fmt::format("TensorRT-LLM batch waiting: context requests held up to {} iterations or until {:g} x "
                     "max_num_tokens a step (InferenceX's {} at concurrency {})",
                     iters, tokens_ratio, script, clients);
}

TrtllmScriptBatchWait inferencex_trtllm_batch_wait(const std::string& model, const std::string& accelerator,
                                                   Precision weights,
                                                   long long isl, long long osl, long long clients, bool attention_dp,
                                                   const std::string& date) {
  // The script rows of data/recipes/inferencex_scripts.yaml that set batch waiting.
  const bool fp8 = weights == Precision::fp8 || weights == Precision::mxfp8;
  const bool fp4 = weights == Precision::fp4 || weights == Precision::nvfp4;
  if (date.empty() || !(fp8 || fp4)) return {};
  for (const Recipe& r : builtin_recipe_table("recipes/inferencex_scripts.yaml").recipes) {
    if (r.batch_wait_iters <= 0 || r.model != model || r.gpu != accelerator || r.precision != (fp8 ? "fp8" : "fp4") ||
        (r.isl > 0 && r.isl != isl) || (r.osl > 0 && r.osl != osl) || clients < r.min_concurrency ||
        !recipe_key_matches(r.decode.attention_dp, attention_dp) || !r.in_force(date))
      continue;
    auto k = [](long long n) { return n % 1024 == 0 ? fmt::format("{}K", n / 1024) : fmt::format("{}", n); };
    return {r.batch_wait_iters, r.batch_wait_tokens_ratio,
            fmt::format("{} ({}/{} at {}+ clients, from {})", r.recipe, k(r.isl), k(r.osl), r.min_concurrency,
                        r.valid_from)};
  }
  return {};
}

int inferencex_script_mtp_draft_tokens(const std::string& model, const std::string& engine, Precision weights,
                                       const std::string& date, std::string* script) {
  const bool fp8 = weights == Precision::fp8 || weights == Precision::mxfp8;
  const bool fp4 = weights == Precision::fp4 || weights == Precision::nvfp4;
  if (date.empty() || !(fp8 || fp4)) return 0;
  for (const Recipe& r : builtin_recipe_table("recipes/inferencex_scripts.yaml").recipes)
    if (r.mtp_draft_tokens > 0 && r.model == model && r.engine == engine && r.precision == (fp8 ? "fp8" : "fp4") &&
        r.in_force(date)) {
      if (script) *script = r.recipe;
      return r.mtp_draft_tokens;
    }
  return 0;
}

}  // namespace gpuplan
