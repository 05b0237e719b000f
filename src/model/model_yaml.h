#pragma once
// Reading model lists in the built-in YAML form (data/models/*.yaml), and the built-in names.
#include <string>
#include <vector>

#include "model/model.h"

namespace gpuplan {

// Parses `models: [...]` YAML with strict keys mirroring ModelArch; errors name `origin` and the key.
std::vector<ModelArch> parse_models_yaml(const std::string& text, const std::string& origin);

// Names of every built-in model (and their aliases when with_aliases), for listings and suggestions.
std::vector<std::string> builtin_model_names(bool with_aliases);

}  // namespace gpuplan
