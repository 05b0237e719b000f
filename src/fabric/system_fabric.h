#pragma once
// A catalog system's scale-out fabric: which fabric kind it uses by default and the planner input
// for N of its GPUs.
#include <string>

#include "catalog/catalog.h"
#include "fabric/fabric.h"

namespace gpuplan::fabric {

// The fabric kind of the system's scale-out network (systems.yaml scaleout_network), or `kind_name`
// when given. Unknown kind, or a network with no kind -> InputError naming `field`.
const FabricKind& kind_for_system(const FabricCatalog& fabrics, const System& system,
                                  const std::string& kind_name = "", const std::string& field = "--kind");

// Planner input for `gpus` GPUs of `system` on `kind`: node size, NVLink domain, the network's
// one-hop latency from the catalog.
FabricSpec spec_for_system(const Catalog& catalog, const System& system, const FabricKind& kind, long long gpus);

}  // namespace gpuplan::fabric
