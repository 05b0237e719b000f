#pragma once
// A catalog system's scale-out fabric: which fabric kind it uses by default and the planner input
// for N of its GPUs.
#include <string>

#include "catalog/catalog.h"
#include "fabric/fabric.h"
#include "physics/hardware.h"

namespace gpuplan::fabric {

// The fabric kind of the system's scale-out network (systems.yaml scaleout_network), or `kind_name`
// when given. Unknown kind, or a network with no kind -> InputError naming `field`.
const FabricKind& kind_for_system(const FabricCatalog& fabrics, const System& system,
                                  const std::string& kind_name = "", const std::string& field = "--kind");

// Planner input for `gpus` GPUs of `system` on `kind`: node size, NVLink domain, the network's
// one-hop latency from the catalog.
FabricSpec spec_for_system(const Catalog& catalog, const System& system, const FabricKind& kind, long long gpus);

// Gives the collective model's scale-out tier the shape of the system's planned fabric at r:1 and
// `topology`: the bandwidth share past the leaf and the GPUs under one scalable unit's leaves
// (rail-optimized), or rail-only forwarding. 1:1 rail-optimized leaves `out` unchanged. A size the
// fabric cannot build -> InputError naming `field`.
void shape_scaleout(const Catalog& catalog, const System& system, Fabric& out, double oversubscription,
                    Topology topology, const std::string& field = "--fabric-oversubscription");

}  // namespace gpuplan::fabric
