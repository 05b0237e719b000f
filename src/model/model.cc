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
//  - Gemma 2/3 (HF Gemma2DecoderLayer / Gemma3DecoderLayer): four RMSNorms per layer (input,
//    post_attention, pre_feedforward, post_feedforward); Gemma 3 adds per-head q_norm and k_norm
//    (head_dim each). Their logit soft-caps are elementwise tanh: no parameters, FLOPs not counted.
//  - FLOPs: 2 per multiply-add of every weight matmul (Kaplan et al. 2020, table 1), attention
//    2*2*ctx*heads*head_dim per layer (QK^T and PV).
//  - Gated DeltaNet (Qwen3-Next, Qwen3.5; HF Qwen3NextGatedDeltaNet / Qwen3_5MoeGatedDeltaNet):
//    in_proj_qkvz (hidden -> 2 key_dim + 2 value_dim), in_proj_ba (hidden -> 2 value_heads), depthwise
//    conv1d over q,k,v (conv_kernel taps), dt_bias and A_log (value_heads each), a gated RMSNorm of
//    value_head_dim, out_proj (value_dim -> hidden). Gated attention: q_proj emits query and gate
//    (2 heads*head_dim). Recurrent state per value head: key_head_dim x value_head_dim (Yang et al.
//    2024, "Gated Delta Networks", arXiv:2412.06464, eq. 10).
//  - DeepSeek Sparse Attention (DeepSeek-V3.2-Exp report; HF/vLLM Indexer): wq_b (q_lora_rank ->
//    index_heads*index_head_dim), wk (hidden -> index_head_dim) with a LayerNorm, weights_proj
//    (hidden -> index_heads); the indexer scores all past tokens, the MLA core attends index_topk.
#include "model/model.h"

#include <algorithm>
#include <cmath>

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

// Weight-matmul parameters of one linear-attention (Gated DeltaNet) layer's token mixer.
double linear_attention_matmul(const ModelArch& m) {
  const LinearAttentionDims& d = m.linear;
  const double h = m.hidden;
  const double key_dim = 1.0 * d.key_heads * d.key_head_dim, value_dim = 1.0 * d.value_heads * d.value_head_dim;
  return h * (2.0 * key_dim + 2.0 * value_dim) + h * 2.0 * d.value_heads + value_dim * h;  // qkvz, ba, out
}

// The DSA indexer's weight matmuls (0 without sparse attention).
double indexer_matmul(const ModelArch& m) {
  if (!m.is_sparse()) return 0;
  const SparseAttentionDims& d = m.sparse;
  const double q_in = m.attention == AttentionKind::mla && m.mla.q_lora_rank > 0 ? m.mla.q_lora_rank : m.hidden;
  return q_in * d.index_heads * d.index_head_dim + 1.0 * m.hidden * d.index_head_dim + 1.0 * m.hidden * d.index_heads;
}

// Weight-matmul parameters of one full-attention layer's token mixer.
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
    return p + indexer_matmul(m);
  }
  const int kv = m.attention == AttentionKind::mha ? m.heads : m.kv_heads;
  const double q = 1.0 * m.heads * m.head_dim, k = 1.0 * kv * m.head_dim;
  const double q_out = m.attention_output_gate ? 2.0 * q : q;  // query and its output gate
  return h * q_out + 2.0 * h * k + q * h + indexer_matmul(m);  // q, k, v, o
}

// Mean token-mixer matmul parameters per layer over full- and linear-attention layers.
double mean_attention_matmul(const ModelArch& m) {
  if (!m.is_hybrid()) return attention_matmul(m);
  return (m.full_attention_layers() * attention_matmul(m) + m.linear.layers * linear_attention_matmul(m)) / m.layers;
}

double shared_ffn(const ModelArch& m) {
  return m.moe.shared_ffn_hidden > 0 ? m.moe.shared_ffn_hidden : m.moe.expert_ffn_hidden;
}

// Average attended context per query: causal rows attend 1..seq keys, capped by the window.
double mean_context(int seq, int window, bool causal, bool chunked = false) {
  const double s = seq;
  if (chunked && window > 0) return causal ? chunked_prompt_keys(s, window) : std::min<double>(s, window);
  if (!causal) return window > 0 ? std::min<double>(s, window) : s;
  return windowed_prompt_keys(s, window);
}

}  // namespace

