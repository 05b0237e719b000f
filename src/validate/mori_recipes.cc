#include "validate/mori_recipes.h"

#include <fmt/format.h>

#include <algorithm>
#include <exception>


#include "core/error.h"
#include "recipe/recipe_catalog.h"
#include "recipe/recipe_dates.h"
#include "recipe/recipe_keys.h"

namespace gpuplan {

namespace {

// The recipe tables as this reader's view (recipe/recipe_loader.h reads and checks the files).
void mori_view(const RecipeTable& t, MoriRecipes& out) {
  for (const Recipe& r : t.recipes) {
    const bool fp8 = r.precision == "fp8";
    switch (r.kind) {
      case RecipeKind::launch:
        out.launch.push_back({fp8, r.valid_from, r.valid_to, r.tp_is_worker, r.ep_is_worker, r.source, r.recipe});
        break;
      case RecipeKind::decode_limits: {
        MoriDecodeRecipe k;
        k.fp8 = fp8;
        k.attention_dp = r.decode.attention_dp == 1;
        k.ep = r.decode.ep;
        k.valid_from = r.valid_from;
        k.valid_to = r.valid_to;
        k.max_running_requests = r.decode.max_batch;
        k.source = r.source;
        k.recipe = r.recipe;
        out.decode.push_back(std::move(k));
        break;
      }
      case RecipeKind::prefill_limits: {
        MoriPrefillRecipe k;
        k.fp8 = fp8;
        k.attention_dp = r.prefill.attention_dp == 1;
        k.valid_from = r.valid_from;
        k.valid_to = r.valid_to;
        k.max_running_requests = r.prefill.max_running_requests;
        k.chunked_prefill_size = r.prefill.chunked_prefill_size;
        k.dispatch_tokens_per_rank = r.prefill.dispatch_tokens_per_rank;
        k.max_prefill_tokens = r.prefill.max_prefill_tokens;
        k.source = r.source;
        k.recipe = r.recipe;
        out.prefill.push_back(std::move(k));
        break;
      }
      case RecipeKind::mtp: {
        MoriMtpRecipe k;
        k.fp8 = fp8;
        k.isl = r.isl;
        k.osl = r.osl;
        auto shape = [](const RecipePool& p) {
          return MoriWorkerShape{p.workers, p.gpus_per_worker, p.ep == 1, p.attention_dp == 1};
        };
        k.prefill = shape(r.prefill);
        k.decode = shape(r.decode);
        k.concurrencies = r.concurrencies;
        k.valid_from = r.valid_from;
        k.valid_to = r.valid_to;
        k.mtp_draft_tokens = r.mtp_draft_tokens;
        k.commit = r.commit;
        k.recipe = r.recipe;
        out.mtp.push_back(std::move(k));
        break;
      }
      default: break;
    }
  }
}

void expect_schema(const RecipeTable& t, const char* schema) {
  if (t.schema != schema)
    throw InputError(t.origin + ": schema", std::string("must be ") + schema + ", got '" + t.schema + "'");
}

}  // namespace

MoriRecipes parse_mori_recipes(const std::string& text, const std::string& origin) {
  const RecipeTable t = load_recipe_table(text, origin);
  expect_schema(t, kMoriSchema);
  MoriRecipes out;
  mori_view(t, out);
  return out;
}

void parse_mori_mtp_recipes(const std::string& text, const std::string& origin, MoriRecipes& recipes) {
  const RecipeTable t = load_recipe_table(text, origin);
  expect_schema(t, kMoriMtpSchema);
  mori_view(t, recipes);
}

const MoriRecipes& builtin_mori_recipes() {
  static const MoriRecipes recipes = [] {
    MoriRecipes r;
    mori_view(builtin_recipe_table("recipes/inferencex_mori.yaml"), r);
    mori_view(builtin_recipe_table("recipes/inferencex_mori_mtp.yaml"), r);
    return r;
  }();
  return recipes;
}

int match_mori_mtp_draft_tokens(const MoriRecipes& recipes, const std::string& date, bool fp8, long long isl,
                                long long osl, const MoriWorkerShape& prefill, const MoriWorkerShape& decode,
                                long long concurrency, std::vector<const MoriMtpRecipe*>* matched) {
  if (matched) matched->clear();
  if (!is_recipe_date(date)) return 0;
  int found = 0;
  bool disagree = false;
  for (const MoriMtpRecipe& r : recipes.mtp) {
    if (r.fp8 != fp8 || r.isl != isl || r.osl != osl || !(r.prefill == prefill) || !(r.decode == decode) ||
        !recipe_date_in_range(date, r.valid_from, r.valid_to) ||
        std::find(r.concurrencies.begin(), r.concurrencies.end(), concurrency) == r.concurrencies.end())
      continue;
    if (matched) matched->push_back(&r);
    if (found && found != r.mtp_draft_tokens) disagree = true;
    found = r.mtp_draft_tokens;
  }
  return disagree ? 0 : found;
}

const MoriDecodeRecipe* match_mori_decode_recipe(const MoriRecipes& recipes, const std::string& date, bool fp8,
                                                 bool attention_dp, bool ep) {
  if (!is_recipe_date(date)) return nullptr;
  for (const MoriDecodeRecipe& r : recipes.decode)
    if (r.fp8 == fp8 && r.attention_dp == attention_dp && recipe_key_matches(r.ep, ep) &&
        recipe_date_in_range(date, r.valid_from, r.valid_to))
      return &r;
  return nullptr;
}

const MoriLaunchRecipe* match_mori_launch_recipe(const MoriRecipes& recipes, const std::string& date, bool fp8) {
  if (!is_recipe_date(date)) return nullptr;
  for (const MoriLaunchRecipe& r : recipes.launch)
    if (r.fp8 == fp8 && recipe_date_in_range(date, r.valid_from, r.valid_to)) return &r;
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
