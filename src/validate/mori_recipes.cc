#include "validate/mori_recipes.h"

#include <fmt/format.h>


#include "core/embedded_data.h"
#include "core/error.h"
#include "core/yaml_reader.h"
#include "validate/recipe_dates.h"

namespace gpuplan {

namespace {

// The fields decode and prefill entries share: precision, attention_dp, dates, source, recipe.
struct MoriRecipeCommon {
  bool fp8 = false, attention_dp = false;
  std::string valid_from, valid_to, source, recipe;
};

MoriRecipeCommon mori_recipe_common(YamlMap& r) {
  MoriRecipeCommon c;
  const std::string precision = r.str("precision");
  if (precision != "fp4" && precision != "fp8")
    throw InputError(r.path() + ".precision", "must be fp4 or fp8, got '" + precision + "'");
  c.fp8 = precision == "fp8";
  c.attention_dp = r.boolean("attention_dp");
  c.valid_from = r.str("valid_from");
  if (!is_recipe_date(c.valid_from))
    throw InputError(r.path() + ".valid_from", "must be YYYY-MM-DD, got '" + c.valid_from + "'");
  if (r.has("valid_to")) {
    c.valid_to = r.str("valid_to");
    if (!is_recipe_date(c.valid_to))
      throw InputError(r.path() + ".valid_to", "must be YYYY-MM-DD, got '" + c.valid_to + "'");
    if (c.valid_to < c.valid_from)
      throw InputError(r.path() + ".valid_to", "must not be before valid_from " + c.valid_from + ", got " + c.valid_to);
  }
  c.source = r.str("source");
  if (c.source.find('/') == std::string::npos)
    throw InputError(r.path() + ".source", "must name a repository as owner/name, got '" + c.source + "'");
  c.recipe = r.str("recipe");
  if (c.recipe.empty()) throw InputError(r.path() + ".recipe", "must name the files or pull request, got ''");
  return c;
}

}  // namespace

MoriRecipes parse_mori_recipes(const std::string& text, const std::string& origin) {
  YamlMap root(parse_yaml(text, origin), origin);
  if (const std::string s = root.str("schema"); s != "gpuplan.inferencex_mori_recipes/v1")
    throw InputError(origin + ": schema", "must be gpuplan.inferencex_mori_recipes/v1, got '" + s + "'");
  MoriRecipes out;
  std::vector<std::string> where;
  for (YamlMap r : root.map_list("decode")) {
    const MoriRecipeCommon c = mori_recipe_common(r);
    MoriDecodeRecipe k;
    k.fp8 = c.fp8;
    k.attention_dp = c.attention_dp;
    k.ep = r.boolean("ep");
    k.valid_from = c.valid_from;
    k.valid_to = c.valid_to;
    k.max_running_requests = r.integer_in("max_running_requests", 0, 1'000'000);
    k.source = c.source;
    k.recipe = c.recipe;
    r.reject_unknown_keys();
    for (size_t j = 0; j < out.decode.size(); ++j) {
      const MoriDecodeRecipe& o = out.decode[j];
      if (o.fp8 == k.fp8 && o.attention_dp == k.attention_dp && o.ep == k.ep &&
          recipe_date_ranges_meet(o.valid_from, o.valid_to, k.valid_from, k.valid_to))
        throw InputError(r.path(), fmt::format("matches the same rows as {} (precision, attention_dp, ep and dates "
                                               "meet): one row, one entry",
                                               where[j]));
    }
    where.push_back(r.path());
    out.decode.push_back(std::move(k));
  }
  where.clear();
  for (YamlMap r : root.map_list("prefill")) {
    const MoriRecipeCommon c = mori_recipe_common(r);
    MoriPrefillRecipe k;
    k.fp8 = c.fp8;
    k.attention_dp = c.attention_dp;
    k.valid_from = c.valid_from;
    k.valid_to = c.valid_to;
    k.max_running_requests = r.integer_in("max_running_requests", 1, 1'000'000);
    const bool chunk = r.has("chunked_prefill_size"), dispatch = r.has("dispatch_tokens_per_rank");
    if (chunk == dispatch)
      throw InputError(r.path() + ".chunked_prefill_size",
                       "exactly one of chunked_prefill_size and dispatch_tokens_per_rank must be given");
    if (chunk) k.chunked_prefill_size = r.integer_in("chunked_prefill_size", 1, 16'777'216);
    if (dispatch) k.dispatch_tokens_per_rank = r.integer_in("dispatch_tokens_per_rank", 1, 16'777'216);
    k.max_prefill_tokens = r.integer_in("max_prefill_tokens", 1, 16'777'216);
    k.source = c.source;
    k.recipe = c.recipe;
    r.reject_unknown_keys();
    for (size_t j = 0; j < out.prefill.size(); ++j) {
      const MoriPrefillRecipe& o = out.prefill[j];
      if (o.fp8 == k.fp8 && o.attention_dp == k.attention_dp &&
          recipe_date_ranges_meet(o.valid_from, o.valid_to, k.valid_from, k.valid_to))
        throw InputError(r.path(), fmt::format("matches the same rows as {} (precision, attention_dp and dates "
                                               "meet): one row, one entry",
                                               where[j]));
    }
    where.push_back(r.path());
    out.prefill.push_back(std::move(k));
  }
  if (out.decode.empty()) throw InputError(origin + ": decode", "must list at least one entry");
  if (out.prefill.empty()) throw InputError(origin + ": prefill", "must list at least one entry");
  root.reject_unknown_keys();
  return out;
}

const MoriRecipes& builtin_mori_recipes() {
  static const MoriRecipes recipes = [] {
    constexpr const char* kPath = "recipes/inferencex_mori.yaml";
    for (const auto& f : embedded_data_files())
      if (f.path == kPath) return parse_mori_recipes(std::string(f.text), kPath);
    throw InputError(kPath, "not embedded in this build");
  }();
  return recipes;
}

const MoriDecodeRecipe* match_mori_decode_recipe(const MoriRecipes& recipes, const std::string& date, bool fp8,
                                                 bool attention_dp, bool ep) {
  if (!is_recipe_date(date)) return nullptr;
  for (const MoriDecodeRecipe& r : recipes.decode)
    if (r.fp8 == fp8 && r.attention_dp == attention_dp && r.ep == ep &&
        recipe_date_in_range(date, r.valid_from, r.valid_to))
      return &r;
  return nullptr;
}

const MoriPrefillRecipe* match_mori_prefill_recipe(const MoriRecipes& recipes, const std::string& date, bool fp8,
                                                   bool attention_dp) {
  if (!is_recipe_date(date)) return nullptr;
  for (const MoriPrefillRecipe& r : recipes.prefill)
    if (r.fp8 == fp8 && r.attention_dp == attention_dp && recipe_date_in_range(date, r.valid_from, r.valid_to))
      return &r;
  return nullptr;
}

}  // namespace gpuplan
