#pragma once
// Whether the training framework overlaps the MoE expert all-to-all with computation: Megatron-Core
// 0.14 (2025/09) added it (`--overlap-moe-expert-parallel-comm --delay-wgrad-compute`, off by default),
// and the NeMo container's Megatron-Bridge performance recipes turn it on for some models, GPUs and
// precisions from some container on. The recipes are a table (expert_overlap.cc, sources there and in
// docs/training-model.md, "Expert all-to-all overlap"), read by the container version a run states
// (`NeMo 26.04.01`, a source id `MBRIDGE-26.04.01`).
#include <optional>
#include <string>
#include <string_view>

#include "core/precision.h"

namespace gpuplan {

// A NeMo container version, YY.MM or YY.MM.NN (26.04.01 is the first patch of 26.04).
struct ContainerVersion {
  int year = 0;   // two digits, 25 for 2025
  int month = 0;  // 1-12
  int patch = 0;  // 0 for the month's first container
  auto operator<=>(const ContainerVersion&) const = default;
};

// "26.04", "26.04.01", "v25.11"; nullopt for anything else (a month outside 1-12 included).
std::optional<ContainerVersion> parse_container_version(std::string_view text);
std::string to_string(const ContainerVersion& v);

// The newest container the table knows (its recipes are what `train` assumes by default).
ContainerVersion newest_container_version();

// Whether that container's performance recipe for the model (name or alias, compared without case or
// punctuation: "DeepSeek-V3" = "DeepSeekV3"), accelerator ("b200", as the catalog names it) and
// precision overlaps the expert all-to-all. False for a model, GPU or precision no recipe states.
bool recipe_overlaps_expert_a2a(std::string_view model, std::string_view accelerator, Precision precision,
                                const ContainerVersion& container);

// The container a source id names as its last dash-separated part ("MBRIDGE-26.04.01" -> 26.04.01;
// "NEMOFW-25.02" -> 25.02) for the NeMo Framework and Megatron-Bridge sources (prefixes NEMOFW, NEMO,
// MBRIDGE); nullopt for other sources (another framework's tag is not a NeMo container).
std::optional<ContainerVersion> nemo_container_of_source(std::string_view source_id);

// "on" / "off" -> true / false; InputError(field) naming the allowed values otherwise.
bool parse_on_off(const std::string& text, const std::string& field);

}  // namespace gpuplan
