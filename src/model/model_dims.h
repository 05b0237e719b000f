#pragma once
// A model's dimensions as stated beside its name: a published table's architecture columns, or
// `train --arch layers=126,hidden=16384,...`. Each stated dimension replaces the built-in model's; a
// name no built-in model matches takes its architecture from the dimensions alone.
#include <optional>
#include <string>
#include <vector>

#include "model/model.h"

namespace gpuplan {

struct ModelDims {
  std::optional<int> layers, hidden, heads, kv_heads, vocab, ffn_hidden;  // ffn_hidden: per expert for MoE
  std::optional<int> experts, topk;  // routed experts and experts per token; 0 experts = dense
  bool any() const { return layers || hidden || heads || kv_heads || vocab || ffn_hidden || experts || topk; }
};

// The keys of ModelDims, in the order `to_string` writes them.
const std::vector<std::string>& model_dim_keys();

// Sets dimension `key` to `v` after checking it lies in the bounds every model input has
// (model/model.h); InputError(field_prefix + key) naming the range otherwise (the arithmetic on an
// out-of-range value would overflow).
void set_model_dim(ModelDims& d, const std::string& key, double v, const std::string& field_prefix);

// "layers=126,hidden=16384,heads=128" -> ModelDims; InputError("--arch.KEY") for an unknown key or a
// value out of range, naming the allowed keys or the range.
ModelDims parse_model_dims(const std::string& text);
std::string to_string(const ModelDims& d);  // the text parse_model_dims reads back

// The model `lookup_name` names (model_registry.h resolve_model), with every stated dimension replacing
// its own; when no built-in model matches, a model named `name` built from the dimensions alone (FFN
// 4 x hidden when blank, GPT-style plain MLP at 4 x hidden and gated otherwise, multi-head attention
// unless fewer KV heads are stated, family llama when the name says so, gpt otherwise). Each such
// choice goes to `notes` in words. `builtin` (when given) says whether a built-in model matched.
ModelArch model_with_dims(const std::string& lookup_name, const std::string& name, const ModelDims& d,
                          std::vector<std::string>& notes, bool* builtin = nullptr);

}  // namespace gpuplan
