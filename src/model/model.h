#pragma once
// A transformer's exact architecture (dense or MoE; MHA, GQA or MLA attention; hybrid layouts with
// linear-attention layers; sparse top-k attention) and the counts every evaluator derives from it:
// parameters, FLOPs per token, KV-cache bytes per token, recurrent-state bytes per sequence.
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

// Linear-attention layers of a hybrid model (Gated DeltaNet: Qwen3-Next, Qwen3.5). Such a layer keeps
// a fixed recurrent state per sequence (value_heads x key_head_dim x value_head_dim, plus a short
// causal-convolution window) instead of a KV cache, and costs the same per token at any context.
struct LinearAttentionDims {
  int layers = 0;           // layers whose token mixer is linear attention; the rest are full attention
  int key_heads = 0;        // linear_num_key_heads
  int value_heads = 0;      // linear_num_value_heads
  int key_head_dim = 0;     // linear_key_head_dim
  int value_head_dim = 0;   // linear_value_head_dim
  int conv_kernel = 0;      // linear_conv_kernel_dim: depthwise causal conv over q, k, v
  double state_bytes_per_element = 4;  // the recurrent state's format (fp32: SGLang's mamba_ssm_dtype default)
};

// DeepSeek Sparse Attention (DeepSeek-V3.2, GLM-5): a lightweight indexer (index_heads x
// index_head_dim, FP8 keys) scores every past token and each query attends only its index_topk best.
struct SparseAttentionDims {
  int index_topk = 0;       // 0: dense attention
  int index_heads = 0;      // index_n_heads
  int index_head_dim = 0;   // index_head_dim
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
  // The window's shape: false, sliding (a token attends the last sliding_window keys); true, aligned
  // chunks (a token attends the keys of its own chunk of sliding_window tokens: Llama 4's
  // attention_chunk_size, so at position p it attends p mod chunk + 1 of them).
  bool chunked_window = false;
  // Small extras, counted when present (added after the lead's header; defaults keep old meaning):
  bool mlp_bias = false;         // biases on MLP / expert / router linears (GPT-3, GPT-J, gpt-oss)
  bool norm_bias = false;        // LayerNorm with bias (2*hidden per norm) instead of RMSNorm (hidden)
  bool parallel_block = false;   // attention and MLP read one shared norm (GPT-J): 1 norm per layer
  bool qk_norm = false;          // per-head RMSNorm on q and k (Qwen3): 2*head_dim per layer
  bool post_norms = false;       // Gemma 2/3: RMSNorm after attention and after the MLP too (4 per layer)
  bool attention_sinks = false;  // one learned sink logit per head and layer (gpt-oss)
  bool learned_position_embeddings = false;  // GPT-2/3 style: max_seq_len x hidden table
  AttentionKind attention = AttentionKind::gqa;
  MlaDims mla;
  MoeDims moe;
  bool attention_output_gate = false;  // gated attention (Qwen3-Next, Qwen3.5): q_proj also yields a sigmoid gate
  LinearAttentionDims linear;          // hybrid models: the linear-attention layers
  SparseAttentionDims sparse;          // sparse top-k attention in every full-attention layer
  int max_seq_len = 0;
  // The scaling block of the published FP8 checkpoint's weights: DeepSeek-V3/R1 and Kimi K2 ship FP8
  // weights with one scale per 128 x 128 block (config.json quantization_config.weight_block_size),
  // their activations quantized in 1 x 128 groups at run time, so FP8 GEMMs run block-scaled kernels
  // (DeepGEMM, CUTLASS / trtllm-gen block-scale, AITER); 0: per-tensor scales (ModelOpt / TensorRT-LLM
  // FP8 of a BF16 checkpoint). Serving's FP8 GEMM rate depends on it (Efficiency::infer_fp8_block_share).
  int fp8_weight_block = 0;

  std::optional<double> published_total_params;   // as the model card states
  std::optional<double> published_active_params;
  // The published active count leaves out the input-embedding table (gpt-oss model card).
  bool published_active_excludes_embedding = false;
  std::map<std::string, std::string> sources;
  std::string origin;  // "built-in" or the config file path
  // What a Hugging Face config import could not map, each named by its key: unknown keys (not read),
  // parts not modelled (a vision encoder), values assumed where the config leaves them out. Empty for
  // the built-in models.
  struct ImportNote {
    std::string field;  // the config key, e.g. "vision_config" or "text_config.foo"
    std::string note;   // what was done with it
  };
  std::vector<ImportNote> unmapped;

