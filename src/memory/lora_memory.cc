#include "memory/lora_memory.h"

#include <fmt/format.h>

#include <algorithm>

#include "core/error.h"

namespace gpuplan {

namespace {

// r * (in + out) for one adapter on an in x out linear layer.
double adapter(double r, double in, double out) { return r * (in + out); }

// One MLP of width f (gated: gate, up, down; plain: fc1 as up, fc2 as down).
double mlp_adapters(const ModelArch& m, const LoraTargets& t, double r, double f, int* pairs) {
  const double h = m.hidden;
  double p = 0;
  if (m.gated_mlp && t.gate) p += adapter(r, h, f), ++*pairs;
  if (t.up) p += adapter(r, h, f), ++*pairs;
  if (t.down) p += adapter(r, f, h), ++*pairs;
  return p;
}

// Token-mixer adapters of one full-attention (or linear-attention) layer.
double attention_adapters(const ModelArch& m, const LoraTargets& t, double r, bool linear_layer, int* pairs) {
  const double h = m.hidden;
  double p = 0;
  if (linear_layer) {
    const LinearAttentionDims& d = m.linear;
    const double key_dim = 1.0 * d.key_heads * d.key_head_dim, value_dim = 1.0 * d.value_heads * d.value_head_dim;
    if (t.q || t.k || t.v) p += adapter(r, h, 2 * key_dim + 2 * value_dim), ++*pairs;
    if (t.o) p += adapter(r, value_dim, h), ++*pairs;
    return p;
  }
  if (m.attention == AttentionKind::mla) {
    const MlaDims& a = m.mla;
    const double qk = a.qk_nope_head_dim + a.qk_rope_head_dim;
    if (t.q) {
      if (a.q_lora_rank > 0) p += adapter(r, h, a.q_lora_rank) + adapter(r, a.q_lora_rank, m.heads * qk), *pairs += 2;
      else p += adapter(r, h, m.heads * qk), ++*pairs;
    }
    if (t.k || t.v) {
      p += adapter(r, h, a.kv_lora_rank + a.qk_rope_head_dim) +
           adapter(r, a.kv_lora_rank, 1.0 * m.heads * (a.qk_nope_head_dim + a.v_head_dim));
      *pairs += 2;
    }
    if (t.o) p += adapter(r, 1.0 * m.heads * a.v_head_dim, h), ++*pairs;
    return p;
  }
  const double q = 1.0 * m.heads * m.head_dim;
  const double kv = 1.0 * (m.attention == AttentionKind::mha ? m.heads : m.kv_heads) * m.head_dim;
  if (t.q) p += adapter(r, h, m.attention_output_gate ? 2 * q : q), ++*pairs;
  if (t.k) p += adapter(r, h, kv), ++*pairs;
  if (t.v) p += adapter(r, h, kv), ++*pairs;
  if (t.o) p += adapter(r, q, h), ++*pairs;
  return p;
}

}  // namespace

double hf_loss_bytes_per_logit(LossPrecision p) {
  const double loss = loss_element_bytes(p);
  // Upcast: the measured eager loss. 16-bit: saved log-softmax, nll gradient, log-softmax input gradient.
  return loss > kLogitsComputeBytes ? kEagerLossBytesPerLogit : 3.0 * loss;
}

double frozen_bytes_per_param(const FinetuneSpec& f) {
  if (!f.quantized_base()) return 2.0;
  return f.quant_kernel == QuantKernel::gptq ? 0.5 + kGptqConstantBitsPerParam / 8.0
                                             : kNf4BytesPerParam + kDoubleQuantBitsPerParam / 8.0;
}

LoraLayerAdapters lora_layer_adapters(const ModelArch& m, const FinetuneSpec& f, bool moe_layer) {
  LoraLayerAdapters a;
  if (f.is_full()) return a;
  const double r = f.rank;
  const LoraTargets& t = f.targets;
  // Token mixer: the mean over full- and linear-attention layers (hybrids), as layer_params does.
  int full_pairs = 0, linear_pairs = 0;
  const double full_attn = attention_adapters(m, t, r, false, &full_pairs);
  double attn = full_attn, pairs = full_pairs;
  if (m.is_hybrid()) {
    const double lin = attention_adapters(m, t, r, true, &linear_pairs);
    attn = (m.full_attention_layers() * full_attn + m.linear.layers * lin) / m.layers;
    pairs = (m.full_attention_layers() * full_pairs + m.linear.layers * linear_pairs) / static_cast<double>(m.layers);
  }
  a.dense = a.active_dense = attn;
  int mlp_pairs = 0;
  if (moe_layer && m.is_moe()) {
    const double shared_f = m.moe.shared_ffn_hidden > 0 ? m.moe.shared_ffn_hidden : m.moe.expert_ffn_hidden;
    const double shared = m.moe.shared_experts > 0 ? m.moe.shared_experts * mlp_adapters(m, t, r, shared_f, &mlp_pairs) : 0;
    a.dense += shared;
    a.active_dense += shared;
    int expert_pairs = 0;
    const double one = mlp_adapters(m, t, r, m.moe.expert_ffn_hidden, &expert_pairs);
    a.experts = m.moe.num_experts * one;
    a.active_experts = m.moe.top_k * one;
    pairs += 1.0 * mlp_pairs * m.moe.shared_experts + 1.0 * expert_pairs * m.moe.top_k;
  } else {
    const double mlp = mlp_adapters(m, t, r, m.ffn_hidden, &mlp_pairs);
    a.dense += mlp;
    a.active_dense += mlp;
    pairs += mlp_pairs;
  }
  a.intermediate_elems_per_token = pairs * r;
  return a;
}

double lora_adapter_params(const ModelArch& m, const FinetuneSpec& f) {
  if (f.is_full()) return 0;
  const int moe = m.moe_layers();
  const LoraLayerAdapters d = lora_layer_adapters(m, f, false);
  double p = (m.layers - moe) * (d.dense + d.experts);
  if (moe > 0) {
    const LoraLayerAdapters e = lora_layer_adapters(m, f, true);
    p += moe * (e.dense + e.experts);
  }
  return p;
}

double lora_forward_flops_per_token(const ModelArch& m, const FinetuneSpec& f) {
  if (f.is_full()) return 0;
  const int moe = m.moe_layers();
  const LoraLayerAdapters d = lora_layer_adapters(m, f, false);
  double p = (m.layers - moe) * (d.active_dense + d.active_experts);
  if (moe > 0) {
    const LoraLayerAdapters e = lora_layer_adapters(m, f, true);
    p += moe * (e.active_dense + e.active_experts);
  }
  return 2.0 * p;
}

void check_finetune(const ModelArch& m, const TrainingWorkload& w) {
  const FinetuneSpec& f = w.finetune;
  if (f.is_full()) return;
  if (f.rank < 1 || f.rank > m.hidden)
    throw InputError("--lora-rank", fmt::format("must be 1 to the hidden size {} of {}, got {}", m.hidden, m.name, f.rank));
  if (!f.targets.any()) throw InputError("--lora-targets", "must name at least one linear layer (e.g. all-linear or q,v)");
  if (f.optimizer_bits != 8 && f.optimizer_bits != 32)
    throw InputError("--lora-optimizer-bits", fmt::format("must be 8 or 32, got {}", f.optimizer_bits));
  if (f.quantized_base() && w.precision != Precision::bf16)
    throw InputError("--precision", fmt::format("QLoRA computes in bf16 (NF4 weights dequantized to bf16 for every "
                                                "GEMM); use --precision bf16, got {}", to_string(w.precision)));
}

void apply_lora_to_stage(const ModelArch& /*m*/, const TrainingPlan& p, const FinetuneSpec& f, const LoraStageInputs& in,
                         StageMemory& s) {
  const double frozen_layers = s.params - in.embedding_params;
  const double frozen = frozen_layers * frozen_bytes_per_param(f) + in.embedding_params * kFrozenEmbeddingBytes;
  const bool shard_weights = p.zero >= 3, shard_grads = p.zero >= 2;
  const bool shard_optimizer = p.distributed_optimizer || p.zero >= 1;
  s.weights_bytes = shard_weights ? frozen / in.dense_shard + 2.0 * in.largest_layer_params * frozen_bytes_per_param(f)
                                  : frozen;
  s.weights_bytes += kAdapterBytes * (shard_weights ? in.adapter_params / in.dense_shard : in.adapter_params);
  s.gradients_bytes = kAdapterGradBytes * (shard_grads ? in.adapter_params / in.dense_shard : in.adapter_params);
  const double moments = f.optimizer_bits == 8 ? 2.0 : 8.0;  // Adam m and v
  s.optimizer_bytes = moments * (shard_optimizer ? in.adapter_params / in.dense_shard : in.adapter_params);
  // Adapters' intermediates: every layer's for the micro-batches in flight, or one layer's while it is
  // recomputed when whole layers are (gradient checkpointing keeps only the layer inputs).
  const double inter = p.recompute == Recompute::full && p.recompute_layers == 0
                           ? in.layer_intermediate_elems_per_token
                           : in.intermediate_elems_per_token * std::max(1.0, s.in_flight_microbatches);
  double extra = in.tokens * inter * 2.0;
  if (s.logits_bytes > 0) {  // the last stage: Hugging Face's loss in place of the fused loss's logits
    const double logits = s.logits_bytes / loss_bytes_per_logit(f);
    const double hf = logits * hf_loss_bytes_per_logit(f.loss_precision);
    extra += hf - s.logits_bytes;
    s.logits_bytes = hf;
  }
  s.activations_bytes += extra;
  s.total_bytes = s.weights_bytes + s.gradients_bytes + s.optimizer_bytes + s.activations_bytes + in.reserve_bytes;
}

}  // namespace gpuplan