int ModelArch::moe_layers() const {
  if (moe.num_experts <= 0) return 0;
  const int rest = layers - moe.first_dense_layers;
  if (rest <= 0) return 0;
  const long long freq = std::max(1, moe.layer_freq);
  return static_cast<int>((rest + freq - 1) / freq);  // every freq-th layer after the leading dense ones
}

double attention_layer_params(const ModelArch& m, bool linear_layer) {
  const double h = m.hidden;
  // The layer's norms (pre-attention and pre-MLP; one shared norm for parallel blocks), and with
  // post_norms the two more on the attention and MLP outputs (Gemma 2/3).
  const double norms = ((m.parallel_block ? 1 : 2) + (m.post_norms ? 2 : 0)) * norm_params(m);
  if (linear_layer) {
    const LinearAttentionDims& d = m.linear;
    const double conv_dim = 2.0 * d.key_heads * d.key_head_dim + 1.0 * d.value_heads * d.value_head_dim;
    // conv1d taps, dt_bias and A_log per value head, the gated RMSNorm's weight.
    return linear_attention_matmul(m) + conv_dim * d.conv_kernel + 2.0 * d.value_heads + d.value_head_dim + norms;
  }
  double p = attention_matmul(m);
  if (m.attention == AttentionKind::mla) {
    p += m.mla.kv_lora_rank;                   // kv_a_layernorm
    if (m.mla.q_lora_rank > 0) p += m.mla.q_lora_rank;  // q_a_layernorm
  } else if (m.attention_bias) {
    const int kv = m.attention == AttentionKind::mha ? m.heads : m.kv_heads;
    p += 1.0 * m.heads * m.head_dim + 2.0 * kv * m.head_dim + h;  // q, k, v, o biases
  }
  if (m.is_sparse()) p += 2.0 * m.sparse.index_head_dim;  // the indexer's key LayerNorm
  if (m.qk_norm) p += 2.0 * m.head_dim;
  if (m.attention_sinks) p += m.heads;
  return p + norms;
}

LayerParams layer_params(const ModelArch& m, bool moe_layer) {
  LayerParams lp;
  const double h = m.hidden;
  lp.attention = m.is_hybrid() ? (m.full_attention_layers() * attention_layer_params(m, false) +
                                  m.linear.layers * attention_layer_params(m, true)) /
                                     m.layers
                               : attention_layer_params(m, false);

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
  const double attn = mean_attention_matmul(m);
  double weights = (m.layers - moe) * (attn + mlp_matmul(m, m.ffn_hidden));
  if (moe > 0) {
    const double routed = m.moe.top_k * mlp_matmul(m, m.moe.expert_ffn_hidden);
    const double shared = m.moe.shared_experts * mlp_matmul(m, shared_ffn(m));
    weights += moe * (attn + 1.0 * m.hidden * m.moe.num_experts + routed + shared);
  }
  weights += 1.0 * m.vocab * m.hidden;  // output head (logits); the embedding lookup is not a matmul
  f.dense_matmul = 2 * weights;

  // Full-attention layers: QK^T and PV over the attended context (a sliding window or the sparse
  // top-k caps it), plus the DSA indexer over the whole context; linear layers: a fixed cost per token.
  const double per_ctx = attention_flops_per_context_token(m);
  const int full = m.full_attention_layers();
  const int windowed = std::min(m.window_layers(), full);
  const double all_ctx = mean_context(seq, 0, causal);
  const double dense_ctx = m.is_sparse() ? mean_context(seq, m.sparse.index_topk, causal) : all_ctx;
  const double window_ctx = mean_context(seq, m.sliding_window, causal, m.chunked_window);
  f.attention = per_ctx * ((full - windowed) * dense_ctx + windowed * window_ctx) +
                full * indexer_flops_per_context_token(m) * all_ctx +
                m.linear.layers * linear_attention_flops_per_token(m);
  return f;
}

double windowed_prompt_keys(double seq, int window) {
  if (!(seq > 0)) return 0;
  if (window <= 0 || seq <= window) return (seq + 1) / 2;
  const double w = window;
  return (w * (w + 1) / 2 + (seq - w) * w) / seq;
}

double windowed_decode_keys(double lo, double hi, int window) {
  lo = std::max(0.0, lo);
  const double w = window;
  if (!(hi > lo)) return window > 0 ? std::min(lo, w) : lo;
  if (window <= 0 || hi <= w) return (lo + hi) / 2;
  if (lo >= w) return w;
  return ((w * w - lo * lo) / 2 + (hi - w) * w) / (hi - lo);  // the mean of min(p, w) over [lo, hi]
}

