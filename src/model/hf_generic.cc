// The generic decoder reader: any decoder-only Hugging Face config.json that no dedicated reader in
// hf_import.cc handles (Gemma 2/3, Phi-3/4, Cohere Command R, Granite and their kin, and any
// Llama-style decoder). Key spellings and defaults follow the transformers configuration classes
// (Gemma2Config, Gemma3TextConfig, Phi3Config, CohereConfig, Cohere2Config, GraniteConfig,
// GraniteMoeConfig, GraniteMoeSharedConfig, PhimoeConfig, OlmoeConfig, Starcoder2Config, ...).
// Layer patterns: Gemma 2 alternates sliding (even layers) and global attention (Gemma2DecoderLayer);
// Gemma 3 makes every 6th layer global (sliding_window_pattern, Gemma 3 technical report sec. 2.1:
// "5 local layers for every global layer", window 1024); Cohere2 every 4th; `layer_types` overrides.
// Gemma 2 and 3 norm the attention and MLP outputs too (post_attention_layernorm, pre_feedforward_layernorm,
// post_feedforward_layernorm beside input_layernorm: Gemma2DecoderLayer, Gemma3DecoderLayer).
#include <algorithm>
#include <initializer_list>
#include <optional>
#include <set>

#include "model/hf_config.h"

