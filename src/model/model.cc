// Parameter, FLOP and KV-cache counts of a transformer, from its exact architecture.
//
// Sources for the counting rules:
//  - GQA/MHA layer: Hugging Face transformers LlamaAttention / LlamaMLP (q,k,v,o and gate/up/down).
//  - MLA: DeepSeek-V3 technical report (arXiv:2412.19437) sec. 2.1 and HF DeepseekV3Attention
//    (q_a_proj, q_a_layernorm, q_b_proj, kv_a_proj_with_mqa, kv_a_layernorm, kv_b_proj, o_proj).
//  - MoE: router hidden x experts, routed and shared experts as gated MLPs (Mixtral arXiv:2401.04088,
//    DeepSeekMoE, Llama 4 Llama4TextMoe, Qwen3MoeSparseMoeBlock).
//  - GPT-style: 12*h^2 + 13*h per layer (Narayanan et al. 2021, eq. 2 without the logits term).
//  - gpt-oss: biases on q,k,v,o, on experts and router, one sink logit per head (gpt-oss model card).
//  - FLOPs: 2 per multiply-add of every weight matmul (Kaplan et al. 2020, table 1), attention
//    2*2*ctx*heads*head_dim per layer (QK^T and PV).
#include "model/model.h"

#include <algorithm>

