// The built-in model list (data/models/*.yaml, embedded in the binary) and name resolution.
#include "model/model_registry.h"

#include <fmt/format.h>

#include <cctype>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>

#include "core/embedded_data.h"
#include "core/input_file.h"
#include "core/error.h"
#include "core/suggest.h"
#include "core/yaml_reader.h"
#include "core/yaml_tree.h"
#include "model/model_yaml.h"

namespace gpuplan {

namespace {

// Longer than any path the OS takes (PATH_MAX): a name this long is a mistake, not a model.
constexpr size_t kMaxModelNameChars = 4096;

int to_int(long long v) { return static_cast<int>(v); }

AttentionKind parse_attention(const std::string& s, const std::string& path) {
  if (s == "mha") return AttentionKind::mha;
  if (s == "gqa") return AttentionKind::gqa;
  if (s == "mla") return AttentionKind::mla;
  throw InputError(path + ".attention", "unknown attention '" + s + "'; allowed: mha, gqa, mla");
}

ModelArch parse_model(YamlMap y) {
  constexpr long long kBig = 1LL << 31;
  ModelArch m;
  m.name = y.str("name");
  m.display_name = y.opt_str("display_name").value_or(m.name);
  if (y.has("aliases")) m.aliases = y.str_list("aliases");
  m.family = y.str("family");
  m.layers = to_int(y.integer_in("layers", 1, 100000));
  m.hidden = to_int(y.integer_in("hidden", 1, kBig - 1));
  m.ffn_hidden = to_int(y.integer_in("ffn_hidden", 1, kBig - 1));
  m.heads = to_int(y.integer_in("heads", 1, 100000));
  m.kv_heads = to_int(y.opt_integer_in("kv_heads", 1, m.heads).value_or(m.heads));
  m.head_dim = to_int(y.opt_integer_in("head_dim", 1, 100000).value_or(m.hidden / m.heads));
  m.vocab = to_int(y.integer_in("vocab", 1, kBig - 1));
  m.gated_mlp = y.opt_boolean("gated_mlp").value_or(true);
  m.tied_embeddings = y.opt_boolean("tied_embeddings").value_or(false);
  m.attention_bias = y.opt_boolean("attention_bias").value_or(false);
  m.mlp_bias = y.opt_boolean("mlp_bias").value_or(false);
  m.norm_bias = y.opt_boolean("norm_bias").value_or(false);
  m.parallel_block = y.opt_boolean("parallel_block").value_or(false);
  m.qk_norm = y.opt_boolean("qk_norm").value_or(false);
  m.post_norms = y.opt_boolean("post_norms").value_or(false);
  m.attention_sinks = y.opt_boolean("attention_sinks").value_or(false);
  m.learned_position_embeddings = y.opt_boolean("learned_position_embeddings").value_or(false);
  m.sliding_window = to_int(y.opt_integer_in("sliding_window", 0, kBig - 1).value_or(0));
  m.sliding_window_layers = to_int(y.opt_integer_in("sliding_window_layers", 0, m.layers).value_or(0));
  // Aligned-chunk local attention (Llama 4's attention_chunk_size): the window's other shape.
  if (const auto chunk = y.opt_integer_in("attention_chunk", 1, kBig - 1)) {
    if (m.sliding_window > 0)
      throw InputError(y.path() + ".attention_chunk",
                       "a model states a sliding_window or an attention_chunk, not both");
    m.sliding_window = to_int(*chunk);
    m.sliding_window_layers = to_int(y.opt_integer_in("attention_chunk_layers", 0, m.layers).value_or(0));
    m.chunked_window = true;
  } else if (y.has("attention_chunk_layers")) {
    throw InputError(y.path() + ".attention_chunk_layers", "needs attention_chunk (the chunk's tokens)");
  }
  if (auto a = y.opt_str("attention"))
    m.attention = parse_attention(*a, y.path());
  else
    m.attention = m.kv_heads == m.heads ? AttentionKind::mha : AttentionKind::gqa;
  if (auto mla = y.opt_map("mla")) {
    m.mla.q_lora_rank = to_int(mla->opt_integer_in("q_lora_rank", 0, kBig - 1).value_or(0));
    m.mla.kv_lora_rank = to_int(mla->integer_in("kv_lora_rank", 1, kBig - 1));
    m.mla.qk_nope_head_dim = to_int(mla->integer_in("qk_nope_head_dim", 0, 100000));
    m.mla.qk_rope_head_dim = to_int(mla->integer_in("qk_rope_head_dim", 0, 100000));
    m.mla.v_head_dim = to_int(mla->integer_in("v_head_dim", 1, 100000));
    mla->reject_unknown_keys();
  } else if (m.attention == AttentionKind::mla) {
    throw InputError(y.path() + ".mla", "attention: mla needs an mla block");
  }
  if (auto moe = y.opt_map("moe")) {
    m.moe.num_experts = to_int(moe->integer_in("num_experts", 1, 1000000));
    m.moe.top_k = to_int(moe->integer_in("top_k", 1, m.moe.num_experts));
    m.moe.expert_ffn_hidden = to_int(moe->integer_in("expert_ffn_hidden", 1, kBig - 1));
    m.moe.shared_experts = to_int(moe->opt_integer_in("shared_experts", 0, 1000).value_or(0));
    m.moe.shared_ffn_hidden = to_int(moe->opt_integer_in("shared_ffn_hidden", 0, kBig - 1).value_or(0));
    m.moe.first_dense_layers =
        to_int(moe->opt_integer_in("first_dense_layers", 0, m.layers).value_or(0));
    m.moe.layer_freq = to_int(moe->opt_integer_in("layer_freq", 1, m.layers).value_or(1));
    moe->reject_unknown_keys();
  }
  m.attention_output_gate = y.opt_boolean("attention_output_gate").value_or(false);
  if (auto lin = y.opt_map("linear_attention")) {
    // A hybrid model: `layers` of the model's layers mix tokens by linear attention (Gated DeltaNet).
    LinearAttentionDims& d = m.linear;
    d.layers = to_int(lin->integer_in("layers", 1, m.layers));
    d.key_heads = to_int(lin->integer_in("key_heads", 1, 100000));
    d.value_heads = to_int(lin->integer_in("value_heads", 1, 100000));
    d.key_head_dim = to_int(lin->integer_in("key_head_dim", 1, 100000));
    d.value_head_dim = to_int(lin->integer_in("value_head_dim", 1, 100000));
    d.conv_kernel = to_int(lin->integer_in("conv_kernel", 1, 1024));
    d.state_bytes_per_element = lin->opt_num_in("state_bytes_per_element", 0.5, 8).value_or(4.0);
    lin->reject_unknown_keys();
  }
  if (auto sp = y.opt_map("sparse_attention")) {
    // DeepSeek Sparse Attention: an indexer picks the index_topk past tokens each query attends.
    m.sparse.index_topk = to_int(sp->integer_in("index_topk", 1, kBig - 1));
    m.sparse.index_heads = to_int(sp->integer_in("index_heads", 1, 100000));
    m.sparse.index_head_dim = to_int(sp->integer_in("index_head_dim", 1, 100000));
    sp->reject_unknown_keys();
  }
  m.max_seq_len = to_int(y.opt_integer_in("max_seq_len", 0, kBig - 1).value_or(0));
  m.fp8_weight_block = to_int(y.opt_integer_in("fp8_weight_block", 0, 4096).value_or(0));
  if (auto p = y.opt_num_in("published_total_params_b", 0, 1e6)) m.published_total_params = *p * 1e9;
  if (auto p = y.opt_num_in("published_active_params_b", 0, 1e6)) m.published_active_params = *p * 1e9;
  m.published_active_excludes_embedding =
      y.opt_boolean("published_active_excludes_embedding").value_or(false);
  if (y.has("sources")) {
    YAML::Node src = y.raw("sources");
    if (!src.IsMap()) throw InputError(y.path() + ".sources", "must be a map of key: text");
    for (const auto& kv : src) {
      if (!kv.second.IsScalar()) throw InputError(y.path() + ".sources." + kv.first.Scalar(), "expected a text value");
      m.sources[kv.first.Scalar()] = kv.second.Scalar();
    }
  }
  m.origin = "built-in";
  y.reject_unknown_keys();
  return m;
}

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

const ModelArch* find_exact(const std::string& typed) {
  const std::string key = normalize_name(typed);
  if (key.empty()) return nullptr;
  // Every name and alias normalized once (the built-in list is immutable): a lookup per API call
  // costs string compares, not a normalization of the whole list.
  static const std::vector<std::pair<std::string, const ModelArch*>> index = [] {
    std::vector<std::pair<std::string, const ModelArch*>> v;
    for (const ModelArch& m : builtin_models()) {
      v.emplace_back(normalize_name(m.name), &m);
      for (const auto& a : m.aliases) v.emplace_back(normalize_name(a), &m);
    }
    return v;
  }();
  for (const auto& [name, m] : index)
    if (name == key) return m;
  return nullptr;
}

// A release stamp of four digits closing a name ("DeepSeek-R1-0528", "DeepSeek-V3-0324",
// "Qwen3-235B-A22B-Instruct-2507"): its length without "-dddd", or npos.
size_t release_stamp_start(const std::string& s) {
  if (s.size() < 6 || s[s.size() - 5] != '-') return std::string::npos;
  for (size_t k = s.size() - 4; k < s.size(); ++k)
    if (s[k] < '0' || s[k] > '9') return std::string::npos;
  return s.size() - 5;
}

// Rule 2: trailing variant tokens that do not change the architecture: a weight format
// ("-FP8", "-NVFP4", "-FP8-dynamic", "-FP8-KV", "-quantized.w8a8", ...), a fine-tuning label ("-Instruct",
// "-Chat", "-Base", "-hf", "-Thinking") or a release stamp ("-0528").
const ModelArch* find_without_variant_suffix(std::string typed) {
  static const std::vector<std::string> kSuffixes = {"fp8", "nvfp4", "fp4", "mxfp4", "bf16", "fp16",
                                                     "int8", "int4", "awq", "gptq", "w8a8", "w4a16",
                                                     "w8a16", "w4a8", "dynamic", "kv", "quantized",
                                                     "instruct", "chat", "base", "hf", "thinking"};
  for (bool stripped = true; stripped;) {
    stripped = false;
    if (const size_t cut = release_stamp_start(typed); cut != std::string::npos) {
      typed.resize(cut);
      if (const ModelArch* m = find_exact(typed)) return m;
      stripped = true;
      continue;
    }
    const std::string low = lower(typed);
    for (const auto& s : kSuffixes) {
      for (char sep : {'-', '_', ' ', '.'}) {
        const std::string tail = std::string(1, sep) + s;
        if (ends_with(low, tail)) {
          typed.resize(typed.size() - tail.size());
          if (const ModelArch* m = find_exact(typed)) return m;
          stripped = true;
          break;
        }
      }
      if (stripped) break;
    }
  }
  return nullptr;
}

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

// "NAME (proxy N L)", case-insensitive, spaces optional around the parts: NAME and N's digits.
// A hand-written match (std::regex recursed once per character and overflowed the stack on long names).
struct ProxySuffix {
  std::string base, layers_text;
};
std::optional<ProxySuffix> parse_proxy_suffix(const std::string& s) {
  size_t end = s.size();
  while (end > 0 && is_space(s[end - 1])) --end;
  if (end == 0 || s[end - 1] != ')') return std::nullopt;
  --end;
  while (end > 0 && is_space(s[end - 1])) --end;
  if (end == 0 || std::tolower(static_cast<unsigned char>(s[end - 1])) != 'l') return std::nullopt;
  --end;
  while (end > 0 && is_space(s[end - 1])) --end;
  size_t digits = end;
  while (digits > 0 && std::isdigit(static_cast<unsigned char>(s[digits - 1]))) --digits;
  if (digits == end) return std::nullopt;
  ProxySuffix out;
  out.layers_text = s.substr(digits, end - digits);
  size_t pos = digits;
  if (pos == 0 || !is_space(s[pos - 1])) return std::nullopt;  // "proxy" and N are separated by space
  while (pos > 0 && is_space(s[pos - 1])) --pos;
  static const std::string kWord = "(proxy";
  if (pos < kWord.size() || lower(s.substr(pos - kWord.size(), kWord.size())) != kWord) return std::nullopt;
  pos -= kWord.size();
  size_t begin = 0;
  while (begin < pos && is_space(s[begin])) ++begin;
  while (pos > begin && is_space(s[pos - 1])) --pos;
  if (pos == begin) return std::nullopt;
  out.base = s.substr(begin, pos - begin);
  return out;
}

std::vector<ModelArch> parse_models_document(const YAML::Node& root, const std::string& origin) {
  YamlMap top(root, origin);
  std::vector<ModelArch> out;
  for (YamlMap& y : top.map_list("models")) out.push_back(parse_model(y));
  top.reject_unknown_keys();
  return out;
}

}  // namespace

std::vector<ModelArch> parse_models_yaml(const std::string& text, const std::string& origin) {
  return parse_models_document(parse_yaml(text, origin), origin);
}

const std::vector<ModelArch>& builtin_models() {
  static const std::vector<ModelArch> models = [] {
    std::vector<ModelArch> all;
    std::map<std::string, std::string> seen;  // normalized name/alias -> model name
    for (const EmbeddedFile& f : embedded_data_files()) {
      const std::string path(f.path);
      if (path.rfind("models/", 0) != 0 || !ends_with(path, ".yaml")) continue;
      for (ModelArch& m : parse_models_document(embedded_yaml(f), path)) {
        std::vector<std::string> keys = m.aliases;
        keys.push_back(m.name);
        for (const auto& k : keys) {
          auto [it, fresh] = seen.emplace(normalize_name(k), m.name);
          if (!fresh && it->second != m.name)
            throw InputError(path, "model name or alias '" + k + "' of " + m.name +
                                       " is already used by " + it->second);
        }
        all.push_back(std::move(m));
      }
    }
    return all;
  }();
  return models;
}

std::vector<std::string> builtin_model_names(bool with_aliases) {
  std::vector<std::string> names;
  for (const ModelArch& m : builtin_models()) {
    names.push_back(m.name);
    if (with_aliases) names.insert(names.end(), m.aliases.begin(), m.aliases.end());
  }
  return names;
}

ModelArch resolve_model(const std::string& name_or_path, const std::string& field) {
  if (name_or_path.size() > kMaxModelNameChars)
    throw InputError(field, fmt::format("model name or path of {} characters; at most {} allowed ('{}')",
                                        name_or_path.size(), kMaxModelNameChars, echo_name(name_or_path)));
  // A path-looking name (ending in ".json", or with a directory in it) is a file when one is there.
  // Any other name is a built-in name or alias first, so resolving one (each API call) costs no
  // file-system check; a file in the working directory named as a built-in model is not read.
  const bool json_name = ends_with(lower(name_or_path), ".json");
  const bool path_like = json_name || name_or_path.find('/') != std::string::npos;
  // Rule 1: an exact name or alias, compared by normalize_name ("LLAMA3.1_405B" == "llama3.1-405b").
  const ModelArch* exact = path_like ? nullptr : find_exact(name_or_path);
  if (exact) return *exact;
  const std::optional<std::string> file = find_input_file(name_or_path);
  if (json_name || file) return import_hf_config(read_input_file(file.value_or(name_or_path), field), name_or_path);
  if (path_like)  // a directory-looking name that is no file: rule 1 as for any name
    if (const ModelArch* m = find_exact(name_or_path)) return *m;
  // Rule 2: strip weight-format and fine-tuning suffixes ("Qwen3-32B-NVFP4", "...-Instruct-FP8").
  if (const ModelArch* m = find_without_variant_suffix(name_or_path)) return *m;
  // Rule 3: "NAME (proxy NL)" is NAME cut to its first N layers (the truncated proxies of the
  // DGX Cloud Llama 3.1 405B recipes); the published counts no longer apply.
  if (const auto proxy = parse_proxy_suffix(name_or_path)) {
    ModelArch m = resolve_model(proxy->base, field);
    if (proxy->layers_text.size() > 9 || std::stoi(proxy->layers_text) < 1 ||
        std::stoi(proxy->layers_text) > m.layers)
      throw InputError(field, "proxy layer count " + proxy->layers_text.substr(0, 20) + " must be in [1, " +
                                  std::to_string(m.layers) + "]");
    const int n = std::stoi(proxy->layers_text);
    const int all_layers = m.layers;
    m.moe.first_dense_layers = std::min(m.moe.first_dense_layers, n);
    m.sliding_window_layers = std::min(m.sliding_window_layers, n);
    // Hybrid layouts interleave their layer kinds evenly: the first n layers keep the same share.
    m.linear.layers = static_cast<int>(std::lround(1.0 * m.linear.layers * n / all_layers));
    m.layers = n;
    m.name += "-proxy-" + std::to_string(n) + "l";
    m.display_name += " (proxy " + std::to_string(n) + " layers)";
    m.aliases.clear();
    m.published_total_params.reset();
    m.published_active_params.reset();
    return m;
  }
  // Rule 4: a Hugging Face repository id "ORG/NAME" that is no file here: NAME, by the rules above
  // ("deepseek-ai/DeepSeek-R1", "meta-llama/Llama-3.1-70B-Instruct").
  if (const size_t slash = name_or_path.find('/');
      slash != std::string::npos && slash > 0 && name_or_path.find('/', slash + 1) == std::string::npos &&
      slash + 1 < name_or_path.size() && !json_name) {
    try {
      return resolve_model(name_or_path.substr(slash + 1), field);
    } catch (const InputError&) {
      // reported below under the name the user gave
    }
  }
  throw InputError(field, "unknown model '" + echo_name(name_or_path) + "'" +
                              did_you_mean(name_or_path, builtin_model_names(true)) +
                              "; `gpuplan model list` shows the built-in models, or give a path to a "
                              "Hugging Face config.json");
}

}  // namespace gpuplan
