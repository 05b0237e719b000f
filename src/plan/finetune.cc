#include "plan/finetune.h"

#include <fmt/format.h>

#include <algorithm>
#include <sstream>

#include "core/error.h"

namespace gpuplan {

FinetuneMethod parse_finetune_method(const std::string& text) {
  if (text == "full") return FinetuneMethod::full;
  if (text == "lora") return FinetuneMethod::lora;
  if (text == "qlora") return FinetuneMethod::qlora;
  throw InputError("--method", fmt::format("must be full, lora or qlora, got '{}'", text.substr(0, 40)));
}

QuantKernel parse_quant_kernel(const std::string& text) {
  if (text == "nf4-bnb" || text == "nf4") return QuantKernel::nf4_bnb;
  if (text == "gptq") return QuantKernel::gptq;
  throw InputError("--qlora-kernel", fmt::format("must be nf4-bnb or gptq, got '{}'", text.substr(0, 40)));
}

LossPrecision parse_loss_precision(const std::string& text) {
  if (text == "fp32") return LossPrecision::fp32;
  if (text == "bf16") return LossPrecision::bf16;
  if (text == "fp16") return LossPrecision::fp16;
  throw InputError("--loss-precision", fmt::format("must be fp32, bf16 or fp16, got '{}'", text.substr(0, 40)));
}

double loss_element_bytes(LossPrecision p) { return p == LossPrecision::fp32 ? 4.0 : 2.0; }

std::string to_string(LossPrecision p) {
  switch (p) {
    case LossPrecision::fp32: return "fp32";
    case LossPrecision::bf16: return "bf16";
    case LossPrecision::fp16: return "fp16";
  }
  return "?";
}

std::string to_string(QuantKernel k) { return k == QuantKernel::gptq ? "gptq" : "nf4-bnb"; }

LoopKernels parse_loop_kernels(const std::string& text) {
  if (text == "fused") return LoopKernels::fused;
  if (text == "eager") return LoopKernels::eager;
  throw InputError("--kernels", fmt::format("must be fused or eager, got '{}'", text.substr(0, 40)));
}

std::string to_string(LoopKernels k) { return k == LoopKernels::eager ? "eager" : "fused"; }

LoraTargets parse_lora_targets(const std::string& text) {
  if (text == "all-linear" || text == "all_linear" || text == "all") return LoraTargets{};
  LoraTargets t{false, false, false, false, false, false, false};
  if (text == "attention") {
    t.q = t.k = t.v = t.o = true;
    return t;
  }
  if (text == "mlp") {
    t.gate = t.up = t.down = true;
    return t;
  }
  if (text == "qkv") {
    t.q = t.k = t.v = true;
    return t;
  }
  std::stringstream in(text);
  std::string item;
  int n = 0;
  while (std::getline(in, item, ',')) {
    item.erase(std::remove(item.begin(), item.end(), ' '), item.end());
    if (item.size() > 5 && item.substr(item.size() - 5) == "_proj") item.resize(item.size() - 5);
    bool* slot = item == "q" ? &t.q : item == "k" ? &t.k : item == "v" ? &t.v : item == "o" ? &t.o
               : item == "gate" ? &t.gate : item == "up" ? &t.up : item == "down" ? &t.down : nullptr;
    if (!slot)
      throw InputError("--lora-targets",
                       fmt::format("unknown target '{}'; allowed: all-linear, attention, mlp, qkv, or a comma list of "
                                   "q, k, v, o, gate, up, down (q_proj ... down_proj)",
                                   item.substr(0, 40)));
    *slot = true;
    ++n;
  }
  if (n == 0) throw InputError("--lora-targets", "must name at least one linear layer (e.g. all-linear or q,v)");
  return t;
}

std::string to_string(FinetuneMethod m) {
  switch (m) {
    case FinetuneMethod::full: return "full";
    case FinetuneMethod::lora: return "lora";
    case FinetuneMethod::qlora: return "qlora";
  }
  return "?";
}

std::string to_string(const LoraTargets& t) {
  if (t == LoraTargets{}) return "all-linear";
  if (t == LoraTargets{true, true, true, true, false, false, false}) return "attention";
  if (t == LoraTargets{false, false, false, false, true, true, true}) return "mlp";
  std::string s;
  const std::pair<bool, const char*> parts[] = {{t.q, "q"},       {t.k, "k"},   {t.v, "v"},      {t.o, "o"},
                                                {t.gate, "gate"}, {t.up, "up"}, {t.down, "down"}};
  for (const auto& [on, name] : parts) {
    if (!on) continue;
    if (!s.empty()) s += ',';
    s += name;
  }
  return s;
}

// Followed by ", bf16 loss" (or fp16) when the loss does not run in fp32.
std::string describe(const FinetuneSpec& f) {
  const std::string loss = (f.loss_precision == LossPrecision::fp32 ? "" : ", " + to_string(f.loss_precision) + " loss") +
                           (f.kernels == LoopKernels::eager ? ", eager kernels" : "");
  if (f.is_full()) return "full" + loss;
  return fmt::format("{}{} r={} {}{}{}", to_string(f.method),
                     f.quantized_base() && f.quant_kernel == QuantKernel::gptq ? " (gptq)" : "", f.rank,
                     to_string(f.targets), f.optimizer_bits == 8 ? " 8-bit optimizer" : "", loss);
}

}  // namespace gpuplan
