#include "recipe/ep_overlap_recipes.h"

#include "recipe/container_recipes.h"
#include "recipe/recipe_loader.h"

namespace gpuplan {

std::optional<EpOverlapReading> recipe_ep_overlap(std::string_view model, std::string_view accelerator,
                                                  std::string_view precision, const ContainerVersion& container) {
  const auto c = container_recipe(kEpOverlapSchema, model, accelerator, precision, container);
  if (!c) return std::nullopt;
  return EpOverlapReading{c->setting == 1, c->row, c->table};
}

}  // namespace gpuplan
