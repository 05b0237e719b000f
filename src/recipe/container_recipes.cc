#include "recipe/container_recipes.h"

#include "core/suggest.h"
#include "recipe/recipe_catalog.h"
#include "recipe/recipe_loader.h"

namespace gpuplan {

namespace {

bool names_model(const Recipe& r, const std::string& key) {
  const std::string m = normalize_name(r.model);
  return !m.empty() && key.rfind(m, 0) == 0;
}

int setting_of(const Recipe& r) { return r.kind == RecipeKind::ep_overlap ? r.ep_overlap : r.moe_alltoall; }

}  // namespace

std::optional<ContainerRecipe> container_recipe(const char* schema, std::string_view model, std::string_view accelerator,
                                                std::string_view precision, const ContainerVersion& container) {
  const std::string key = normalize_name(model);
  for (const RecipeTable* t : builtin_recipe_tables(schema)) {
    if (t->containers.empty()) continue;
    const ContainerVersion first = *parse_container_version(t->containers.front().first),
                           newest = *parse_container_version(t->containers.back().first);
    if (container < first || newest < container) continue;
    bool named = false;
    for (const Recipe& r : t->recipes) {
      if (!names_model(r, key)) continue;
      named = true;
      if (r.system != accelerator || r.precision != precision) continue;
      if (container < *parse_container_version(r.container_from)) continue;
      if (!r.container_until.empty() && !(container < *parse_container_version(r.container_until))) continue;
      return ContainerRecipe{&r, setting_of(r), t->origin};
    }
    if (named) return ContainerRecipe{nullptr, t->recipe_default, t->origin};
  }
  return std::nullopt;
}

}  // namespace gpuplan
