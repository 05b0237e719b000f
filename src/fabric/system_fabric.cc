#include "fabric/system_fabric.h"

#include <fmt/format.h>

#include "core/error.h"

namespace gpuplan::fabric {

const FabricKind& kind_for_system(const FabricCatalog& fabrics, const System& system, const std::string& kind_name,
                                  const std::string& field) {
  if (!kind_name.empty()) return fabrics.kind(kind_name, field);
  if (const FabricKind* k = fabrics.kind_for_network(system.scaleout_network)) return *k;
  std::vector<std::string> names;
  for (const auto& k : fabrics.kinds()) names.push_back(k.name);
  throw InputError(field, fmt::format("system '{}' uses scale-out network '{}', which has no fabric kind; give "
                                      "one of: {}",
                                      system.name, system.scaleout_network, fmt::join(names, ", ")));
}

FabricSpec spec_for_system(const Catalog& catalog, const System& system, const FabricKind& kind, long long gpus) {
  FabricSpec s;
  s.system = system.name;
  s.gpus = gpus;
  s.gpus_per_node = system.gpus_per_node;
  s.nvlink_domain_gpus = system.nvlink_domain_gpus;
  if (const Network* n = catalog.find_network(kind.network)) s.base_latency_s = n->latency_s;
  return s;
}

}  // namespace gpuplan::fabric
