#include "validate/dynamo_prefill_recipes.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "core/error.h"
#include "recipe/recipe_catalog.h"
#include "recipe/recipe_dates.h"
#include "recipe/recipe_keys.h"

namespace gpuplan {

namespace {

// The recipe table as this reader's view (recipe/recipe_loader.h reads and checks the file).
DynamoPrefillRecipes prefill_view(const RecipeTable& t) {
  if (t.schema != kDynamoPrefillSchema)
    throw InputError(t.origin + ": schema", std::string("must be ") + kDynamoPrefillSchema + ", got '" + t.schema + "'");
  DynamoPrefillRecipes out;
  for (const Recipe& r : t.recipes) {
    DynamoPrefillRecipe k;
    k.trtllm = r.engine == "dynamo+tensorrt-llm";
    k.gpu = r.gpu;
    k.fp4 = r.precision == "fp4";
    k.isl = r.isl;
    k.prefill_tp = r.prefill.gpus_per_worker;
    k.prefill_attention_dp = r.prefill.attention_dp == 1;
    k.decode_attention_dp = r.decode.attention_dp;
    k.mtp = r.mtp;
    k.valid_from = r.valid_from;
    k.valid_to = r.valid_to;
    k.max_batch = r.prefill.max_batch;
    k.max_tokens = r.prefill.max_tokens;
    k.fp8_gemm_triton = r.prefill.fp8_gemm_triton;
    k.source = r.source;
    k.commit = r.commit;
    k.recipe = r.recipe;
    out.recipes.push_back(std::move(k));
  }
  return out;
}

}  // namespace

DynamoPrefillRecipes parse_dynamo_prefill_recipes(const std::string& text, const std::string& origin) {
  return prefill_view(load_recipe_table(text, origin));
}

const DynamoPrefillRecipes& builtin_dynamo_prefill_recipes() {
  static const DynamoPrefillRecipes recipes = prefill_view(builtin_recipe_table("recipes/dynamo_prefill.yaml"));
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
