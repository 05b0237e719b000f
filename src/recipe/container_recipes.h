#pragma once
// A training recipe's setting by NeMo container (the container tables of the built-in recipes:
// data/recipes/megatron_bridge_ep_overlap.yaml, megatron_bridge_moe_dispatcher.yaml; docs/recipes.md).
#include <optional>
#include <string>
#include <string_view>

#include "recipe/container_version.h"
#include "recipe/recipe.h"

namespace gpuplan {

struct ContainerRecipe {
  const Recipe* row = nullptr;  // the row that covers the question; nullptr: the table's default
  int setting = -1;             // the row's (or the default's): 1 on / alltoall, 0 off / flex
  std::string table;            // the file, relative to data/
};

// The setting of the `schema`'s tables for a model (compared without case or punctuation, a row's model
// a prefix of it: "DeepSeekV3" and "DeepSeek-V3-671B" are deepseek-v3), catalog accelerator
// ("h100-sxm"), training precision ("bf16", "fp8", "mxfp8", "nvfp4") and container: the row that covers
// them, else the table's default for a model its rows name. nullopt where no table names the model, or
// the container lies outside the containers a table read.
std::optional<ContainerRecipe> container_recipe(const char* schema, std::string_view model, std::string_view accelerator,
                                                std::string_view precision, const ContainerVersion& container);

}  // namespace gpuplan
