// Import of Hugging Face config.json files into a ModelArch.
// Key names follow the transformers configuration classes (LlamaConfig, MistralConfig, MixtralConfig,
// Qwen2Config, Qwen2MoeConfig, Qwen3Config, Qwen3MoeConfig, DeepseekV2/V3Config, GptOssConfig,
// Llama4TextConfig, Qwen3NextConfig, Qwen3_5MoeConfig (its text_config), GlmMoeDsaConfig,
// DeepseekV32Config); Kimi K2 ships a DeepseekV3 config under model_type "kimi_k2". Any other
// model_type goes to the generic decoder reader (hf_generic.cc).
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>

#include "core/error.h"
#include "model/hf_config.h"
#include "model/model_registry.h"

namespace gpuplan {

namespace hf {

const std::vector<std::string>& dedicated_model_types() {
  static const std::vector<std::string> types = {
      "llama",       "mistral",     "mixtral",   "qwen2",      "qwen2_moe",   "qwen3",
      "qwen3_moe",   "deepseek_v2", "deepseek_v3", "kimi_k2",  "gpt_oss",     "llama4",
      "gptj",        "qwen3_next",  "qwen3_5_moe", "qwen3_5_moe_text", "deepseek_v32", "glm_moe_dsa"};
  return types;
}

}  // namespace hf

namespace {

using nlohmann::json;

using model_limits::kMaxExperts;  // bounds on config values (model/model.h)
using model_limits::kMaxLayers;
using model_limits::kMaxWidth;

using hf::Config;

std::string supported_list() {
  std::string s;
  for (const auto* list : {&hf::dedicated_model_types(), &hf::generic_model_types()})
    for (const auto& t : *list) s += (s.empty() ? "" : ", ") + t;
  return s + ", or any other decoder-only config (read as a Llama-style decoder)";
}

std::string stem_of(const std::string& origin) {
  std::filesystem::path p(origin);
  std::string stem = p.stem().string();
  if (stem == "config" && p.has_parent_path()) stem = p.parent_path().filename().string();
  return stem.empty() ? origin : stem;
}

std::string name_of(const json& root, const std::string& origin) {
  return root.contains("_name_or_path") && root["_name_or_path"].is_string()
             ? root["_name_or_path"].get<std::string>()
             : stem_of(origin);
}

// GPT-J (GPTJConfig): GPT-2 key names, parallel attention+MLP under one LayerNorm, biased MLP,
// unbiased attention, untied output head.
ModelArch import_gptj(const Config& c, const json& root, const std::string& origin) {
  ModelArch m;
  m.name = m.display_name = name_of(root, origin);
  m.origin = origin;
  m.family = "gpt-j";
  m.layers = c.req_in("n_layer", 1, kMaxLayers);
  m.hidden = c.req_in("n_embd", 1, kMaxWidth);
  m.heads = c.req_in("n_head", 1, kMaxLayers);
  m.vocab = c.req_in("vocab_size", 1, kMaxWidth);
  if (m.layers < 1 || m.hidden < 1 || m.heads < 1 || m.vocab < 1)
    throw InputError(origin, "n_layer, n_embd, n_head and vocab_size must be >= 1");
  m.ffn_hidden = c.opt_in("n_inner", 0, 1, kMaxWidth);
  if (m.ffn_hidden == 0) m.ffn_hidden = static_cast<int>(std::min<long long>(4LL * m.hidden, kMaxWidth));
  m.kv_heads = m.heads;
  m.head_dim = m.hidden / m.heads;
  m.attention = AttentionKind::mha;
  m.gated_mlp = false;
  m.mlp_bias = true;
  m.norm_bias = true;
  m.parallel_block = true;
  m.tied_embeddings = c.flag("tie_word_embeddings", false);
  m.max_seq_len = c.opt("n_positions", 0);
  return m;
}

// Qwen's MoE keys (Qwen2-MoE, Qwen3-MoE, Qwen3-Next / Qwen3.5): routed experts every
// decoder_sparse_step layers, plus one shared expert when shared_expert_intermediate_size is set.
void read_qwen_experts(const Config& c, ModelArch& m) {
  m.moe.num_experts = c.req_in("num_experts", 1, kMaxExperts);
  m.moe.top_k = c.req("num_experts_per_tok");
  m.moe.expert_ffn_hidden = c.req_in("moe_intermediate_size", 1, kMaxWidth);
  m.moe.layer_freq = c.opt_in("decoder_sparse_step", 1, 1, std::max(1, m.layers));
  if (int shared = c.opt_in("shared_expert_intermediate_size", 0, 0, kMaxWidth); shared > 0) {
    m.moe.shared_experts = 1;
    m.moe.shared_ffn_hidden = shared;
  }
}

// Hybrid layouts (Qwen3-Next, Qwen3.5): which layers mix tokens by linear attention, read from
// `layer_types` ("linear_attention" / "full_attention", one per layer) or, without it, from
// `full_attention_interval` (every n-th layer is full attention), and the Gated DeltaNet dimensions.
void read_linear_attention(const Config& c, const json& body, ModelArch& m, const std::string& origin) {
  int linear = 0;
  if (body.contains("layer_types") && !body["layer_types"].is_null()) {
    const json& types = body["layer_types"];
    if (!types.is_array() || types.size() != static_cast<size_t>(m.layers))
      throw InputError("layer_types", "must be a list of num_hidden_layers = " + std::to_string(m.layers) +
                                          " entries in " + origin);
    for (size_t i = 0; i < types.size(); ++i) {
      const std::string t = types[i].is_string() ? types[i].get<std::string>() : std::string("(not text)");
      if (t == "linear_attention") ++linear;
      else if (t != "full_attention")
        throw InputError("layer_types[" + std::to_string(i) + "]",
                         "unknown layer type '" + t.substr(0, 40) + "'; allowed: linear_attention, full_attention in " + origin);
    }
  } else {
    const int every = c.req_in("full_attention_interval", 1, m.layers);
    linear = m.layers - m.layers / every;  // layers i with (i + 1) % every != 0
  }
  if (body.contains("mlp_only_layers") && body["mlp_only_layers"].is_array() && !body["mlp_only_layers"].empty())
    throw InputError("mlp_only_layers", "dense-MLP layers inside a hybrid MoE model are not modelled; "
                                        "allowed: an empty list, in " + origin);
  m.linear.layers = linear;
  if (linear == 0) return;
  m.linear.key_heads = c.req_in("linear_num_key_heads", 1, kMaxLayers);
  m.linear.value_heads = c.req_in("linear_num_value_heads", 1, kMaxLayers);
  m.linear.key_head_dim = c.req_in("linear_key_head_dim", 1, kMaxWidth);
  m.linear.value_head_dim = c.req_in("linear_value_head_dim", 1, kMaxWidth);
  m.linear.conv_kernel = c.req_in("linear_conv_kernel_dim", 1, 1024);
  if (m.linear.value_heads % m.linear.key_heads != 0)
    throw InputError("linear_num_value_heads", "must be a multiple of linear_num_key_heads = " +
                                                   std::to_string(m.linear.key_heads) + " in " + origin);
}

// DeepSeek Sparse Attention (DeepSeek-V3.2, GLM-5): the indexer's top-k, heads and head dimension.
void read_sparse_attention(const Config& c, ModelArch& m) {
  m.sparse.index_topk = c.req_in("index_topk", 1, kMaxWidth);
  m.sparse.index_heads = c.req_in("index_n_heads", 1, kMaxLayers);
  m.sparse.index_head_dim = c.req_in("index_head_dim", 1, kMaxWidth);
}

// Deepest nesting of arrays and objects a config.json may have (real ones reach 3-4). Checked on the
// text before parsing: 10^5 nested brackets overflowed the stack in the parser and destructor.
constexpr int kMaxJsonDepth = 64;

void check_depth(const std::string& text, const std::string& origin) {
  int depth = 0;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') ++i;
      else if (c == '"') in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > kMaxJsonDepth)
        throw InputError(origin, "not valid JSON: nested deeper than " + std::to_string(kMaxJsonDepth) + " levels");
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
}

// The FP8 checkpoint's weight scaling block: quantization_config {quant_method: "fp8",
// weight_block_size: [128, 128]} (DeepSeek-V3/R1, Kimi K2, Qwen3 -FP8 releases); 0 without one
// (a BF16 checkpoint, or FP8 with per-tensor scales).
int fp8_weight_block(const json& root, const std::string& origin) {
  if (!root.contains("quantization_config") || !root["quantization_config"].is_object()) return 0;
  const json& q = root["quantization_config"];
  if (!q.contains("quant_method") || q["quant_method"] != "fp8" || !q.contains("weight_block_size")) return 0;
  const json& b = q["weight_block_size"];
  if (!b.is_array() || b.empty() || !b[0].is_number_integer() || b[0].get<long long>() < 1 || b[0].get<long long>() > 4096)
    throw InputError("quantization_config.weight_block_size",
                     "must be a list of block sizes, each 1 to 4096 (e.g. [128, 128]), in " + origin);
  return static_cast<int>(b[0].get<long long>());
}

}  // namespace