namespace gpuplan::hf {

using model_limits::kMaxExperts;
using model_limits::kMaxLayers;
using model_limits::kMaxWidth;

namespace {

// Conventions of the model types the generic reader knows: defaults the configuration class supplies
// when config.json leaves a key out, and the block layout the modelling code fixes.
struct TypeTraits {
  const char* type;
  const char* family;
  bool tied_default = false;      // tie_word_embeddings when absent
  int vocab_default = 0;          // vocab_size when absent (0: required)
  int head_dim_default = 0;       // head_dim when absent (0: hidden / heads)
  int window_default = 0;         // sliding_window when absent
  int global_every = 0;           // every n-th layer is global (the rest sliding); 0: all windowed, -1: alternate
  bool gated = true;              // gate, up and down projections
  bool parallel_block = false;    // attention and MLP read one norm (Cohere)
  bool qk_norm = false;           // per-head q and k norms (Gemma 3, OLMo 2, OLMoE)
  bool post_norms = false;        // norms after attention and after the MLP too (Gemma 2, Gemma 3)
  bool norm_bias = false;         // LayerNorm with bias
  bool attention_bias = false;    // q, k, v (and o) biases by default
  bool mlp_bias = false;
  bool known_decoder = true;      // false: an unknown type read as a Llama-style decoder
};

const TypeTraits kTraits[] = {
    {.type = "gemma", .family = "gemma", .tied_default = true, .vocab_default = 256000, .head_dim_default = 256},
    {.type = "gemma2", .family = "gemma", .tied_default = true, .vocab_default = 256000, .head_dim_default = 256,
     .window_default = 4096, .global_every = -1, .post_norms = true},
    {.type = "gemma3_text", .family = "gemma", .tied_default = true, .vocab_default = 262208,
     .head_dim_default = 256, .window_default = 4096, .global_every = 6, .qk_norm = true, .post_norms = true},
    {.type = "gemma3", .family = "gemma", .tied_default = true, .vocab_default = 262208, .head_dim_default = 256,
     .window_default = 4096, .global_every = 6, .qk_norm = true, .post_norms = true},
    {.type = "phi3", .family = "phi"},
    {.type = "phimoe", .family = "phi"},
    {.type = "cohere", .family = "cohere", .tied_default = true, .parallel_block = true},
    {.type = "cohere2", .family = "cohere", .tied_default = true, .window_default = 4096, .global_every = 4,
     .parallel_block = true},
    {.type = "granite", .family = "granite"},
    {.type = "granitemoe", .family = "granite"},
    {.type = "granitemoeshared", .family = "granite"},
    {.type = "olmo", .family = "olmo"},
    {.type = "olmo2", .family = "olmo", .qk_norm = true},
    {.type = "olmoe", .family = "olmo", .qk_norm = true},
    {.type = "starcoder2", .family = "starcoder", .gated = false, .norm_bias = true, .attention_bias = true,
     .mlp_bias = true},
    {.type = "exaone", .family = "exaone"},
    {.type = "glm4", .family = "glm", .attention_bias = true},
    {.type = "helium", .family = "helium"},
    {.type = "smollm3", .family = "smollm"},
    {.type = "ernie4_5", .family = "ernie"},
    {.type = "seed_oss", .family = "seed"},
    {.type = "ministral", .family = "mistral"},
    {.type = "hunyuan_v1_dense", .family = "hunyuan"},
};

// Encoders and encoder-decoders: not what gpuplan models (a decoder's step and KV cache).
const std::set<std::string> kNotDecoders = {"bert", "roberta", "xlm-roberta", "deberta", "deberta-v2", "distilbert",
                                            "electra", "albert", "t5", "mt5", "umt5", "bart", "mbart", "pegasus",
                                            "whisper", "vit", "clip", "siglip", "siglip_vision_model", "wav2vec2",
                                            "encoder-decoder", "modernbert"};

const TypeTraits* traits_of(const std::string& type) {
  for (const TypeTraits& t : kTraits)
    if (type == t.type) return &t;
  return nullptr;
}

std::optional<std::string> first_key(const Config& c, std::initializer_list<const char*> keys) {
  for (const char* k : keys)
    if (c.has(k)) return std::string(k);
  return std::nullopt;
}

// A required dimension under any of its spellings; the error names the usual one.
int req_any(const Config& c, std::initializer_list<const char*> keys, int lo, int hi) {
  const auto k = first_key(c, keys);
  return c.req_in(k ? *k : *keys.begin(), lo, hi);
}

// A list-valued key where an integer is read (per-layer widths or head counts, as some configs give):
// the counts would change with it, so it is refused by name.
void refuse_per_layer_list(const json& body, std::initializer_list<const char*> keys, const std::string& origin) {
  for (const char* k : keys)
    if (body.contains(k) && body[k].is_array())
      throw InputError(k, std::string("a per-layer list is not modelled (every layer must have the same value); "
                                      "allowed: one integer, in ") + origin);
}

// Sliding-window layers from `layer_types` (sliding_attention / full_attention per layer), or -1 when
// the config has none.
int sliding_from_layer_types(const json& body, int layers, const std::string& origin) {
  if (!body.contains("layer_types") || body["layer_types"].is_null()) return -1;
  const json& types = body["layer_types"];
  if (!types.is_array() || types.size() != static_cast<size_t>(layers))
    throw InputError("layer_types", "must be a list of num_hidden_layers = " + std::to_string(layers) +
                                        " entries in " + origin);
  int sliding = 0;
  for (size_t i = 0; i < types.size(); ++i) {
    const std::string t = types[i].is_string() ? types[i].get<std::string>() : std::string("(not text)");
    if (t == "sliding_attention") ++sliding;
    else if (t != "full_attention")
      throw InputError("layer_types[" + std::to_string(i) + "]",
                       "layer type '" + t.substr(0, 40) + "' is not modelled by the generic reader; allowed: "
                       "sliding_attention, full_attention, in " + origin);
  }
  return sliding;
}

void read_window(const Config& c, const json& body, const TypeTraits& tr, ModelArch& m) {
  const std::string& origin = c.origin();
  const bool explicit_off = c.has("use_sliding_window") && !c.flag("use_sliding_window", true);
  int window = 0;
  if (!explicit_off) {
    if (c.has("sliding_window")) window = c.opt_in("sliding_window", 0, 0, 1 << 30);
    else if (c.has("sliding_window_size")) window = c.opt_in("sliding_window_size", 0, 0, 1 << 30);
    else if (!body.contains("sliding_window")) window = tr.window_default;  // null: no window
  }
  if (window <= 0) return;
  int sliding = sliding_from_layer_types(body, m.layers, origin);
  if (sliding < 0) {
    const int every = c.has("sliding_window_pattern") ? c.opt_in("sliding_window_pattern", 1, 1, m.layers)
                                                      : tr.global_every;
    if (c.has("max_window_layers") && c.has("use_sliding_window")) {
      // Qwen2-style: layers from max_window_layers on use the window.
      sliding = m.layers - c.opt_in("max_window_layers", 0, 0, m.layers);
    } else if (every == -1) {
      sliding = (m.layers + 1) / 2;  // Gemma 2: even layers slide, odd layers attend globally
    } else if (every > 0) {
      sliding = m.layers - m.layers / every;  // layer i is global when (i + 1) % every == 0
    } else {
      sliding = m.layers;  // Mistral / Phi-3: the window in every layer
    }
  }
  if (sliding == 0) return;
  m.sliding_window = window;
  m.sliding_window_layers = sliding;
}

}  // namespace

void read_attention_chunk(const Config& c, const json& body, ModelArch& m) {
  const int chunk = c.opt_in("attention_chunk_size", 0, 0, 1 << 30);
  if (chunk <= 0) return;
  if (m.sliding_window > 0)
    throw InputError("attention_chunk_size", "a sliding window and attention chunks together are not modelled, in " +
                                                 c.origin());
  int chunked = 0;
  if (body.contains("no_rope_layers") && body["no_rope_layers"].is_array() && !body["no_rope_layers"].empty()) {
    for (const auto& r : body["no_rope_layers"])
      if (r.is_number() && r.get<double>() != 0) ++chunked;  // 1: a RoPE layer, which attends within chunks
  } else {
    const int every = c.opt_in("no_rope_layer_interval", 4, 1, std::max(1, m.layers));
    chunked = m.layers - m.layers / every;  // layer i is NoPE (global) when (i + 1) % every == 0
  }
  if (chunked <= 0) return;
  m.sliding_window = chunk;
  m.sliding_window_layers = std::min(chunked, m.layers);
  m.chunked_window = true;
}

namespace {

void read_experts(const Config& c, const json& body, ModelArch& m) {
  const auto experts_key = first_key(c, {"num_local_experts", "n_routed_experts", "num_experts", "moe_num_experts"});
  if (!experts_key || c.opt(*experts_key, 0) == 0) return;
  refuse_per_layer_list(body, {"moe_layer_freq", "decoder_sparse_step", "moe_intermediate_size"}, c.origin());
  m.moe.num_experts = c.req_in(*experts_key, 1, kMaxExperts);
  m.moe.top_k = req_any(c, {"num_experts_per_tok", "experts_per_token", "moe_top_k", "num_selected_experts", "moe_k"},
                        1, kMaxExperts);
  // An expert's width: moe_intermediate_size where the config has a separate dense width (DeepSeek,
  // Qwen, OLMoE), otherwise intermediate_size is the expert's (Mixtral, PhiMoE, GraniteMoE).
  m.moe.expert_ffn_hidden = c.has("moe_intermediate_size") ? c.req_in("moe_intermediate_size", 1, kMaxWidth)
                                                           : m.ffn_hidden;
  if (c.has("shared_expert_intermediate_size") && c.opt("shared_expert_intermediate_size", 0) > 0) {
    m.moe.shared_experts = 1;  // Qwen2-MoE style: one shared expert of its own width
    m.moe.shared_ffn_hidden = c.req_in("shared_expert_intermediate_size", 1, kMaxWidth);
  } else if (c.has("shared_intermediate_size") && c.opt("shared_intermediate_size", 0) > 0) {
    m.moe.shared_experts = 1;  // GraniteMoeShared
    m.moe.shared_ffn_hidden = c.req_in("shared_intermediate_size", 1, kMaxWidth);
  } else if (const auto k = first_key(c, {"n_shared_experts", "num_shared_experts", "moe_num_shared_experts"})) {
    m.moe.shared_experts = c.opt_in(*k, 0, 0, 1000);  // DeepSeek style: n experts of the routed width
  }
  if (const auto k = first_key(c, {"first_k_dense_replace", "first_k_dense", "moe_layer_start_index"}))
    m.moe.first_dense_layers = c.opt_in(*k, 0, 0, m.layers);
  if (const auto k = first_key(c, {"decoder_sparse_step", "moe_layer_freq", "interleave_moe_layer_step", "moe_layer_interval"}))
    m.moe.layer_freq = std::max(1, c.opt_in(*k, 1, 0, m.layers));
  if (body.contains("mlp_only_layers") && body["mlp_only_layers"].is_array() && !body["mlp_only_layers"].empty())
    throw InputError("mlp_only_layers", "dense-MLP layers at listed positions are not modelled; allowed: an empty "
                                        "list (use first_k_dense_replace / decoder_sparse_step), in " + c.origin());
  if (m.moe.top_k > m.moe.num_experts)
    throw InputError("num_experts_per_tok", "must be in [1, " + std::to_string(m.moe.num_experts) + "] in " +
                                                c.origin());
}

void note(ModelArch& m, std::string field, std::string what) { m.unmapped.push_back({std::move(field), std::move(what)}); }

}  // namespace

const std::vector<std::string>& generic_model_types() {
  static const std::vector<std::string> types = [] {
    std::vector<std::string> t;
    for (const TypeTraits& tr : kTraits) t.push_back(tr.type);
    return t;
  }();
  return types;
}

ModelArch import_generic(const json& root, const json& body, const std::string& type, const std::string& origin) {
  if (kNotDecoders.count(type) || (root.contains("is_encoder_decoder") && root["is_encoder_decoder"] == true))
    throw InputError("model_type", "unsupported model_type '" + type + "': an encoder or encoder-decoder model; "
                                   "gpuplan models decoder-only transformers, in " + origin);
  static const TypeTraits kLlamaStyle{.type = "", .family = ""};
  const TypeTraits* known = traits_of(type);
  TypeTraits tr = known ? *known : kLlamaStyle;
  if (!known) tr.known_decoder = false;
  const Config c(body, origin);
  refuse_per_layer_list(body, {"intermediate_size", "num_key_value_heads", "num_attention_heads", "head_dim"}, origin);
  if (body.contains("block_configs"))
    throw InputError("block_configs", "per-layer block configurations (layers of different shapes) are not "
                                      "modelled; allowed: a config whose layers are alike, in " + origin);

  ModelArch m;
  m.origin = origin;
  m.family = known ? tr.family : type;
  m.layers = req_any(c, {"num_hidden_layers", "n_layer", "num_layers", "n_layers"}, 1, kMaxLayers);
  m.hidden = req_any(c, {"hidden_size", "n_embd", "d_model", "dim"}, 1, kMaxWidth);
  m.heads = req_any(c, {"num_attention_heads", "n_head", "num_heads", "n_heads"}, 1, kMaxLayers);
  if (c.has("vocab_size") || tr.vocab_default == 0) {
    m.vocab = c.req_in("vocab_size", 1, kMaxWidth);
  } else {
    m.vocab = tr.vocab_default;
    note(m, "vocab_size", "absent: " + std::to_string(m.vocab) + ", the " + type + " configuration's default");
  }
  const auto ffn_key = first_key(c, {"intermediate_size", "ffn_hidden_size", "n_inner", "ffn_dim"});
  if (ffn_key) m.ffn_hidden = c.req_in(*ffn_key, 1, kMaxWidth);
  else if (c.has("moe_intermediate_size")) m.ffn_hidden = c.req_in("moe_intermediate_size", 1, kMaxWidth);
  else m.ffn_hidden = c.req_in("intermediate_size", 1, kMaxWidth);  // names the usual key in the error

  if (const auto k = first_key(c, {"num_key_value_heads", "num_kv_heads", "n_head_kv", "multi_query_group_num"}))
    m.kv_heads = c.req_in(*k, 1, m.heads);
  else
    m.kv_heads = c.flag("multi_query", false) ? 1 : m.heads;
  if (m.heads % m.kv_heads != 0)
    throw InputError("num_key_value_heads", "must divide num_attention_heads = " + std::to_string(m.heads) +
                                                ", got " + std::to_string(m.kv_heads) + " in " + origin);
  if (c.has("head_dim")) {
    m.head_dim = c.req_in("head_dim", 1, kMaxWidth);
  } else if (c.has("kv_channels")) {
    m.head_dim = c.req_in("kv_channels", 1, kMaxWidth);
  } else if (tr.head_dim_default > 0) {
    m.head_dim = tr.head_dim_default;
    note(m, "head_dim", "absent: " + std::to_string(m.head_dim) + ", the " + type + " configuration's default");
  } else {
    m.head_dim = m.hidden / m.heads;
  }
  if (m.head_dim < 1)
    throw InputError("head_dim", "hidden_size / num_attention_heads is 0 in " + origin + "; give head_dim");
  m.attention = m.kv_heads == m.heads ? AttentionKind::mha : AttentionKind::gqa;

  // Tied embeddings: the key, beside text_config in a multimodal config, else the class default.
  const Config rc(root, origin);
  if (c.has("tie_word_embeddings")) {
    m.tied_embeddings = c.flag("tie_word_embeddings", false);
  } else if (rc.has("tie_word_embeddings")) {  // beside text_config
    m.tied_embeddings = rc.flag("tie_word_embeddings", false);
  } else {
    m.tied_embeddings = tr.tied_default;
    note(m, "tie_word_embeddings", std::string("absent: ") + (tr.tied_default ? "tied" : "untied") +
                                       (known ? ", the " + type + " configuration's default" : " assumed"));
  }
  m.gated_mlp = tr.gated;
  m.parallel_block = tr.parallel_block;
  m.norm_bias = tr.norm_bias;
  m.qk_norm = tr.qk_norm || c.flag("use_qk_norm", false) || c.flag("qk_layernorm", false);
  m.post_norms = tr.post_norms;
  const bool any_bias = c.flag("use_bias", tr.mlp_bias);  // Starcoder2: one flag for every linear
  m.attention_bias = c.flag("attention_bias", c.flag("qkv_bias", tr.attention_bias || any_bias));
  m.mlp_bias = c.flag("mlp_bias", any_bias);
  m.max_seq_len = c.has("max_position_embeddings") ? c.opt("max_position_embeddings", 0)
                                                   : c.opt("n_positions", c.opt("max_sequence_length", 0));
  read_window(c, body, tr, m);
  read_attention_chunk(c, body, m);
  if (c.has("kv_lora_rank") || c.has("q_lora_rank"))
    throw InputError("kv_lora_rank", "multi-head latent attention in a model_type the MLA readers do not know ('" +
                                         type + "'); allowed: deepseek_v2, deepseek_v3, kimi_k2, deepseek_v32, "
                                         "glm_moe_dsa, in " + origin);
  if (c.has("linear_num_value_heads") || c.has("full_attention_interval"))
    throw InputError(c.has("linear_num_value_heads") ? "linear_num_value_heads" : "full_attention_interval",
                     "linear-attention layers in a model_type the hybrid readers do not know ('" + type +
                         "'); allowed: qwen3_next, qwen3_5_moe, in " + origin);
  read_experts(c, body, m);
  if (!tr.known_decoder)
    note(m, "model_type", "'" + type + "' has no dedicated reader: read as a Llama-style decoder (gated MLP, "
                          "RMSNorm, rotary positions, biases only where the config says so)");
  return m;
}

namespace {

// Keys every reader maps (dimensions, experts, windows, the attention variants).
const std::set<std::string> kMapped = {
    "model_type", "num_hidden_layers", "n_layer", "num_layers", "n_layers", "hidden_size", "n_embd", "d_model",
    "dim", "num_attention_heads", "n_head", "num_heads", "n_heads", "vocab_size", "intermediate_size",
    "ffn_hidden_size", "n_inner", "ffn_dim", "intermediate_size_mlp", "num_key_value_heads", "num_kv_heads",
    "n_head_kv", "multi_query_group_num", "multi_query", "head_dim", "kv_channels", "tie_word_embeddings",
    "attention_bias", "mlp_bias", "use_bias", "qkv_bias", "use_qk_norm", "qk_layernorm",
    "max_position_embeddings", "n_positions", "max_sequence_length", "sliding_window", "sliding_window_size",
    "sliding_window_pattern", "use_sliding_window", "max_window_layers", "layer_types", "num_local_experts",
    "attention_chunk_size", "no_rope_layers", "no_rope_layer_interval",
    "n_routed_experts", "num_experts", "moe_num_experts", "num_experts_per_tok", "experts_per_token", "moe_top_k",
    "num_selected_experts", "moe_k", "moe_intermediate_size", "shared_expert_intermediate_size",
    "shared_intermediate_size", "n_shared_experts", "num_shared_experts", "moe_num_shared_experts",
    "first_k_dense_replace", "first_k_dense", "moe_layer_start_index", "decoder_sparse_step", "moe_layer_freq",
    "interleave_moe_layer_step", "moe_layer_interval", "mlp_only_layers", "q_lora_rank", "kv_lora_rank",
    "qk_nope_head_dim", "qk_rope_head_dim", "v_head_dim", "index_topk", "index_n_heads", "index_head_dim",
    "linear_num_key_heads", "linear_num_value_heads", "linear_key_head_dim", "linear_value_head_dim",
    "linear_conv_kernel_dim", "full_attention_interval", "attn_output_gate", "quantization_config",
    "text_config", "_name_or_path",
};

// Keys that leave parameter, FLOP and memory counts unchanged: token ids, initialisation, norm epsilons,
// rotary settings, dropout, scalar multipliers and soft-caps, router losses and routing rules, caching
// hints, serialization metadata.
const std::set<std::string> kNoEffect = {
    "architectures", "auto_map", "transformers_version", "torch_dtype", "dtype", "use_cache", "bos_token_id",
    "eos_token_id", "pad_token_id", "sep_token_id", "unk_token_id", "decoder_start_token_id",
    "initializer_range", "init_std", "initializer_factor", "embedding_init_std", "rms_norm_eps", "layer_norm_eps",
    "layer_norm_epsilon", "norm_eps", "norm_epsilon", "rope_theta", "rope_scaling", "rope_parameters",
    "rope_type", "rope_interleave", "partial_rotary_factor", "rotary_pct", "rotary_emb_base", "rotary_dim",
    "original_max_position_embeddings", "attention_dropout", "hidden_dropout", "embd_pdrop", "resid_pdrop",
    "attn_pdrop", "dropout", "ffn_dropout", "embedding_dropout", "residual_dropout", "classifier_dropout",
    "hidden_act", "hidden_activation", "activation_function", "pretraining_tp", "attn_logit_softcapping",
    "final_logit_softcapping", "query_pre_attn_scalar", "logit_scale", "embedding_multiplier",
    "residual_multiplier", "attention_multiplier", "logits_scaling", "cache_implementation",
    "router_aux_loss_coef", "output_router_logits", "router_jitter_noise", "router_z_loss_coef",
    "input_jitter_noise", "norm_topk_prob", "routed_scaling_factor", "scoring_func", "topk_method", "n_group",
    "topk_group", "aux_loss_alpha", "seq_aux", "ep_size", "moe_router_enable_expert_bias",
    "num_nextn_predict_layers", "is_decoder", "return_dict", "output_attentions", "output_hidden_states",
    "torchscript", "use_return_dict", "chunk_size_feed_forward", "tokenizer_class", "prefix",
    "task_specific_params", "id2label", "label2id", "problem_type", "num_labels", "image_token_index",
    "image_token_id", "boi_token_index", "eoi_token_index", "mm_tokens_per_image", "video_token_index",
    "vision_feature_layer", "vision_feature_select_strategy", "projector_hidden_act",
    "multimodal_projector_bias", "spatial_merge_size", "use_flash_attn",
    "_attn_implementation", "attn_implementation", "use_sliding_window_attention", "bos_token", "eos_token",
    "clip_qkv", "swa_layers", "use_qk_norm_in_rope", "attn_temperature_tuning",
    "floor_scale", "attn_scale", "for_llm_compressor", "rope_local_base_freq", "rotary_scaling_factor",
    "gradient_checkpointing", "rotary", "scale_attn_weights", "summary_activation", "summary_first_dropout",
    "summary_proj_to_labels", "summary_type", "summary_use_proj", "initial_context_length", "swiglu_limit",
};

// Parts of a multimodal checkpoint outside its text decoder: named, not modelled.
const std::set<std::string> kOtherTowers = {"vision_config", "audio_config", "speech_config", "perceiver_config",
                                            "vision_tower", "mm_vision_tower", "image_config"};

void scan(const json& obj, const std::string& prefix, ModelArch& m) {
  for (auto it = obj.begin(); it != obj.end(); ++it) {
    const std::string& k = it.key();
    if (kMapped.count(k) || kNoEffect.count(k)) continue;
    if (kOtherTowers.count(k)) {
      note(m, prefix + k, "not modelled: only the text decoder is counted (parameters, FLOPs, memory)");
      continue;
    }
    if (!k.empty() && k[0] == '_') continue;  // private serialization fields (_commit_hash, ...)
    note(m, prefix + k, "unknown key, not read");
  }
}

}  // namespace

void note_unmapped_keys(const json& root, const json& body, bool nested, ModelArch& m) {
  if (nested && root.is_object()) scan(root, "", m);
  if (body.is_object()) scan(body, nested ? "text_config." : "", m);
}

}  // namespace gpuplan::hf
