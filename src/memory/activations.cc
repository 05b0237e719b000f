#include "memory/activations.h"

#include <algorithm>

namespace gpuplan {

bool is_moe_layer(const ModelArch& m, int index) {
  if (!m.is_moe() || index < m.moe.first_dense_layers) return false;
  return (index - m.moe.first_dense_layers) % std::max(1, m.moe.layer_freq) == 0;
}

long long moe_layers_before(const ModelArch& m, int index) {
  if (!m.is_moe() || index <= m.moe.first_dense_layers) return 0;
  const long long freq = std::max(1, m.moe.layer_freq);
  return (static_cast<long long>(index) - m.moe.first_dense_layers + freq - 1) / freq;
}

namespace {

// Bytes per token stored by the activation function region of an MLP with intermediate size f
// (before any tensor-parallel split). Korthikanti §4.1: GeLU input 2f + GeLU output 2f = 4f (8h + 8h for
// f = 4h). Gated (SwiGLU): the gate and up projections 2f + 2f, and the product (input of the down
// projection) 2f = 6f. The activation's output is the down projection's input: `g` bytes per element
// (the GEMM input format; 2 in BF16). Eager gated MLPs keep silu's output too (ActivationContext::eager).
double act_fn_bytes(const ModelArch& m, double f, double g, bool eager = false) {
  // Eager SwiGLU (F.silu(gate) * up) keeps silu's output for the product's backward: 2f more.
  return (m.gated_mlp ? (eager ? 6.0 : 4.0) : 2.0) * f + g * f;
}

}  // namespace

double layer_activation_bytes(const ModelArch& m, bool moe_layer, const ActivationContext& c,
                              Recompute mode) {
  const double tokens = 1.0 * c.seq_local * c.micro_batch;
  const double h = m.hidden;
  const double t = std::max(1, c.tp);
  // Tensors of the "sequence" regions (norm inputs, GEMM inputs, dropout masks) are replicated over
  // TP ranks without SP and split by t with SP (Korthikanti §4.2.2).
  const double seq_div = (c.sequence_parallel && t > 1) ? t : 1.0;

  // Full recompute (Korthikanti §4.3): only the layer input is checkpointed.
  if (mode == Recompute::full) return tokens * 2.0 * h / seq_div;

  const double mask = c.dropout ? 1.0 : 0.0;  // bytes per element of a dropout mask
  const double g = c.gemm_input_bytes;         // bytes per element of a saved GEMM input
  double per_token = 0;

  // --- Attention block ---
  // Module recompute (Megatron --recompute-modules layernorm, moe_act, mla_up_proj): the norm outputs,
  // the routed experts' activation outputs and MLA's up-projected Q/K/V are recomputed in the backward
  // from what the layer keeps anyway (norm inputs, fc1 outputs, the latents), not stored.
  const bool modules = mode == Recompute::modules;
  const double norm_in = c.eager ? 4.0 : 2.0;  // bytes per element of a norm's input (the residual stream)
  per_token += norm_in * h / seq_div;  // input of the pre-attention norm
  if (!modules) per_token += g * h / seq_div;  // normed input of the QKV (or MLA down) projections
  // A hybrid model's token mixer differs by layer kind; the caller counts layers by MLP kind only, so
  // the mixer's bytes are the mean over the model's full- and linear-attention layers.
  const double full_share = m.is_hybrid() ? double(m.full_attention_layers()) / std::max(1, m.layers) : 1.0;
  double mixer = 0;
  int heads = m.heads;
  double q_dim = 0, k_dim = 0, v_dim = 0;  // per token, all heads, before the TP split
  if (m.attention == AttentionKind::mla) {
    const MlaDims& d = m.mla;
    // Latent path (replicated over TP, sequence-split with SP): norm input and up-projection input of
    // the query latent (when low-rank) and of the KV latent, plus the shared rope key.
    if (d.q_lora_rank > 0) mixer += 2.0 * (2.0 * d.q_lora_rank) / seq_div;
    mixer += 2.0 * (2.0 * d.kv_lora_rank + d.qk_rope_head_dim) / seq_div;
    q_dim = 1.0 * heads * (d.qk_nope_head_dim + d.qk_rope_head_dim);
    k_dim = q_dim;
    v_dim = 1.0 * heads * d.v_head_dim;
  } else {
    const int kv = m.attention == AttentionKind::mha ? m.heads : m.kv_heads;
    q_dim = 1.0 * heads * m.head_dim;
    k_dim = v_dim = 1.0 * kv * m.head_dim;  // GQA: K and V shrink with the KV heads
  }
  // Q, K, V kept for the attention backward (MLA's are recomputed from the latents under module recompute)
  if (!(modules && m.attention == AttentionKind::mla)) mixer += 2.0 * (q_dim + k_dim + v_dim) / t;
  if (m.attention_output_gate) mixer += 2.0 * q_dim / t;  // the output gate's input, for its sigmoid's backward
  // Core attention. Without flash attention and recompute (Korthikanti §4.1): softmax output 2as,
  // dropout mask as, dropout output 2as per token (5as); without dropout only the softmax output
  // (2as). Flash attention keeps only the fp32 log-sum-exp per head (4 bytes). Selective recompute
  // recomputes the core attention and keeps neither.
  if (mode != Recompute::selective) {
    if (c.flash_attention)
      mixer += 4.0 * heads / t;
    else
      mixer += (c.dropout ? 5.0 : 2.0) * heads * c.seq_local / t;
  }
  // Attention output = input of the output projection: every query head's value-sized output (with
  // GQA the heads share K/V, but each head writes its own output).
  const double out_dim = m.attention == AttentionKind::mla ? v_dim : 1.0 * heads * m.head_dim;
  mixer += g * out_dim / t;
  if (c.eager) mixer += 2.0 * out_dim / t;  // the attention kernel's own output, besides the projection's copy

  per_token += full_share * mixer;
  if (m.is_hybrid()) {
    // Gated DeltaNet layer (chunked delta rule, FLA's chunk_gated_delta_rule as Qwen3-Next/Qwen3.5
    // train it): the projected q, k, v before and after the causal conv, the output gate z, the decay
    // and beta per value head (fp32), the chunk's WY matrix A (64 fp32 per value head and token;
    // recomputed under selective recompute), the core output (gated-norm input) and the out_proj input.
    const LinearAttentionDims& d = m.linear;
    const double key_dim = 1.0 * d.key_heads * d.key_head_dim, value_dim = 1.0 * d.value_heads * d.value_head_dim;
    double lin = 2.0 * 2.0 * (2.0 * key_dim + value_dim) + 2.0 * value_dim + 8.0 * d.value_heads;
    if (mode != Recompute::selective) lin += 4.0 * 64.0 * d.value_heads;
    lin += 2.0 * value_dim + g * value_dim;
    per_token += (1.0 - full_share) * lin / t;
  }
  per_token += mask * h / seq_div;  // dropout mask after the output projection

  // --- MLP block ---
  if (!m.parallel_block) {
    per_token += norm_in * h / seq_div;  // input of the pre-MLP norm
    // normed input of the first MLP GEMM; a router (MoE layer) keeps its own BF16 copy
    if (!modules) per_token += (moe_layer && m.is_moe() ? 2.0 : g) * h / seq_div;
  }  // parallel blocks (GPT-J) feed the MLP the attention's normed input, counted above
  if (moe_layer && m.is_moe()) {
    const MoeDims& e = m.moe;
    per_token += 2.0 * 4.0 * e.num_experts / seq_div;  // router logits and probabilities, fp32
    // Routed tokens (balanced routing): each of the rank's tokens is copied to top_k experts. Per copy:
    // the permuted expert input 2h, the activation function terms (split by etp), and the expert
    // output 2h kept for the probability-weighted combine.
    // moe_act recompute drops the activation output (the down projection's input, g per element).
    double act = act_fn_bytes(m, e.expert_ffn_hidden, modules ? 0.0 : g, c.eager);
    // FP8 activation-function inputs: 1 byte, not 2, per element.
    if (c.moe_act_input_fp8) act -= (m.gated_mlp ? 2.0 : 1.0) * e.expert_ffn_hidden;
    const double per_copy = g * h + act / std::max(1, c.etp) + (c.keep_expert_outputs ? 2.0 * h : 0.0);
    per_token += e.top_k * per_copy / seq_div;
    if (e.shared_experts > 0) {
      const double fs = 1.0 * e.shared_experts * (e.shared_ffn_hidden > 0 ? e.shared_ffn_hidden : e.expert_ffn_hidden);
      per_token += act_fn_bytes(m, fs, g, c.eager) / t;  // shared experts are TP-split like a dense MLP
    }
  } else {
    per_token += act_fn_bytes(m, m.ffn_hidden, g, c.eager) / t;
  }
  per_token += mask * h / seq_div;  // dropout mask after the MLP
  return tokens * per_token;
}

}  // namespace gpuplan
