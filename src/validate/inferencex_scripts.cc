#include "validate/inferencex_scripts.h"

#include <fmt/format.h>

#include "recipe/recipe_catalog.h"
#include "recipe/recipe_keys.h"

namespace gpuplan {
namespace {

// The script rows' `precision` for the row's weights: fp8 (FP8 or MXFP8), fp4 (FP4 or NVFP4), else bf16
// (the scripts' branch for any other weights).
std::string script_precision(Precision weights) {
  if (weights == Precision::fp8 || weights == Precision::mxfp8) return "fp8";
  if (weights == Precision::fp4 || weights == Precision::nvfp4) return "fp4";
  return "bf16";
}

}  // namespace

std::string SglangScriptRecvInterval::assumption(long long clients) const {
  return fmt::format("SGLang --scheduler-recv-interval {} (InferenceX's {} at concurrency {})", interval, script,
                     clients);
}

SglangScriptRecvInterval inferencex_sglang_recv_interval(const std::string& model, const std::string& generation,
                                                         Precision weights, int tp, bool attention_dp,
                                                         long long clients) {
  // The script rows of data/recipes/inferencex_scripts.yaml that pass a receive interval; a row stating
  // the TP wins over one that does not.
  const std::string precision = script_precision(weights);
  const Recipe* found = nullptr;
  for (const Recipe& r : builtin_recipe_table("recipes/inferencex_scripts.yaml").recipes) {
    if (r.decode.scheduler_recv_interval <= 1 || r.model != model || r.precision != precision ||
        (!r.generation.empty() && r.generation != generation) ||
        !recipe_key_matches(r.decode.attention_dp, attention_dp) ||
        (r.decode.gpus_per_worker > 0 && r.decode.gpus_per_worker != tp) || clients < r.min_concurrency ||
        (r.max_concurrency > 0 && clients > r.max_concurrency))
      continue;
    if (!found || (r.decode.gpus_per_worker > 0 && found->decode.gpus_per_worker == 0)) found = &r;
  }
  if (!found) return {};
  return {found->decode.scheduler_recv_interval, found->recipe};
}

std::string SglangScriptMemFraction::assumption() const {
  return fmt::format("SGLang --mem-fraction-static {:g}: the weights and the KV pool in that share of each GPU's "
                     "memory (InferenceX's {})",
                     fraction, script);
}

SglangScriptMemFraction inferencex_sglang_mem_fraction(const std::string& model, const std::string& accelerator,
                                                       Precision weights, int tp, int mtp, const std::string& date) {
  const std::string precision = script_precision(weights);
  if (date.empty()) return {};
  // Per MTP reading (off, on): the row that applies, one stating the TP winning over one that does not.
  const Recipe* found[2] = {nullptr, nullptr};
  for (const Recipe& r : builtin_recipe_table("recipes/inferencex_scripts.yaml").recipes) {
    if (r.decode.mem_fraction_static <= 0 || r.model != model || r.gpu != accelerator || r.precision != precision ||
        (r.decode.gpus_per_worker > 0 && r.decode.gpus_per_worker != tp) || !r.in_force(date))
      continue;
    for (int m = 0; m < 2; ++m)
      if ((mtp < 0 || mtp == m) && recipe_key_matches(r.mtp, m == 1) &&
          (!found[m] || (r.decode.gpus_per_worker > 0 && found[m]->decode.gpus_per_worker == 0)))
        found[m] = &r;
  }
  // Not said: the script in force (the MTP script's rows begin with its first commit), or both where they
  // agree.
  const Recipe* r = mtp >= 0 ? found[mtp] : found[0] ? found[0] : found[1];
  if (!r) return {};
  if (mtp < 0 && found[0] && found[1] && found[1]->decode.mem_fraction_static != r->decode.mem_fraction_static)
    return {};
  return {r->decode.mem_fraction_static, r->recipe};
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
  const std::string precision = script_precision(weights);
  if (date.empty() || precision == "bf16") return {};
  for (const Recipe& r : builtin_recipe_table("recipes/inferencex_scripts.yaml").recipes) {
    if (r.batch_wait_iters <= 0 || r.model != model || r.gpu != accelerator || r.precision != precision ||
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
  const std::string precision = script_precision(weights);
  if (date.empty() || precision == "bf16") return 0;
  for (const Recipe& r : builtin_recipe_table("recipes/inferencex_scripts.yaml").recipes)
    if (r.mtp_draft_tokens > 0 && r.model == model && r.engine == engine && r.precision == precision &&
        r.in_force(date)) {
      if (script) *script = r.recipe;
      return r.mtp_draft_tokens;
    }
  return 0;
}

}  // namespace gpuplan
