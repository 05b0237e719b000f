#include "training/moe_dispatcher.h"

#include <fmt/format.h>

#include "recipe/container_recipes.h"
#include "recipe/recipe_loader.h"

namespace gpuplan {

std::optional<MoeDispatcherReading> recipe_moe_dispatcher(std::string_view model, std::string_view accelerator,
                                                          std::string_view precision, const ContainerVersion& container) {
  // A row covers it, or the table's default (flex, the plan's own) stands: no reading.
  const auto c = container_recipe(kMoeDispatcherSchema, model, accelerator, precision, container);
  if (!c || !c->row) return std::nullopt;
  const MoeDispatcher d = c->setting == 1 ? MoeDispatcher::alltoall : MoeDispatcher::flex;
  return MoeDispatcherReading{d, fmt::format("MoE token dispatcher {}: the NeMo {} recipe for this model, GPU and "
                                             "precision; {} ({})",
                                             to_string(d), to_string(container), c->row->recipe, c->row->where)};
}

}  // namespace gpuplan
