#pragma once
// The built-in recipes: every data/recipes/*.yaml compiled into the binary (tools/embed_data.cc),
// read once by load_recipe_table, each recipe with a unique name.
#include <string>
#include <vector>

#include "recipe/recipe_loader.h"

namespace gpuplan {

// One table of the built-in recipes by its path relative to data/ ("recipes/dynamo_prefill.yaml");
// InputError when the build embeds no such file.
const RecipeTable& builtin_recipe_table(const std::string& path);

// Every built-in table of that schema (recipe_loader.h's k*Schema), in path order.
std::vector<const RecipeTable*> builtin_recipe_tables(const std::string& schema);

// Every built-in recipe, table by table in path order, with unique names: a recipe's `name`, else
// default_recipe_name(); a name already taken gets its valid_from ("@2026-03-12"), then "#2", "#3".
const std::vector<Recipe>& builtin_recipes();

// The built-in recipe of that name, or nullptr.
const Recipe* find_recipe(const std::string& name);

// The recipe of that name; an InputError (naming `field`) with the closest names otherwise.
const Recipe& recipe_by_name(const std::string& name, const std::string& field = "NAME");

}  // namespace gpuplan
