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

void shape_scaleout(const Catalog& catalog, const System& system, Fabric& out, double oversubscription,
                    Topology topology, const std::string& field) {
  if (oversubscription == 1 && topology == Topology::rail_optimized) return;
  const FabricCatalog& fc = FabricCatalog::builtin();
  const FabricKind& kind = kind_for_system(fc, system, "", field);
  // The shape (SU size, u/d) does not depend on the cluster's size; plan one whole SU's worth.
  FabricSpec spec = spec_for_system(catalog, system, kind, system.gpus_per_unit());
  spec.oversubscription = oversubscription;
  spec.topology = topology;
  const FabricResult f = plan_fabric(fc, kind, spec);
  if (!f.feasible()) throw InputError(field, f.topology.why);
  out.scaleout_rail_only = topology == Topology::rail_only;
  if (topology == Topology::rail_optimized) {
    out.scaleout_beyond_leaf_fraction = f.bisection_ratio;
    out.scaleout_leaf_gpus = static_cast<int>(f.topology.nodes_per_su * system.gpus_per_node);
  }
}

}  // namespace gpuplan::fabric
