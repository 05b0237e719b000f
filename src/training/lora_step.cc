#include "training/lora_step.h"

#include <algorithm>

#include "memory/lora_memory.h"
#include "physics/compute.h"

namespace gpuplan {

DequantizeCost qlora_dequantize(const FinetuneSpec& f) {
  if (!f.quantized_base()) return {};
  if (f.quant_kernel == QuantKernel::gptq) {
    // shift (0.5 + 4), to int8 (4 + 1), and (1 + 1), minus zeros (1 + 1), times scales (1 + 2)
    return {0.5 + 4.0 + 4.0 + 1.0 + 1.0 + 1.0 + 1.0 + 1.0 + 1.0 + 2.0, false};
  }
  return {frozen_bytes_per_param(f) + 2.0, true};  // read NF4 and its constants, write bf16
}

LoraStepCost lora_step_cost(const ModelArch& m, const Hardware& hw, const TrainingPlan& p, const TrainingWorkload& w,
                            double T, double n) {
  LoraStepCost c;
  const FinetuneSpec& f = w.finetune;
  if (f.is_full()) return c;
  const double L = m.layers, moe = m.moe_layers();
  const LoraLayerAdapters dense = lora_layer_adapters(m, f, false), moe_l = lora_layer_adapters(m, f, true);
  auto mix = [&](auto field) { return ((L - moe) * field(dense) + moe * field(moe_l)) / L; };
  // This GPU's adapter parameters: the dense part split by TP, routed experts by EP x ETP.
  c.adapter_params = n * mix([&](const LoraLayerAdapters& a) { return a.dense / p.tp + a.experts / (1.0 * p.ep * p.etp); });
  // Adapter GEMMs: X (T x in) times A (in x r), then (T x r) times B (r x out), added to the frozen
  // layer's output. At r FLOPs per byte of X they sit far below any GPU's ridge point, so they run at
  // HBM speed: read X, write and read the r-wide intermediate, read and write the output it adds to
  // (bf16), this GPU's share of the layer's adapters.
  const double width = mix([&](const LoraLayerAdapters& a) { return (a.active_dense + a.active_experts) / p.tp; }) /
                       f.rank;  // sum of (in + out) over the layer's adapters
  const double inter = mix([&](const LoraLayerAdapters& a) { return a.intermediate_elems_per_token / p.tp; });
  const double bytes = T * (width + 2.0 * inter) * 2.0;
  c.adapter_forward_s = n * std::max(memory_bound_time_s(hw, bytes),
                                     2.0 * T * width * f.rank / peak_flops(hw.accelerator, MathFormat::bf16));
  c.adapter_backward_s = 2.0 * c.adapter_forward_s;
  if (f.quantized_base()) {
    // One dequantize of the stage's transformer layers (embeddings and head stay 16-bit).
    const LayerParams dl = layer_params(m, false), ml = m.is_moe() ? layer_params(m, true) : dl;
    auto per_gpu = [&](const LayerParams& lp) {
      return (lp.attention + lp.mlp_dense + lp.moe_shared) / p.tp + lp.moe_router +
             m.moe.num_experts * lp.moe_expert / (1.0 * p.ep * p.etp);
    };
    const double params = n * ((L - moe) * per_gpu(dl) + moe * per_gpu(ml)) / L;
    const DequantizeCost d = qlora_dequantize(f);
    c.dequantize_pass_s = memory_bound_time_s(hw, params * d.bytes_per_param);
    c.backward_dequantize_s = d.backward_repeats ? c.dequantize_pass_s : 0.0;
  }
  return c;
}

}  // namespace gpuplan
