#include "training/expert_overlap.h"

#include <fmt/format.h>

#include <array>
#include <cctype>
#include <initializer_list>
#include <regex>

#include "core/error.h"

namespace gpuplan {

namespace {

// One Megatron-Bridge performance recipe family that sets `moe_a2a_overlap=True`
// (comm_overlap.overlap_moe_expert_parallel_comm): for `model` on `accelerator` in the precisions
// listed, from container `from` until (not including) `until` ({0,0,0}: still on in the newest).
struct OverlapRecipe {
  const char* model;  // lower case, letters and digits only
  const char* accelerator;
  std::initializer_list<Precision> precisions;
  ContainerVersion from;
  ContainerVersion until;
};

// Source: github.com/NVIDIA-NeMo/Megatron-Bridge, scripts/performance/configs/{deepseek,qwen,qwen3,gpt_oss}/
// *workload_base_configs.py at each release tag (src/megatron/bridge/perf_recipes/ from v0.6.0), read
// with every `replace(...)` resolved; a container runs the release whose docs/performance-summary.md first
// reports it: 25.11 = v0.2.1, 26.02 = v0.3.0, 26.02.01 = v0.3.1, 26.04 = v0.4.0/v0.4.1, 26.04.01 = v0.4.2,
// 26.06 = v0.5.0, 26.06.01 = v0.5.1, 26.08 = v0.6.0. FP8 is the recipes' current-scaling FP8 (fp8_cs).
const std::array<OverlapRecipe, 19> kOverlapRecipes{{
    // DeepSeek-V3: H100 with DeepEP in v0.2.x; HybridEP recipes from v0.3.0 without it, until the MXFP8
    // recipes with full-iteration CUDA graphs and the fused grouped MLP turned it back on.
    {"deepseekv3", "h100-sxm", {Precision::bf16, Precision::fp8}, {25, 11, 0}, {26, 2, 0}},
    {"deepseekv3", "b200", {Precision::mxfp8, Precision::nvfp4}, {26, 4, 1}, {}},  // "b200 DSv3 better cfg", EP32
    {"deepseekv3", "gb200", {Precision::mxfp8}, {26, 6, 0}, {}},
    {"deepseekv3", "gb300", {Precision::mxfp8}, {26, 6, 0}, {}},
    {"deepseekv3", "b300", {Precision::mxfp8}, {26, 6, 1}, {}},
    // Qwen3-235B-A22B
    {"qwen3235ba22b", "b200", {Precision::bf16, Precision::fp8, Precision::mxfp8}, {25, 11, 0}, {26, 2, 0}},
    {"qwen3235ba22b", "b300", {Precision::bf16, Precision::fp8, Precision::mxfp8}, {26, 2, 0}, {26, 2, 1}},
    {"qwen3235ba22b", "h100-sxm", {Precision::bf16, Precision::fp8}, {25, 11, 0}, {}},
    {"qwen3235ba22b", "gb200", {Precision::mxfp8}, {26, 6, 0}, {}},
    {"qwen3235ba22b", "gb300", {Precision::mxfp8}, {26, 6, 0}, {}},
    {"qwen3235ba22b", "b200", {Precision::mxfp8}, {26, 6, 1}, {}},
    {"qwen3235ba22b", "b300", {Precision::mxfp8}, {26, 6, 1}, {}},
    // Qwen3-30B-A3B
    {"qwen330ba3b", "h100-sxm", {Precision::bf16, Precision::fp8}, {25, 11, 0}, {26, 2, 1}},
    {"qwen330ba3b", "gb200", {Precision::mxfp8}, {26, 6, 0}, {}},
    {"qwen330ba3b", "gb300", {Precision::mxfp8}, {26, 6, 0}, {}},
    {"qwen330ba3b", "b300", {Precision::mxfp8}, {26, 6, 0}, {}},
    {"qwen330ba3b", "b200", {Precision::mxfp8}, {26, 6, 1}, {}},
    // GPT-OSS-120B
    {"gptoss120b", "gb200", {Precision::bf16, Precision::mxfp8}, {26, 4, 0}, {}},
    {"gptoss120b", "gb300", {Precision::mxfp8}, {26, 6, 0}, {}},
}};

std::string letters_and_digits(std::string_view s) {
  std::string out;
  for (char ch : s)
    if (std::isalnum(static_cast<unsigned char>(ch))) out += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return out;
}

}  // namespace

std::optional<ContainerVersion> parse_container_version(std::string_view text) {
  static const std::regex re(R"(v?(\d\d)\.(\d\d)(?:\.(\d\d))?)");
  std::cmatch m;
  if (!std::regex_match(text.begin(), text.end(), m, re)) return std::nullopt;
  ContainerVersion v{std::stoi(m.str(1)), std::stoi(m.str(2)), m[3].matched ? std::stoi(m.str(3)) : 0};
  if (v.month < 1 || v.month > 12) return std::nullopt;
  return v;
}

std::string to_string(const ContainerVersion& v) {
  return v.patch ? fmt::format("{:02}.{:02}.{:02}", v.year, v.month, v.patch) : fmt::format("{:02}.{:02}", v.year, v.month);
}

ContainerVersion newest_container_version() { return {26, 8, 0}; }

bool recipe_overlaps_expert_a2a(std::string_view model, std::string_view accelerator, Precision precision,
                                const ContainerVersion& container) {
  const std::string key = letters_and_digits(model);
  for (const OverlapRecipe& r : kOverlapRecipes) {
    if (key.rfind(r.model, 0) != 0 || accelerator != r.accelerator) continue;
    bool precision_listed = false;
    for (Precision p : r.precisions) precision_listed = precision_listed || p == precision;
    if (!precision_listed || container < r.from) continue;
    if (r.until != ContainerVersion{} && !(container < r.until)) continue;
    return true;
  }
  return false;
}

std::optional<ContainerVersion> nemo_container_of_source(std::string_view source_id) {
  const size_t dash = source_id.find('-');
  if (dash == std::string_view::npos) return std::nullopt;
  const std::string prefix = letters_and_digits(source_id.substr(0, dash));
  if (prefix != "nemofw" && prefix != "nemo" && prefix != "mbridge") return std::nullopt;
  return parse_container_version(source_id.substr(source_id.rfind('-') + 1));
}

bool parse_on_off(const std::string& text, const std::string& field) {
  if (text == "on") return true;
  if (text == "off") return false;
  throw InputError(field, fmt::format("must be on or off, got '{}'", text));
}

}  // namespace gpuplan
