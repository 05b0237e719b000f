#pragma once
// gpuplan recipe list | gpuplan recipe show NAME: the built-in deployment recipes (data/recipes/*.yaml,
// docs/recipes.md), or one with every field it states and its source.
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <string>

#include "api/options.h"
#include "api/output.h"
#include "recipe/recipe.h"

namespace gpuplan::api {

struct RecipeRequest : RequestBase {
  bool list = false;  // the `list` sub-command ran; else `show`
  std::string name;   // show: the recipe's name
  std::string kind;   // list: only recipes of this kind (deployment, prefill_limits, ...); empty: all
};

void add_recipe_options(CLI::App& app, RecipeRequest& req);

// The table or the recipe: the document (gpuplan.recipe_list/v1, gpuplan.recipe/v1) or the text.
// An unknown name is an InputError listing the closest names.
int recipe(RecipeRequest req, Output& output);

// One recipe as JSON: every field, those it leaves open as null.
nlohmann::json recipe_json(const Recipe& r);

}  // namespace gpuplan::api
