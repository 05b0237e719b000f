#pragma once
// The one reader of the recipe tables (data/recipes/*.yaml; schema in docs/recipes.md): every file,
// whatever its layout, becomes a list of Recipe values. A missing, unknown or out-of-range field is an
// InputError naming its path and the allowed values; two rows of one table that would match the same
// benchmark row are an error naming both.
#include <string>
#include <utility>
#include <vector>

#include "recipe/recipe.h"

namespace YAML {
class Node;
}

namespace gpuplan {

// The layouts a recipe file may have (its `schema` key).
inline constexpr const char* kDynamoDecodeSchema = "gpuplan.dynamo_decode_recipes/v1";
inline constexpr const char* kDynamoPrefillSchema = "gpuplan.dynamo_prefill_recipes/v1";
inline constexpr const char* kMoriSchema = "gpuplan.inferencex_mori_recipes/v1";
inline constexpr const char* kMoriMtpSchema = "gpuplan.inferencex_mori_mtp/v1";
inline constexpr const char* kScriptSchema = "gpuplan.inferencex_scripts/v1";
inline constexpr const char* kEpOverlapSchema = "gpuplan.megatron_bridge_ep_overlap/v1";
inline constexpr const char* kMoeDispatcherSchema = "gpuplan.megatron_bridge_moe_dispatcher/v1";

struct RecipeTable {
  std::string origin;  // the file's name as given
  std::string schema;
  // The file-level defaults its rows take where they state none (decode tables: source, commit, dates).
  std::string source, commit, valid_from, valid_to;
  std::vector<Recipe> recipes;  // in the file's order; names not yet unique (recipe_catalog.h makes them so)
  // Container tables (ep_overlap, moe_dispatcher): the containers read (YY.MM[.NN], ascending; each with
  // the framework release tag it runs) and what a model the rows name runs where no row covers its GPU,
  // precision and container (`recipe_default`, as the rows' setting: 0 off / flex, 1 on / alltoall).
  std::vector<std::pair<std::string, std::string>> containers;
  int recipe_default = -1;
};

// Reads one recipe file's text. `origin` names it in errors and in each recipe's `table`.
RecipeTable load_recipe_table(const std::string& text, const std::string& origin);
// The same of a parsed document.
RecipeTable load_recipe_table(const YAML::Node& root, const std::string& origin);

// A recipe's default name, from what it states (its recipe path, kind, shape and first date).
std::string default_recipe_name(const Recipe& r);

}  // namespace gpuplan
