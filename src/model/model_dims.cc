#include "model/model_dims.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>

#include "core/error.h"
#include "core/key_values.h"
#include "core/suggest.h"
#include "core/text.h"
#include "model/model_registry.h"

namespace gpuplan {

namespace {

struct DimKey {
  const char* key;
  std::optional<int> ModelDims::*field;
  int lo, hi;
};

const std::vector<DimKey>& dim_table() {
  static const std::vector<DimKey> t = {
      {"layers", &ModelDims::layers, 1, model_limits::kMaxLayers},
      {"hidden", &ModelDims::hidden, 1, model_limits::kMaxWidth},
      {"heads", &ModelDims::heads, 1, model_limits::kMaxLayers},
      {"kv_heads", &ModelDims::kv_heads, 1, model_limits::kMaxLayers},
      {"vocab", &ModelDims::vocab, 1, model_limits::kMaxWidth},
      {"ffn_hidden", &ModelDims::ffn_hidden, 1, model_limits::kMaxWidth},
      {"experts", &ModelDims::experts, 0, model_limits::kMaxExperts},
      {"topk", &ModelDims::topk, 0, model_limits::kMaxExperts},
  };
  return t;
}

}  // namespace

const std::vector<std::string>& model_dim_keys() {
  static const std::vector<std::string> k = [] {
    std::vector<std::string> out;
    for (const DimKey& d : dim_table()) out.push_back(d.key);
    return out;
  }();
  return k;
}

void set_model_dim(ModelDims& d, const std::string& key, double v, const std::string& field_prefix) {
  for (const DimKey& k : dim_table()) {
    if (key != k.key) continue;
    if (!(v >= k.lo && v <= k.hi))
      throw InputError(field_prefix + key, fmt::format("must be in [{}, {}], got {}", k.lo, k.hi, v));
    d.*k.field = static_cast<int>(v);
    return;
  }
  throw InputError(field_prefix + key, "unknown model dimension" + did_you_mean(key, model_dim_keys()) +
                                           fmt::format("; allowed: {}", fmt::join(model_dim_keys(), ", ")));
}

ModelDims parse_model_dims(const std::string& text) {
  ModelDims d;
  const std::vector<std::string>& keys = model_dim_keys();
  for (const auto& item : key_value_items(text, "--arch", "layers=32,hidden=4096")) {
    const std::string &k = item.first, &v = item.second;
    if (std::find(keys.begin(), keys.end(), k) == keys.end()) set_model_dim(d, k, 0, "--arch.");  // unknown key
    long long x = 0;
    auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), x);
    if (ec != std::errc() || p != v.data() + v.size()) {
      const auto& table = dim_table();
      const DimKey& dk = *std::find_if(table.begin(), table.end(), [&](const DimKey& t) { return k == t.key; });
      throw InputError("--arch." + k, fmt::format("must be a whole number from {} to {}, got '{}'", dk.lo, dk.hi,
                                                  echo_name(v)));
    }
    set_model_dim(d, k, static_cast<double>(x), "--arch.");
  }
  return d;
}

std::string to_string(const ModelDims& d) {
  std::string s;
  for (const DimKey& k : dim_table())
    if (d.*k.field) s += fmt::format("{}{}={}", s.empty() ? "" : ",", k.key, *(d.*k.field));
  return s;
}

ModelArch model_with_dims(const std::string& lookup_name, const std::string& name, const ModelDims& d,
                          std::vector<std::string>& notes, bool* builtin_out) {
  ModelArch m;
  bool builtin = false;
  try {
    m = resolve_model(lookup_name, "model");
    builtin = true;
  } catch (const InputError&) {
  }
  if (builtin_out) *builtin_out = builtin;
  if (!builtin) {
    m.name = name;
    m.family = to_lower(name).find("llama") != std::string::npos ? "llama" : "gpt";
    notes.push_back("architecture from the row's columns (no built-in model matches the name)");
  }
  const int old_heads = m.heads, old_hidden = m.hidden;
  if (d.layers) m.layers = *d.layers;
  if (d.hidden) m.hidden = *d.hidden;
  if (d.heads) m.heads = *d.heads;
  if (d.vocab) m.vocab = *d.vocab;
  const int experts = d.experts.value_or(0), topk = d.topk.value_or(0);
  if (experts > 0) {
    m.moe.num_experts = experts;
    if (topk > 0) m.moe.top_k = topk;
    if (d.ffn_hidden) m.moe.expert_ffn_hidden = *d.ffn_hidden;
  } else if (d.ffn_hidden) {
    m.ffn_hidden = *d.ffn_hidden;
  }
  if (!builtin) {
    if (!d.ffn_hidden) {
      m.ffn_hidden = 4 * m.hidden;
      notes.push_back("ffn_hidden blank: 4 x hidden (GPT-style)");
    }
    // GPT-style models use a plain 4h MLP; gated MLPs (SwiGLU) use another width.
    m.gated_mlp = !(m.moe.num_experts == 0 && m.ffn_hidden == 4 * m.hidden);
    m.head_dim = m.heads > 0 ? m.hidden / m.heads : 0;
    m.attention = AttentionKind::mha;
  }
  if (d.kv_heads) {
    m.kv_heads = *d.kv_heads;
    if (m.attention != AttentionKind::mla) m.attention = m.kv_heads < m.heads ? AttentionKind::gqa : AttentionKind::mha;
  } else if (!builtin) {
    m.kv_heads = m.heads;
  }
  if (builtin && (m.heads != old_heads || m.hidden != old_hidden) && m.head_dim == old_hidden / std::max(1, old_heads))
    m.head_dim = m.hidden / std::max(1, m.heads);
  if (m.moe.num_experts > 0 && m.moe.first_dense_layers >= m.layers) m.moe.first_dense_layers = 0;
  return m;
}

}  // namespace gpuplan