double chunked_prompt_keys(double seq, int chunk) {
  if (!(seq > 0)) return 0;
  if (chunk <= 0 || seq <= chunk) return (seq + 1) / 2;
  // Whole chunks each sum 1 + ... + chunk keys; the last, partial one 1 + ... + r.
  const double c = chunk, whole = std::floor(seq / c), r = seq - whole * c;
  return (whole * c * (c + 1) / 2 + r * (r + 1) / 2) / seq;
}

double chunked_decode_keys(double lo, double hi, int chunk) {
  lo = std::max(0.0, lo);
  if (chunk <= 0) return hi > lo ? (lo + hi) / 2 : lo;
  const double c = chunk;
  // The integral of (t mod chunk) from 0 to x: chunk^2 / 2 a whole chunk, r^2 / 2 the rest.
  auto integral = [c](double x) {
    const double whole = std::floor(x / c), r = x - whole * c;
    return whole * c * c / 2 + r * r / 2;
  };
  if (!(hi > lo)) return lo - std::floor(lo / c) * c;
  return (integral(hi) - integral(lo)) / (hi - lo);
}

double attention_flops_per_context_token(const ModelArch& m) {
  // Per layer: QK^T (qk head dim) and PV (v head dim), 2 FLOPs per multiply-add each.
  double qk_dim = m.head_dim, v_dim = m.head_dim;
  if (m.attention == AttentionKind::mla) {
    qk_dim = m.mla.qk_nope_head_dim + m.mla.qk_rope_head_dim;
    v_dim = m.mla.v_head_dim;
  }
  return 2.0 * m.heads * (qk_dim + v_dim);
}

double indexer_flops_per_context_token(const ModelArch& m) {
  // Every index head scores every past key (q . k, index_head_dim multiply-adds); the per-head
  // weights sum is one more multiply-add per head.
  return m.is_sparse() ? 2.0 * m.sparse.index_heads * (m.sparse.index_head_dim + 1.0) : 0.0;
}

double linear_attention_flops_per_token(const ModelArch& m) {
  if (!m.is_hybrid()) return 0;
  const LinearAttentionDims& d = m.linear;
  // Delta rule per value head on its key_head_dim x value_head_dim state: S^T k, the rank-1 update
  // and the read-out S^T q, three multiply-adds per state element (the decay's multiply folded in),
  // in the recurrent form decode runs; plus the depthwise causal conv over q, k and v.
  const double state = 1.0 * d.value_heads * d.key_head_dim * d.value_head_dim;
  const double conv_dim = 2.0 * d.key_heads * d.key_head_dim + 1.0 * d.value_heads * d.value_head_dim;
  return 2.0 * 3.0 * state + 2.0 * conv_dim * d.conv_kernel;
}

double kv_cache_bytes_per_token(const ModelArch& m, double bytes_per_element) {
  const double full = m.full_attention_layers();
  if (m.attention == AttentionKind::mla)  // the compressed latent plus the shared rope key
    return full * (m.mla.kv_lora_rank + m.mla.qk_rope_head_dim) * bytes_per_element + indexer_key_bytes_per_token(m);
  const int kv = m.attention == AttentionKind::mha ? m.heads : m.kv_heads;
  return 2.0 * full * kv * m.head_dim * bytes_per_element + indexer_key_bytes_per_token(m);
}

double indexer_key_bytes_per_token(const ModelArch& m) {
  if (!m.is_sparse()) return 0;
  const double d = m.sparse.index_head_dim;
  return 1.0 * m.full_attention_layers() * (d + 4.0 * std::ceil(d / 128.0));
}

double recurrent_state_bytes_per_sequence(const ModelArch& m, double conv_bytes_per_element) {
  if (!m.is_hybrid()) return 0;
  const LinearAttentionDims& d = m.linear;
  const double state = 1.0 * d.value_heads * d.key_head_dim * d.value_head_dim * d.state_bytes_per_element;
  const double conv_dim = 2.0 * d.key_heads * d.key_head_dim + 1.0 * d.value_heads * d.value_head_dim;
  const double conv = conv_dim * std::max(0, d.conv_kernel - 1) * conv_bytes_per_element;
  return 1.0 * d.layers * (state + conv);
}

}  // namespace gpuplan
