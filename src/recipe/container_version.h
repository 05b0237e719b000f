#pragma once
// A NeMo / Megatron-Bridge container version, YY.MM or YY.MM.NN (26.04.01 is the first patch of 26.04):
// how the framework's releases are named (NGC `nvcr.io/nvidia/nemo:25.11`), and how recipe tables
// (data/recipes/megatron_bridge_ep_overlap.yaml) and `train --framework-release` state one.
#include <optional>
#include <string>
#include <string_view>

namespace gpuplan {

struct ContainerVersion {
  int year = 0;   // two digits, 25 for 2025
  int month = 0;  // 1-12
  int patch = 0;  // 0 for the month's first container
  auto operator<=>(const ContainerVersion&) const = default;
  int full_year() const { return 2000 + year; }
};

// "26.04", "26.04.01", "v25.11"; nullopt for anything else (a month outside 1-12 included).
std::optional<ContainerVersion> parse_container_version(std::string_view text);
std::string to_string(const ContainerVersion& v);

}  // namespace gpuplan