namespace gpuplan {

namespace {

double norm_params(const ModelArch& m) { return m.norm_bias ? 2.0 * m.hidden : 1.0 * m.hidden; }

// One gated (3 matrices) or plain (2 matrices) MLP of intermediate size f.
double mlp_params(const ModelArch& m, double f) {
  const double h = m.hidden;
  double p = (m.gated_mlp ? 3.0 : 2.0) * h * f;
  if (m.mlp_bias) p += (m.gated_mlp ? 2.0 : 1.0) * f + h;
  return p;
}

// Weight-matmul parameters only (no biases or norms), for FLOPs.
double mlp_matmul(const ModelArch& m, double f) { return (m.gated_mlp ? 3.0 : 2.0) * m.hidden * f; }

double attention_matmul(const ModelArch& m) {
  const double h = m.hidden;
  if (m.attention == AttentionKind::mla) {
    const MlaDims& d = m.mla;
    const double qk = d.qk_nope_head_dim + d.qk_rope_head_dim;
    double p = 0;
    if (d.q_lora_rank > 0)
      p += h * d.q_lora_rank + 1.0 * d.q_lora_rank * m.heads * qk;  // q_a, q_b
    else
      p += h * m.heads * qk;                                          // direct q_proj
    p += h * (d.kv_lora_rank + d.qk_rope_head_dim);                  // kv_a_proj_with_mqa
    p += 1.0 * d.kv_lora_rank * m.heads * (d.qk_nope_head_dim + d.v_head_dim);  // kv_b_proj
    p += 1.0 * m.heads * d.v_head_dim * h;                           // o_proj
    return p;
  }
  const int kv = m.attention == AttentionKind::mha ? m.heads : m.kv_heads;
  const double q = 1.0 * m.heads * m.head_dim, k = 1.0 * kv * m.head_dim;
  return h * q + 2.0 * h * k + q * h;  // q, k, v, o
}

double shared_ffn(const ModelArch& m) {
  return m.moe.shared_ffn_hidden > 0 ? m.moe.shared_ffn_hidden : m.moe.expert_ffn_hidden;
}

// Average attended context per query: causal rows attend 1..seq keys, capped by the window.
double mean_context(int seq, int window, bool causal) {
  const double s = seq;
  if (!causal) return window > 0 ? std::min<double>(s, window) : s;
  if (window <= 0 || seq <= window) return (s + 1) / 2;
  const double w = window;
  return (w * (w + 1) / 2 + (s - w) * w) / s;
}

}  // namespace

int ModelArch::moe_layers() const {
  if (moe.num_experts <= 0) return 0;
  const int rest = layers - moe.first_dense_layers;
  if (rest <= 0) return 0;
  const int freq = std::max(1, moe.layer_freq);
  return (rest + freq - 1) / freq;  // every freq-th layer after the leading dense ones
}

LayerParams layer_params(const ModelArch& m, bool moe_layer) {
  LayerParams lp;
  const double h = m.hidden;
  lp.attention = attention_matmul(m);
  if (m.attention == AttentionKind::mla) {
    lp.attention += m.mla.kv_lora_rank;                   // kv_a_layernorm
    if (m.mla.q_lora_rank > 0) lp.attention += m.mla.q_lora_rank;  // q_a_layernorm
  } else if (m.attention_bias) {
    const int kv = m.attention == AttentionKind::mha ? m.heads : m.kv_heads;
    lp.attention += 1.0 * m.heads * m.head_dim + 2.0 * kv * m.head_dim + h;  // q, k, v, o biases
  }
  if (m.qk_norm) lp.attention += 2.0 * m.head_dim;
  if (m.attention_sinks) lp.attention += m.heads;
  // The layer's norms (pre-attention and pre-MLP; one shared norm for parallel blocks).
  lp.attention += (m.parallel_block ? 1 : 2) * norm_params(m);

  if (moe_layer && m.is_moe()) {
    lp.moe_router = h * m.moe.num_experts + (m.mlp_bias ? m.moe.num_experts : 0);
    lp.moe_expert = mlp_params(m, m.moe.expert_ffn_hidden);
    lp.moe_shared = m.moe.shared_experts * mlp_params(m, shared_ffn(m));
  } else {
    lp.mlp_dense = mlp_params(m, m.ffn_hidden);
  }
  return lp;
}

double embedding_params(const ModelArch& m) {
  const double table = 1.0 * m.vocab * m.hidden;
  const double positions = m.learned_position_embeddings ? 1.0 * m.max_seq_len * m.hidden : 0.0;
  return (m.tied_embeddings ? table : 2 * table) + positions;
}

namespace {

// Sum over layers; `experts_per_layer` routed experts counted in each MoE layer.
double layer_sum(const ModelArch& m, double experts_per_layer) {
  const int moe = m.moe_layers();
  const LayerParams dense = layer_params(m, false);
  double total = (m.layers - moe) * (dense.attention + dense.mlp_dense);
  if (moe > 0) {
    const LayerParams lp = layer_params(m, true);
    total += moe * (lp.attention + lp.moe_router + lp.moe_shared + experts_per_layer * lp.moe_expert);
  }
  return total;
}

}  // namespace

double total_params(const ModelArch& m) {
  return embedding_params(m) + norm_params(m) /* final norm */ + layer_sum(m, m.moe.num_experts);
}

double active_params(const ModelArch& m) {
  return embedding_params(m) + norm_params(m) + layer_sum(m, m.moe.top_k);
}

TokenFlops forward_flops_per_token(const ModelArch& m, int seq, bool causal) {
  TokenFlops f;
  const int moe = m.moe_layers();
  const double attn = attention_matmul(m);
  double weights = (m.layers - moe) * (attn + mlp_matmul(m, m.ffn_hidden));
  if (moe > 0) {
    const double routed = m.moe.top_k * mlp_matmul(m, m.moe.expert_ffn_hidden);
    const double shared = m.moe.shared_experts * mlp_matmul(m, shared_ffn(m));
    weights += moe * (attn + 1.0 * m.hidden * m.moe.num_experts + routed + shared);
  }
  weights += 1.0 * m.vocab * m.hidden;  // output head (logits); the embedding lookup is not a matmul
  f.dense_matmul = 2 * weights;

  // Per layer: QK^T (qk head dim) and PV (v head dim), 2 FLOPs per multiply-add each.
  double qk_dim = m.head_dim, v_dim = m.head_dim;
  if (m.attention == AttentionKind::mla) {
    qk_dim = m.mla.qk_nope_head_dim + m.mla.qk_rope_head_dim;
    v_dim = m.mla.v_head_dim;
  }
  const double per_ctx = 2.0 * m.heads * (qk_dim + v_dim);
  // A window with sliding_window_layers == 0 applies to every layer (Mistral 7B v0.1).
  int windowed = 0;
  if (m.sliding_window > 0)
    windowed = m.sliding_window_layers > 0 ? std::min(m.sliding_window_layers, m.layers) : m.layers;
  f.attention = per_ctx * ((m.layers - windowed) * mean_context(seq, 0, causal) +
                           windowed * mean_context(seq, m.sliding_window, causal));
  return f;
}

double kv_cache_bytes_per_token(const ModelArch& m, double bytes_per_element) {
  if (m.attention == AttentionKind::mla)  // the compressed latent plus the shared rope key
    return 1.0 * m.layers * (m.mla.kv_lora_rank + m.mla.qk_rope_head_dim) * bytes_per_element;
  const int kv = m.attention == AttentionKind::mha ? m.heads : m.kv_heads;
  return 2.0 * m.layers * kv * m.head_dim * bytes_per_element;
}

}  // namespace gpuplan
