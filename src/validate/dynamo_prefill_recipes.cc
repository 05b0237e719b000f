#include "validate/dynamo_prefill_recipes.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "core/embedded_data.h"
#include "core/error.h"
#include "core/yaml_reader.h"
#include "validate/recipe_dates.h"
#include "validate/recipe_keys.h"

namespace gpuplan {

DynamoPrefillRecipes parse_dynamo_prefill_recipes(const std::string& text, const std::string& origin) {
  YamlMap root(parse_yaml(text, origin), origin);
  if (const std::string s = root.str("schema"); s != "gpuplan.dynamo_prefill_recipes/v1")
    throw InputError(origin + ": schema", "must be gpuplan.dynamo_prefill_recipes/v1, got '" + s + "'");
  DynamoPrefillRecipes out;
  std::vector<std::string> where;
  for (YamlMap r : root.map_list("recipes")) {
    DynamoPrefillRecipe k;
    const std::string engine = r.str("engine");
    if (engine != "sglang" && engine != "trtllm")
      throw InputError(r.path() + ".engine", "must be sglang or trtllm, got '" + engine + "'");
    k.trtllm = engine == "trtllm";
    k.gpu = r.str("gpu");
    if (k.gpu.empty()) throw InputError(r.path() + ".gpu", "must name the rows' gpu cell, got ''");
    const std::string precision = r.str("precision");
    if (precision != "fp4" && precision != "fp8")
      throw InputError(r.path() + ".precision", "must be fp4 or fp8, got '" + precision + "'");
    k.fp4 = precision == "fp4";
    k.isl = r.integer_in("isl", 1, 10'000'000);
    k.prefill_tp = static_cast<int>(r.integer_in("prefill_tp", 1, 4096));
    k.prefill_attention_dp = r.boolean("prefill_attention_dp");
    k.decode_attention_dp = read_recipe_either(r, "decode_attention_dp");
    k.mtp = read_recipe_either(r, "mtp");
    k.valid_from = r.str("valid_from");
    k.valid_to = r.str("valid_to");
    for (const auto& [key, d] : {std::pair{"valid_from", &k.valid_from}, std::pair{"valid_to", &k.valid_to}})
      if (!is_recipe_date(*d)) throw InputError(r.path() + "." + key, "must be YYYY-MM-DD, got '" + *d + "'");
    if (k.valid_to < k.valid_from)
      throw InputError(r.path() + ".valid_to", "must not be before valid_from " + k.valid_from + ", got " + k.valid_to);
    k.max_batch = r.integer_in("max_batch", 1, 1'000'000);
    k.max_tokens = r.integer_in("max_tokens", 1, 16'777'216);
    k.fp8_gemm_triton = read_recipe_fp8_gemm_triton(r, k.fp4);
    k.source = r.str("source");
    if (k.source.find('/') == std::string::npos)
      throw InputError(r.path() + ".source", "must name a repository as owner/name, got '" + k.source + "'");
    if (r.has("commit")) {
      k.commit = r.str("commit");
      if (k.commit.size() != 40 || !std::all_of(k.commit.begin(), k.commit.end(), [](char c) {
            return std::isxdigit(static_cast<unsigned char>(c)) != 0;
          }))
        throw InputError(r.path() + ".commit", "must be 40 hex digits, got '" + k.commit + "'");
    }
    k.recipe = r.str("recipe");
    if (k.recipe.empty()) throw InputError(r.path() + ".recipe", "must name the recipe path or setting, got ''");
    r.reject_unknown_keys();
    // One row, one entry: an entry whose keys and dates meet an earlier one's would make the match
    // depend on the file's order.
    for (size_t j = 0; j < out.recipes.size(); ++j) {
      const DynamoPrefillRecipe& o = out.recipes[j];
      if (o.trtllm == k.trtllm && o.gpu == k.gpu && o.fp4 == k.fp4 && o.isl == k.isl && o.prefill_tp == k.prefill_tp &&
          o.prefill_attention_dp == k.prefill_attention_dp &&
          recipe_keys_meet(o.decode_attention_dp, k.decode_attention_dp) && recipe_keys_meet(o.mtp, k.mtp) &&
          recipe_date_ranges_meet(o.valid_from, o.valid_to, k.valid_from, k.valid_to))
        throw InputError(r.path(), fmt::format("matches the same rows as {} (engine, gpu, precision, isl, prefill_tp, "
                                               "attention-DP, mtp and dates meet): one row, one entry",
                                               where[j]));
    }
    where.push_back(r.path());
    out.recipes.push_back(std::move(k));
  }
  if (out.recipes.empty()) throw InputError(origin + ": recipes", "must list at least one recipe");
  root.reject_unknown_keys();
  return out;
}

const DynamoPrefillRecipes& builtin_dynamo_prefill_recipes() {
  static const DynamoPrefillRecipes recipes = [] {
    constexpr const char* kPath = "recipes/dynamo_prefill.yaml";
    for (const auto& f : embedded_data_files())
      if (f.path == kPath) return parse_dynamo_prefill_recipes(std::string(f.text), kPath);
    throw InputError(kPath, "not embedded in this build");
  }();
  return recipes;
}

const DynamoPrefillRecipe* match_dynamo_prefill_recipe(const DynamoPrefillRecipes& recipes,
                                                       const DynamoPrefillQuery& q) {
  if (!is_recipe_date(q.date)) return nullptr;
  for (const DynamoPrefillRecipe& r : recipes.recipes) {
    if (r.trtllm != q.trtllm || r.gpu != q.gpu || r.fp4 != q.fp4 || r.isl != q.isl || r.prefill_tp != q.prefill_tp ||
        r.prefill_attention_dp != q.prefill_attention_dp)
      continue;
    if (!recipe_key_matches(r.decode_attention_dp, q.decode_attention_dp) || !recipe_key_matches(r.mtp, q.mtp)) continue;
    if (!recipe_date_in_range(q.date, r.valid_from, r.valid_to)) continue;
    return &r;
  }
  return nullptr;
}

}  // namespace gpuplan
