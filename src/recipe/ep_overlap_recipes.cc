#include "recipe/ep_overlap_recipes.h"

#include "core/suggest.h"
#include "recipe/recipe_catalog.h"
#include "recipe/recipe_loader.h"

namespace gpuplan {

namespace {

bool names_model(const Recipe& r, const std::string& key) {
  const std::string m = normalize_name(r.model);
  return !m.empty() && key.rfind(m, 0) == 0;
}

}  // namespace

std::optional<EpOverlapReading> recipe_ep_overlap(std::string_view model, std::string_view accelerator,
                                                  std::string_view precision, const ContainerVersion& container) {
  const std::string key = normalize_name(model);
  for (const RecipeTable* t : builtin_recipe_tables(kEpOverlapSchema)) {
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
      return EpOverlapReading{r.ep_overlap == 1, &r, t->origin};
    }
    if (named) return EpOverlapReading{t->recipe_default == 1, nullptr, t->origin};
  }
  return std::nullopt;
}

}  // namespace gpuplan
