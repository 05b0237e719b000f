#pragma once
// Strict readers of one catalog entry each (data/catalog/*.yaml schema). Units are converted to SI
// here, once: TFLOP/s x 1e12, GB x 1e9, TB/s x 1e12, GB/s x 1e9, kW x 1e3, us x 1e-6.
#include <string>

#include "catalog/accelerator.h"
#include "catalog/network.h"
#include "catalog/system.h"

namespace gpuplan {
class YamlMap;

// Each reads one list entry, rejects unknown keys (with path and suggestion) and range-checks every
// figure; `origin` is stored as the entry's provenance.
Accelerator parse_accelerator(YamlMap& m, const std::string& origin);
System parse_system(YamlMap& m, const std::string& origin);
Network parse_network(YamlMap& m, const std::string& origin);

}  // namespace gpuplan