  bool is_moe() const { return moe.num_experts > 0; }
  int moe_layers() const;      // layers with routed experts
  int dense_layers() const { return layers - moe_layers(); }
  int full_attention_layers() const { return layers - linear.layers; }  // layers with a KV cache
  // Layers that attend within the sliding or chunked window: sliding_window_layers, every layer where
  // it is 0 (Mistral 7B v0.1), none without a window.
  int window_layers() const {
    if (sliding_window <= 0) return 0;
    return sliding_window_layers > 0 && sliding_window_layers < layers ? sliding_window_layers : layers;
  }
  bool is_hybrid() const { return linear.layers > 0; }
  bool is_sparse() const { return sparse.index_topk > 0; }
};

// Parameter counts (embeddings included; untied output head counted once more).
double total_params(const ModelArch& m);
// Parameters a token touches: shared weights plus top_k routed experts per MoE layer.
double active_params(const ModelArch& m);
// Parameters per transformer layer split by kind (for memory and sharding).
// `attention` is the mean over the model's layers: a hybrid model's full- and linear-attention layers
// differ (attention_layer_params gives each), and every consumer multiplies by a layer count.
struct LayerParams {
  double attention = 0;      // QKV/O projections (or MLA down/up projections, DSA indexer), with norms
  double mlp_dense = 0;      // dense MLP (0 in an MoE layer)
  double moe_router = 0;
  double moe_expert = 0;     // ONE routed expert
  double moe_shared = 0;     // all shared experts together
};
LayerParams layer_params(const ModelArch& m, bool moe_layer);
double embedding_params(const ModelArch& m);
// Token-mixer parameters (with the layer's norms: two, one for parallel blocks, four with post_norms) of one
// full-attention or one linear-attention layer.
double attention_layer_params(const ModelArch& m, bool linear_layer);  // input embedding + output head (if untied) + learned positions

// Forward FLOPs per token at sequence length `seq`. Matmul FLOPs count 2 per multiply-add.
struct TokenFlops {
  double dense_matmul = 0;   // every weight matmul the token passes through, incl. output head
  double attention = 0;      // QK^T and PV over the context (causal: average over positions)
  double total() const { return dense_matmul + attention; }
};
// causal=true counts the average context (seq+1)/2, as training/prefill with a causal mask does.
TokenFlops forward_flops_per_token(const ModelArch& m, int seq, bool causal = true);

// Keys a query attends in a layer whose window is `window` tokens (a sliding window; DSA's top-k):
// min(p + 1, window) at position p, averaged over the queries of one causal prompt `seq` tokens long, and
// min(p, window) averaged over decode contexts spread evenly over [lo, hi].
double windowed_prompt_keys(double seq, int window);
double windowed_decode_keys(double lo, double hi, int window);
// Keys a query attends in a layer of aligned chunks `chunk` tokens long (ModelArch::chunked_window;
// query p attends p mod chunk + 1 of them), averaged over the queries of one causal prompt `seq`
// tokens long ((seq + 1) / 2 up to one chunk, about chunk / 2 far beyond it).
double chunked_prompt_keys(double seq, int chunk);
// The same for decode queries at positions spread evenly over [lo, hi] (a running batch's contexts;
// p mod chunk each): lo alone where hi <= lo; the context itself within the first chunk.
double chunked_decode_keys(double lo, double hi, int chunk);

// The pieces of attention FLOPs per token, per layer of its kind (2 FLOPs per multiply-add):
// a full-attention layer's QK^T + PV per attended context token (sparse layers attend at most
// index_topk of them), its DSA indexer's scoring per context token (every past token, never capped),
// and a linear-attention layer's recurrent update per token (no context term).
double attention_flops_per_context_token(const ModelArch& m);
double indexer_flops_per_context_token(const ModelArch& m);
double linear_attention_flops_per_token(const ModelArch& m);

// KV-cache bytes one token occupies across all full-attention layers at `bytes_per_element` (bf16: 2).
// MHA/GQA: 2 * layers * kv_heads * head_dim; MLA: layers * (kv_lora_rank + qk_rope_head_dim); DSA adds
// the indexer's FP8 key per layer (indexer_key_bytes_per_token). Linear-attention layers keep none.
double kv_cache_bytes_per_token(const ModelArch& m, double bytes_per_element);
// The DSA indexer's keys, all full-attention layers: index_head_dim FP8 bytes plus one fp32 scale per
// 128 (DeepSeek-V3.2 reference inference; vLLM/SGLang index-key cache). 0 without sparse attention.
double indexer_key_bytes_per_token(const ModelArch& m);
// Fixed bytes of recurrent state one sequence holds across all linear-attention layers: the delta-rule
// state (value_heads x key_head_dim x value_head_dim at linear.state_bytes_per_element) and the
// causal-convolution window ((conv_kernel - 1) x (2 key_heads x key_head_dim + value_heads x
// value_head_dim) at `conv_bytes_per_element`). Independent of the context length.
double recurrent_state_bytes_per_sequence(const ModelArch& m, double conv_bytes_per_element = 2.0);

}  // namespace gpuplan
