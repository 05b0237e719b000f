#pragma once
// A transformer's exact architecture (dense or MoE; MHA, GQA or MLA attention) and the counts every
// evaluator derives from it: parameters, FLOPs per token, KV-cache bytes per token.
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace gpuplan {

enum class AttentionKind { mha, gqa, mla };

// Multi-head latent attention (DeepSeek-V2/V3) dimensions.
struct MlaDims {
  int q_lora_rank = 0;   // 0: queries projected directly (no low-rank)
  int kv_lora_rank = 512;
  int qk_nope_head_dim = 128;
  int qk_rope_head_dim = 64;
  int v_head_dim = 128;
};

struct MoeDims {
  int num_experts = 0;          // routed experts per MoE layer; 0 for a dense model
  int top_k = 0;                // routed experts per token
  int expert_ffn_hidden = 0;    // intermediate size of one routed expert
  int shared_experts = 0;       // always-active experts (DeepSeek, Qwen2-MoE)
  int shared_ffn_hidden = 0;    // intermediate size of one shared expert (0: expert_ffn_hidden)
  int first_dense_layers = 0;   // leading layers with a dense MLP (DeepSeek-V3: 3)
  int layer_freq = 1;           // every n-th layer is MoE (after first_dense_layers)
};

// Bounds on the dimensions read from any input (config.json, model YAML, dataset columns): far beyond
// any model, small enough that products of a few of them stay within 64-bit integers.
namespace model_limits {
inline constexpr int kMaxWidth = 1 << 24;     // hidden, FFN, head dims, ranks, vocabulary
inline constexpr int kMaxExperts = 1 << 20;   // routed experts, top-k
inline constexpr int kMaxLayers = 100000;     // layers, heads, KV heads
}  // namespace model_limits

struct ModelArch {
  std::string name;           // catalog key, e.g. "llama3.1-70b"
  std::string display_name;   // "Llama 3.1 70B"
  std::vector<std::string> aliases;
  std::string family;         // llama, gpt, mixtral, deepseek, qwen, gpt-oss, nemotron, grok, ...
  int layers = 0;
  int hidden = 0;
  int ffn_hidden = 0;         // dense MLP intermediate size (also the dense layers of an MoE model)
  int heads = 0;
  int kv_heads = 0;           // == heads for MHA; < heads for GQA; ignored for MLA
  int head_dim = 0;           // usually hidden / heads
  int vocab = 0;
  bool gated_mlp = true;      // SwiGLU/GeGLU: three matrices; false: GPT-style two
  bool tied_embeddings = false;
  bool attention_bias = false;
  int sliding_window = 0;     // tokens; 0: full attention in every layer
  int sliding_window_layers = 0;  // how many layers use the window (gpt-oss alternates: layers/2)
  // Small extras, counted when present (added after the lead's header; defaults keep old meaning):
  bool mlp_bias = false;         // biases on MLP / expert / router linears (GPT-3, GPT-J, gpt-oss)
  bool norm_bias = false;        // LayerNorm with bias (2*hidden per norm) instead of RMSNorm (hidden)
  bool parallel_block = false;   // attention and MLP read one shared norm (GPT-J): 1 norm per layer
  bool qk_norm = false;          // per-head RMSNorm on q and k (Qwen3): 2*head_dim per layer
  bool attention_sinks = false;  // one learned sink logit per head and layer (gpt-oss)
  bool learned_position_embeddings = false;  // GPT-2/3 style: max_seq_len x hidden table
  AttentionKind attention = AttentionKind::gqa;
  MlaDims mla;
  MoeDims moe;
  int max_seq_len = 0;

  std::optional<double> published_total_params;   // as the model card states
  std::optional<double> published_active_params;
  // The published active count leaves out the input-embedding table (gpt-oss model card).
  bool published_active_excludes_embedding = false;
  std::map<std::string, std::string> sources;
  std::string origin;  // "built-in" or the config file path

  bool is_moe() const { return moe.num_experts > 0; }
  int moe_layers() const;      // layers with routed experts
  int dense_layers() const { return layers - moe_layers(); }
};

// Parameter counts (embeddings included; untied output head counted once more).
double total_params(const ModelArch& m);
// Parameters a token touches: shared weights plus top_k routed experts per MoE layer.
double active_params(const ModelArch& m);
// Parameters per transformer layer split by kind (for memory and sharding).
struct LayerParams {
  double attention = 0;      // QKV/O projections (or MLA down/up projections), with norms
  double mlp_dense = 0;      // dense MLP (0 in an MoE layer)
  double moe_router = 0;
  double moe_expert = 0;     // ONE routed expert
  double moe_shared = 0;     // all shared experts together
};
LayerParams layer_params(const ModelArch& m, bool moe_layer);
double embedding_params(const ModelArch& m);  // input embedding + output head (if untied) + learned positions

// Forward FLOPs per token at sequence length `seq`. Matmul FLOPs count 2 per multiply-add.
struct TokenFlops {
  double dense_matmul = 0;   // every weight matmul the token passes through, incl. output head
  double attention = 0;      // QK^T and PV over the context (causal: average over positions)
  double total() const { return dense_matmul + attention; }
};
// causal=true counts the average context (seq+1)/2, as training/prefill with a causal mask does.
TokenFlops forward_flops_per_token(const ModelArch& m, int seq, bool causal = true);

// KV-cache bytes one token occupies across all layers at `bytes_per_element` (bf16: 2).
// MHA/GQA: 2 * layers * kv_heads * head_dim; MLA: layers * (kv_lora_rank + qk_rope_head_dim).
double kv_cache_bytes_per_token(const ModelArch& m, double bytes_per_element);

}  // namespace gpuplan
