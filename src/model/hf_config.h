#pragma once
// Internal to the Hugging Face config.json import (hf_import.cc, hf_generic.cc): typed, range-checked
// reads of one config object, and the generic decoder reader.
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "core/error.h"
#include "model/model.h"

namespace gpuplan::hf {

using nlohmann::json;

// One config object (the root, or the text_config of a multimodal config): every read names the key
// and the file in its error.
class Config {
 public:
  Config(const json& j, std::string origin) : j_(j), origin_(std::move(origin)) {}
  bool has(const std::string& k) const { return j_.contains(k) && !j_[k].is_null(); }
  int req(const std::string& k) const {
    if (!has(k)) throw InputError(k, "missing required key '" + k + "' in " + origin_);
    return num(k);
  }
  int opt(const std::string& k, int fallback) const { return has(k) ? num(k) : fallback; }
  // A required key whose value must lie in [lo, hi] (a 0 head count or FFN width is not a model).
  int req_in(const std::string& k, int lo, int hi) const { return in_range(k, req(k), lo, hi); }
  int opt_in(const std::string& k, int fallback, int lo, int hi) const {
    return has(k) ? in_range(k, num(k), lo, hi) : fallback;
  }
  bool flag(const std::string& k, bool fallback) const {
    if (!has(k)) return fallback;
    if (!j_[k].is_boolean()) throw InputError(k, "must be true or false in " + origin_);
    return j_[k].get<bool>();
  }
  const json& raw() const { return j_; }
  const std::string& origin() const { return origin_; }

 private:
  int num(const std::string& k) const {
    const json& v = j_[k];
    if (!v.is_number_integer() || v.get<long long>() < 0 || v.get<long long>() > (1LL << 31) - 1)
      throw InputError(k, "must be a non-negative integer in " + origin_);
    return v.get<int>();
  }
  int in_range(const std::string& k, int v, int lo, int hi) const {
    if (v < lo || v > hi)
      throw InputError(k, "must be between " + std::to_string(lo) + " and " + std::to_string(hi) + ", got " +
                              std::to_string(v) + " in " + origin_);
    return v;
  }
  const json& j_;
  std::string origin_;
};

// The model types read by a dedicated reader in hf_import.cc (their transformers configuration classes).
const std::vector<std::string>& dedicated_model_types();
// The model types the generic reader knows the conventions of (defaults, layer pattern, block layout).
const std::vector<std::string>& generic_model_types();

// Any other decoder-only config: the dimensions under their usual spellings, routed and shared experts,
// sliding windows with their layer pattern, tied embeddings. A key that changes the counts and cannot be
// mapped -> InputError naming it; m.unmapped lists what was read under an assumption. `body` is the
// decoder's object (the root, or text_config of a multimodal config).
ModelArch import_generic(const json& root, const json& body, const std::string& type, const std::string& origin);

// Chunked local attention (Llama 4's iRoPE): the RoPE layers attend within aligned chunks of
// attention_chunk_size tokens, the NoPE layers (where no_rope_layers lists 0, else every
// no_rope_layer_interval-th, 4 by default, as transformers' Llama4TextConfig) over the whole context.
// Sets m's window (ModelArch::chunked_window); a config that also states a sliding window -> InputError.
void read_attention_chunk(const Config& c, const json& body, ModelArch& m);

// Keys of `body` (and of the root, when `nested`: body is its text_config) that no reader maps and
// that are not known to leave the counts unchanged: appended to m.unmapped, each named.
void note_unmapped_keys(const json& root, const json& body, bool nested, ModelArch& m);

}  // namespace gpuplan::hf
