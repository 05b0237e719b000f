#pragma once
// What a training framework's recipes of one container set for the MoE expert all-to-all overlap
// (Megatron-Core `--overlap-moe-expert-parallel-comm`): the ep_overlap tables of the built-in recipes
// (data/recipes/megatron_bridge_ep_overlap.yaml, docs/recipes.md). `validate` applies them to a row that
// states its container; everywhere else the framework release's general rule decides
// (training/expert_overlap.h).
#include <optional>
#include <string>
#include <string_view>

#include "recipe/container_version.h"
#include "recipe/recipe.h"

namespace gpuplan {

struct EpOverlapReading {
  bool overlaps = false;
  const Recipe* row = nullptr;  // the row that says so; nullptr: the table's default for a model it names
  std::string table;            // the file, relative to data/
};

// The recipes' setting for a model (compared without case or punctuation, a row's model a prefix of it:
// "DeepSeekV3" and "DeepSeek-V3-671B" are deepseek-v3), catalog accelerator ("h100-sxm"), training
// precision ("bf16", "fp8", "mxfp8", "nvfp4") and container. nullopt where no table names the model, or
// the container lies outside the containers a table read.
std::optional<EpOverlapReading> recipe_ep_overlap(std::string_view model, std::string_view accelerator,
                                                  std::string_view precision, const ContainerVersion& container);

}  // namespace gpuplan
