#pragma once
// Whether a training step overlaps the MoE expert all-to-all with computation (Megatron-Core batch-level
// overlap, `--overlap-moe-expert-parallel-comm --delay-wgrad-compute`: one micro-batch's dispatch and
// combine behind another's attention and expert compute).
//  - The general rule (`train`, and every row that states no NeMo container): overlapped where the
//    framework release has it (Megatron-Core 0.14, NeMo 25.09 on; training/framework_release.h) and the
//    plan spreads a MoE model's experts over EP > 1, whatever the model (built-in or --arch / config.json).
//  - A row that states its NeMo container (`MBRIDGE-26.04.01`) ran that container's Megatron-Bridge
//    performance recipe, which sets it per model, GPU and precision: the recipe tables decide
//    (data/recipes/megatron_bridge_ep_overlap.yaml, src/recipe/ep_overlap_recipes.h).
// `--ep-overlap on|off` (and a --plan ep_overlap key) states it outright.
#include <optional>
#include <string>
#include <string_view>

#include "core/precision.h"
#include "model/model.h"
#include "plan/plan.h"
#include "recipe/container_version.h"
#include "training/framework_release.h"

namespace gpuplan {

// The general rule: a MoE model, EP > 1 and a release that has the overlap.
bool release_overlaps_expert_a2a(const ModelArch& m, const TrainingPlan& p, const FrameworkRelease& r);

// What decided a row's overlap, and the setting.
struct ExpertOverlapChoice {
  bool overlap = false;
  std::string why;  // in words, for the row's assumptions
};

// The row's overlap: the recipe of the row's NeMo container where a recipe table covers the model and
// that container (`container`; nullopt: none stated), else the general rule for `release`.
// `model_name` as the row writes it, `accelerator` the catalog's ("b200").
ExpertOverlapChoice expert_a2a_overlap_for_row(const ModelArch& m, const TrainingPlan& p, const FrameworkRelease& release,
                                               const std::optional<ContainerVersion>& container,
                                               std::string_view model_name, std::string_view accelerator,
                                               Precision precision);

// The container a source id names as its last dash-separated part ("MBRIDGE-26.04.01" -> 26.04.01;
// "NEMOFW-25.02" -> 25.02) for the NeMo Framework and Megatron-Bridge sources (prefixes NEMOFW, NEMO,
// MBRIDGE); nullopt for other sources (another framework's tag is not a NeMo container).
std::optional<ContainerVersion> nemo_container_of_source(std::string_view source_id);

// The release a source id's version tag dates: a NeMo container as above, or a DGX Cloud benchmarking
// recipe version (`DGXC-v25.05.04`: YY.MM.NN, built on the NeMo containers of that month); nullopt otherwise.
std::optional<ContainerVersion> release_tag_of_source(std::string_view source_id);

// "on" / "off" -> true / false; InputError(field) naming the allowed values otherwise.
bool parse_on_off(const std::string& text, const std::string& field);

}  // namespace gpuplan