ModelArch import_hf_config(const std::string& json_text, const std::string& origin) {
  check_depth(json_text, origin);
  json root;
  try {
    root = json::parse(json_text);
  } catch (const json::exception& e) {  // syntax errors and out-of-range numbers (1e400)
    throw InputError(origin, std::string("not valid JSON: ") + e.what());
  }
  if (!root.is_object()) throw InputError(origin, "a config.json must be a JSON object");
  if (!root.contains("model_type") || !root["model_type"].is_string())
    throw InputError("model_type", "missing required key 'model_type' in " + origin +
                                       "; supported: " + supported_list());
  const std::string type = root["model_type"].get<std::string>();
  const auto& dedicated = hf::dedicated_model_types();
  if (std::find(dedicated.begin(), dedicated.end(), type) == dedicated.end()) {
    // Any other decoder: the generic reader; a multimodal config's decoder sits in text_config.
    const bool nested = root.contains("text_config") && root["text_config"].is_object() &&
                        !root.contains("num_hidden_layers");
    const json& body = nested ? root["text_config"] : root;
    ModelArch m = hf::import_generic(root, body, type, origin);
    m.name = m.display_name = name_of(root, origin);
    m.fp8_weight_block = fp8_weight_block(root, origin);
    hf::note_unmapped_keys(root, body, nested, m);
    return m;
  }

  if (type == "gptj") {
    ModelArch m = import_gptj(Config(root, origin), root, origin);
    hf::note_unmapped_keys(root, root, false, m);
    return m;
  }
  const bool nested = type == "llama4" || type == "qwen3_5_moe";  // the decoder's keys sit in text_config
  const json& body = nested ? root.value("text_config", json::object()) : root;
  if (nested && (!root.contains("text_config") || !root["text_config"].is_object()))
    throw InputError("text_config", "missing required key 'text_config' in " + origin);
  const Config c(body, origin);
  const bool qwen_hybrid = type == "qwen3_next" || type == "qwen3_5_moe" || type == "qwen3_5_moe_text";

  ModelArch m;
  m.name = name_of(root, origin);
  m.display_name = m.name;
  m.origin = origin;
  m.layers = c.req_in("num_hidden_layers", 1, kMaxLayers);
  m.hidden = c.req_in("hidden_size", 1, kMaxWidth);
  m.heads = c.req_in("num_attention_heads", 1, kMaxLayers);
  m.vocab = c.req_in("vocab_size", 1, kMaxWidth);
  // Qwen3.5's MoE text config has no dense MLP and no intermediate_size: its experts' width stands in.
  m.ffn_hidden = qwen_hybrid && !c.has("intermediate_size") ? c.req_in("moe_intermediate_size", 1, kMaxWidth)
                                                              : c.req_in("intermediate_size", 1, kMaxWidth);
  if (m.layers < 1 || m.hidden < 1 || m.heads < 1 || m.vocab < 1)
    throw InputError(origin, "num_hidden_layers, hidden_size, num_attention_heads and vocab_size must be >= 1");
  m.kv_heads = c.opt_in("num_key_value_heads", m.heads, 1, m.heads);
  if (m.heads % m.kv_heads != 0)
    throw InputError("num_key_value_heads", "must divide num_attention_heads = " + std::to_string(m.heads) +
                                                ", got " + std::to_string(m.kv_heads) + " in " + origin);
  m.head_dim = c.opt_in("head_dim", m.hidden / m.heads, 1, kMaxWidth);
  if (m.head_dim < 1)
    throw InputError("head_dim", "hidden_size / num_attention_heads is 0 in " + origin + "; give head_dim");
  // Qwen3.5's multimodal config keeps tie_word_embeddings beside text_config, not in it.
  m.tied_embeddings = type == "qwen3_5_moe" && !c.has("tie_word_embeddings")
                          ? Config(root, origin).flag("tie_word_embeddings", false)
                          : c.flag("tie_word_embeddings", false);
  m.attention_bias = c.flag("attention_bias", false);
  m.mlp_bias = c.flag("mlp_bias", false);
  m.max_seq_len = c.opt("max_position_embeddings", 0);
  m.attention = m.kv_heads == m.heads ? AttentionKind::mha : AttentionKind::gqa;
  m.family = type;

  if (type == "llama") {
    m.family = "llama";
  } else if (type == "mistral" || type == "mixtral") {
    m.family = type;
    m.sliding_window = c.opt("sliding_window", 0);
    if (m.sliding_window > 0) m.sliding_window_layers = m.layers;
    if (type == "mixtral") {
      m.moe.num_experts = c.req_in("num_local_experts", 1, kMaxExperts);
      m.moe.top_k = c.req("num_experts_per_tok");
      m.moe.expert_ffn_hidden = m.ffn_hidden;
    }
  } else if (type == "qwen2" || type == "qwen2_moe" || type == "qwen3" || type == "qwen3_moe") {
    m.family = "qwen";
    if (type == "qwen2" || type == "qwen2_moe") m.attention_bias = true;  // q, k, v biases
    if (type == "qwen3" || type == "qwen3_moe") m.qk_norm = true;
    if (type == "qwen2_moe" || type == "qwen3_moe") {
      read_qwen_experts(c, m);
    }
  } else if (qwen_hybrid) {
    // Qwen3-Next / Qwen3.5: Gated DeltaNet layers interleaved with gated full attention (q/k norms),
    // routed experts plus one shared expert in every layer.
    m.family = "qwen";
    m.qk_norm = true;
    m.attention_output_gate = c.flag("attn_output_gate", true);  // Qwen3-Next always gates
    read_linear_attention(c, body, m, origin);
    read_qwen_experts(c, m);
  } else if (type == "deepseek_v2" || type == "deepseek_v3" || type == "kimi_k2" || type == "deepseek_v32" ||
             type == "glm_moe_dsa") {
    m.family = type == "kimi_k2" ? "kimi" : type == "glm_moe_dsa" ? "glm" : "deepseek";
    if (type == "deepseek_v32" || type == "glm_moe_dsa") read_sparse_attention(c, m);
    m.attention = AttentionKind::mla;
    m.mla.q_lora_rank = c.opt_in("q_lora_rank", 0, 0, kMaxWidth);
    m.mla.kv_lora_rank = c.req_in("kv_lora_rank", 1, kMaxWidth);
    m.mla.qk_nope_head_dim = c.req_in("qk_nope_head_dim", 0, kMaxWidth);
    m.mla.qk_rope_head_dim = c.req_in("qk_rope_head_dim", 0, kMaxWidth);
    m.mla.v_head_dim = c.req_in("v_head_dim", 1, kMaxWidth);
    m.kv_heads = m.heads;
    m.head_dim = m.mla.qk_nope_head_dim + m.mla.qk_rope_head_dim;
    if (m.head_dim < 1) throw InputError("qk_nope_head_dim", "qk_nope_head_dim + qk_rope_head_dim must be >= 1 in " + origin);
    if (c.opt("n_routed_experts", 0) > 0) {
      m.moe.num_experts = c.req_in("n_routed_experts", 1, kMaxExperts);
      m.moe.top_k = c.req("num_experts_per_tok");
      m.moe.expert_ffn_hidden = c.req_in("moe_intermediate_size", 1, kMaxWidth);
      m.moe.shared_experts = c.opt_in("n_shared_experts", 0, 0, 1000);
      m.moe.first_dense_layers = c.opt_in("first_k_dense_replace", 0, 0, m.layers);
      m.moe.layer_freq = c.opt_in("moe_layer_freq", 1, 1, std::max(1, m.layers));
    }
    // num_nextn_predict_layers (the MTP module) is not counted: published totals exclude it.
  } else if (type == "gpt_oss") {
    m.family = "gpt-oss";
    m.mlp_bias = true;          // experts and router carry biases
    m.attention_sinks = true;
    m.moe.num_experts = c.req_in("num_local_experts", 1, kMaxExperts);
    m.moe.top_k = c.has("num_experts_per_tok") ? c.req("num_experts_per_tok") : c.req("experts_per_token");
    m.moe.expert_ffn_hidden = m.ffn_hidden;
    m.sliding_window = c.opt("sliding_window", 0);
    if (m.sliding_window > 0) {
      int sliding = 0;
      if (body.contains("layer_types") && body["layer_types"].is_array()) {
        for (const auto& t : body["layer_types"])
          if (t.is_string() && t.get<std::string>() == "sliding_attention") ++sliding;
      } else {
        sliding = m.layers / 2;  // gpt-oss alternates sliding and full attention
      }
      m.sliding_window_layers = sliding;
      if (sliding == 0) m.sliding_window = 0;
    }
  } else if (type == "llama4") {
    m.family = "llama4";
    m.ffn_hidden = c.opt_in("intermediate_size_mlp", m.ffn_hidden, 1, kMaxWidth);  // dense layers
    m.moe.num_experts = c.req_in("num_local_experts", 1, kMaxExperts);
    m.moe.top_k = c.req("num_experts_per_tok");
    m.moe.expert_ffn_hidden = c.req_in("intermediate_size", 1, kMaxWidth);
    m.moe.shared_experts = 1;  // Llama4TextMoe: one shared expert of intermediate_size
    m.moe.shared_ffn_hidden = m.moe.expert_ffn_hidden;
    m.moe.layer_freq = c.opt_in("interleave_moe_layer_step", 1, 1, std::max(1, m.layers));
  }
  hf::read_attention_chunk(c, body, m);  // Llama 4's chunks; any other reader's config refuses them beside a window
  if (m.is_moe() && (m.moe.top_k < 1 || m.moe.top_k > m.moe.num_experts))
    throw InputError("num_experts_per_tok", "must be in [1, " + std::to_string(m.moe.num_experts) +
                                                "] in " + origin);
  m.fp8_weight_block = fp8_weight_block(root, origin);
  hf::note_unmapped_keys(root, body, nested, m);
  return m;
}

}  // namespace gpuplan
