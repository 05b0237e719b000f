#pragma once
// Which MoE token dispatcher a Megatron-Bridge performance recipe runs (plan key `dispatcher`,
// plan.h MoeDispatcher): the recipes of one NeMo container set it per model, GPU and precision (the
// container table data/recipes/megatron_bridge_moe_dispatcher.yaml, recipe/container_recipes.h).
// `validate` applies it to a row that states its container; everywhere else the plan's key decides
// (default flex).
#include <optional>
#include <string>
#include <string_view>

#include "plan/plan.h"
#include "recipe/container_version.h"

namespace gpuplan {

struct MoeDispatcherReading {
  MoeDispatcher dispatcher = MoeDispatcher::flex;
  std::string why;  // the table row that says so, in words, for a row's assumptions
};

// The recipes' dispatcher for a model (compared without case or punctuation, a table row's model a
// prefix of it: "Qwen3-235B-A22B" is qwen3-235b-a22b), catalog accelerator ("b200"), training precision
// ("bf16", "fp8", "mxfp8", "nvfp4") and container; nullopt where no row covers them (the table's
// default, flex, is the plan's).
std::optional<MoeDispatcherReading> recipe_moe_dispatcher(std::string_view model, std::string_view accelerator,
                                                          std::string_view precision, const ContainerVersion& container);

}  // namespace gpuplan
