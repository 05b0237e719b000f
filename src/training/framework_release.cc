#include "training/framework_release.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <vector>

#include "core/error.h"
#include "core/suggest.h"
#include "core/text.h"

namespace gpuplan {

namespace {

std::string allowed_forms() {
  return fmt::format("a year from {} to {} or a container version YY.MM or YY.MM.NN of those years (e.g. 25.09)",
                     kOldestFrameworkRelease, kNewestFrameworkRelease);
}

}  // namespace

std::string FrameworkRelease::text() const { return container ? to_string(*container) : std::to_string(year); }

FrameworkRelease framework_release(int year, const std::string& field) {
  if (year < kOldestFrameworkRelease || year > kNewestFrameworkRelease)
    throw InputError(field, fmt::format("must be a year from {} to {} (the training framework's release; or a "
                                        "container version YY.MM such as 25.09), got {}",
                                        kOldestFrameworkRelease, kNewestFrameworkRelease, year));
  FrameworkRelease r;
  r.year = year;
  r.sequence_parallel = year >= 2022;
  r.distributed_optimizer = year >= 2022;
  r.tp_comm_overlap = year >= 2023;
  r.ep_a2a_overlap = year >= kEpA2aOverlapContainer.full_year();  // a year: its newest release
  r.hopper_attention = year >= 2024;
  return r;
}

FrameworkRelease framework_release(const ContainerVersion& c, const std::string& field) {
  if (c.full_year() < kOldestFrameworkRelease || c.full_year() > kNewestFrameworkRelease)
    throw InputError(field, fmt::format("must be {}, got container {} (year {})", allowed_forms(), to_string(c),
                                        c.full_year()));
  FrameworkRelease r = framework_release(c.full_year(), field);
  r.container = c;
  r.ep_a2a_overlap = !(c < kEpA2aOverlapContainer);
  return r;
}

FrameworkRelease parse_framework_release(const std::string& text, const std::string& field) {
  if (const auto c = parse_container_version(text)) return framework_release(*c, field);
  const bool digits = text.size() == 4 && std::all_of(text.begin(), text.end(), [](char ch) {
                        return std::isdigit(static_cast<unsigned char>(ch)) != 0;
                      });
  if (digits) {
    const int year = std::stoi(text);
    if (year >= kOldestFrameworkRelease && year <= kNewestFrameworkRelease) return framework_release(year, field);
  }
  throw InputError(field, fmt::format("must be {}, got '{}'", allowed_forms(), echo_name(text)));
}

TrainingPlan with_release_limits(TrainingPlan p, const FrameworkRelease& r) {
  if (!r.sequence_parallel) p.sequence_parallel = false;
  if (!r.distributed_optimizer) {
    p.distributed_optimizer = false;
    p.zero = 0;
  }
  if (!r.tp_comm_overlap) p.tp_comm_overlap = false;
  if (!r.ep_a2a_overlap) p.ep_overlap = false;
  return p;
}

std::optional<AttentionKernel> parse_attention_kernel(const std::string& text) {
  const std::string t = to_lower(text);
  if (t == "native") return AttentionKernel::native;
  if (t == "flash-attention-2" || t == "fa2" || t == "flash-attn-2") return AttentionKernel::flash_attention_2;
  return std::nullopt;
}

const char* to_string(AttentionKernel k) {
  switch (k) {
    case AttentionKernel::native: return "native";
    case AttentionKernel::flash_attention_2: return "flash-attention-2";
    case AttentionKernel::release: break;
  }
  return "release";
}

AttentionKernel effective_attention_kernel(const FrameworkRelease& r, AttentionKernel k,
                                           const std::string& generation) {
  if (k != AttentionKernel::release) return k;
  return generation == "hopper" && !r.hopper_attention ? AttentionKernel::flash_attention_2 : AttentionKernel::native;
}

Hardware with_release_kernels(Hardware hw, const FrameworkRelease& r, const Catalog& catalog, AttentionKernel k,
                              const std::string& field) {
  const std::string& g = hw.accelerator.generation;
  if (k == AttentionKernel::flash_attention_2 && g != "ampere" && g != "ada" && g != "hopper")
    throw InputError(field, fmt::format("flash-attention-2 is modelled on ampere, ada and hopper GPUs (its published "
                                        "rates), not on {} ({}): give native",
                                        hw.accelerator.name, g));
  if (g != "hopper" || effective_attention_kernel(r, k, g) != AttentionKernel::flash_attention_2) return hw;
  const Accelerator* a100 = catalog.find_accelerator("a100-80gb");
  const Accelerator* h100 = catalog.find_accelerator("h100-sxm");
  const double ampere_eff = catalog.efficiency("ampere").attention_eff;
  if (!a100 || !h100 || ampere_eff <= 0 || h100->peak(MathFormat::bf16) <= 0) return hw;
  const double kernel_flops_per_s = ampere_eff * a100->peak(MathFormat::bf16) * kAmpereKernelHopperSpeedup;
  const double share = kernel_flops_per_s / h100->peak(MathFormat::bf16);
  hw.efficiency.attention_eff = std::min(hw.efficiency.attention_eff, share);
  return hw;
}

std::string release_note(const FrameworkRelease& r, bool moe, bool hopper) {
  std::vector<std::string> lacks;
  if (!r.distributed_optimizer) lacks.push_back("no distributed optimizer");
  if (!r.sequence_parallel) lacks.push_back("no sequence parallelism");
  if (!r.tp_comm_overlap) lacks.push_back("no TP communication overlap");
  if (moe && !r.ep_a2a_overlap) lacks.push_back("no expert all-to-all overlap");
  if (hopper && !r.hopper_attention)
    lacks.push_back("no Hopper-native attention kernels (FlashAttention-2's rate on Hopper)");
  if (lacks.empty()) return "";
  return fmt::format("{} framework: {}", r.text(), fmt::join(lacks, ", "));
}

}  // namespace gpuplan
