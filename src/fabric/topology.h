#pragma once
// Switch and link counts of a rail-optimized (or rail-only) folded-Clos fabric, by tier.
// Rules (docs/fabric.md, ../shared/data/network/topologies.md section 4):
//  R1 fat-tree limits k, k^2/2, k^3/4 (Al-Fares et al., SIGCOMM 2008);
//  R2 leaves per rail = ceil(nodes / downlinks), a scalable unit (SU) = one leaf per rail, built whole;
//  R3 spines = the smallest divisor of the leaf uplinks u whose ports carry every leaf's u uplinks.
#include <string>
#include <vector>

namespace gpuplan::fabric {

enum class Topology { rail_optimized, rail_only };

struct TopologyInput {
  long long nodes = 0;         // hosts (HGX node, NVL72 compute tray)
  int rails = 1;               // rails per plane: NICs per node (GPU i of every node on rail i)
  int planes = 1;              // independent copies of the fabric (ports per NIC: twin-planar Spectrum-X)
  int extra_ports = 0;         // leaf ports taken by management links (UFM), spread over the rails
  int radix = 0;               // switch ports at the fabric port speed (k)
  double oversubscription = 1; // r:1 leaf downlink:uplink bandwidth
  Topology topology = Topology::rail_optimized;
  int max_tiers = 4;
};

struct TierCount {
  std::string name;          // "leaf", "spine", "core", "super-core"
  long long switches = 0;
  long long links_up = 0;    // links from this tier to the next (0 at the top)
};

struct TopologyCounts {
  bool feasible = true;
  std::string why;           // when not feasible
  int downlinks_per_leaf = 0;  // d
  int uplinks_per_leaf = 0;    // u (0 for a single tier)
  long long nodes_per_su = 0;  // d (one leaf per rail)
  long long scalable_units = 0;
  long long rail_groups = 1;   // independent fabrics: planes, or rails x planes when rail-only
  std::vector<TierCount> tiers;
  // Most leaf ports (GPU ports, all rails of a plane) two and three tiers reach at this radix and
  // oversubscription (R1: k^2/2 and k^3/4 at 1:1).
  long long max_endpoints_2tier = 0;
  long long max_endpoints_3tier = 0;
};

// Leaf downlinks for radix k at r:1 (k/2 at 1:1), clamped so at least one uplink remains.
int leaf_downlinks(int radix, double oversubscription);
// R3: the smallest divisor s of `uplinks_per_leaf` with s * ports_per_switch >= leaves * uplinks_per_leaf.
long long spines_for(long long leaves, int uplinks_per_leaf, int ports_per_switch);
// Counts for one fabric; pure and allocation-light (microseconds).
TopologyCounts count_topology(const TopologyInput& in);

}  // namespace gpuplan::fabric
