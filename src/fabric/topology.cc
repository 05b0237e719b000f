#include "fabric/topology.h"
#include "core/text.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace gpuplan::fabric {
namespace {

const char* kTierNames[] = {"leaf", "spine", "core", "super-core"};

// Tiers above `leaves` leaves of `u` uplinks each, radix k: 2 tiers while leaves <= k (every leaf
// reaches every spine: R3), 3 tiers in pods of k/2 leaves with u spines each, 4 tiers beyond.
// Appends to `tiers` (whose first entry is the leaf tier). Returns false when `max_tiers` is too few.
bool add_upper_tiers(long long leaves, int u, int k, int max_tiers, std::vector<TierCount>& tiers) {
  const long long half = k / 2;
  const long long links = leaves * u;
  tiers[0].links_up = links;
  if (leaves <= k) {
    if (max_tiers < 2) return false;
    tiers.push_back({kTierNames[1], spines_for(leaves, u, k), 0});
    return true;
  }
  if (leaves <= k * half) {
    if (max_tiers < 3) return false;
    // Pods of k/2 leaves; a full pod has u spines, the last one is rounded by R3 on spine downlinks.
    const long long pods = ceil_div(leaves, half);
    const long long last = leaves - (pods - 1) * half;
    const long long spines = (pods - 1) * u + spines_for(last, u, static_cast<int>(half));
    tiers.push_back({kTierNames[1], spines, links});  // spines are 1:1: up = down
    tiers.push_back({kTierNames[2], ceil_div(links, k), 0});
    return true;
  }
  if (leaves <= k * half * half) {
    if (max_tiers < 4) return false;
    const long long pods = ceil_div(leaves, half);
    const long long last = leaves - (pods - 1) * half;
    const long long spines = (pods - 1) * u + spines_for(last, u, static_cast<int>(half));
    tiers.push_back({kTierNames[1], spines, links});
    tiers.push_back({kTierNames[2], ceil_div(links, half), links});
    tiers.push_back({kTierNames[3], ceil_div(links, k), 0});
    return true;
  }
  return false;
}

}  // namespace

int leaf_downlinks(int radix, double oversubscription) {
  if (radix < 2) return radix;
  const double r = std::max(1.0, oversubscription);
  const int d = static_cast<int>(std::lround(radix * r / (r + 1)));
  return std::clamp(d, 1, radix - 1);
}

long long spines_for(long long leaves, int uplinks_per_leaf, int ports_per_switch) {
  const long long need = leaves * uplinks_per_leaf;
  for (int s = 1; s <= uplinks_per_leaf; ++s)
    if (uplinks_per_leaf % s == 0 && static_cast<long long>(s) * ports_per_switch >= need) return s;
  return ceil_div(need, ports_per_switch);  // more leaves than one spine's ports: not a 2-tier case
}

TopologyCounts count_topology(const TopologyInput& in) {
  TopologyCounts c;
  const int k = in.radix;
  if (k < 2 || in.nodes < 1 || in.rails < 1 || in.planes < 1) {
    c.feasible = false;
    c.why = fmt::format("radix {} and {} nodes make no fabric", k, in.nodes);
    return c;
  }
  const int d = leaf_downlinks(k, in.oversubscription);
  const int u = k - d;
  c.downlinks_per_leaf = d;
  c.uplinks_per_leaf = u;
  c.nodes_per_su = d;
  c.max_endpoints_2tier = static_cast<long long>(k) * d;
  c.max_endpoints_3tier = static_cast<long long>(k) * (k / 2) * d;

  if (in.topology == Topology::rail_only) {
    // Each rail is its own fabric (Wang et al., arXiv 2307.12169): one switch per rail while the
    // rail's nodes fit its ports, else a fat tree inside the rail.
    const int groups = in.rails * in.planes;
    c.rail_groups = groups;
    const long long per_rail = in.nodes + ceil_div(in.extra_ports, groups);  // management links take rail ports
    c.scalable_units = 1;
    if (per_rail <= k) {
      c.downlinks_per_leaf = k;
      c.uplinks_per_leaf = 0;
      c.nodes_per_su = k;
      c.tiers.push_back({kTierNames[0], groups, 0});
      return c;
    }
    const long long leaves_per_rail = ceil_div(per_rail, d);
    c.scalable_units = leaves_per_rail;
    std::vector<TierCount> rail = {{kTierNames[0], leaves_per_rail, 0}};
    if (!add_upper_tiers(leaves_per_rail, u, k, in.max_tiers, rail)) {
      c.feasible = false;
      c.why = fmt::format("{} nodes per rail exceed a {}-tier fat tree of radix {}", per_rail, in.max_tiers, k);
      return c;
    }
    for (auto& t : rail) {
      t.switches *= groups;
      t.links_up *= groups;
    }
    c.tiers = std::move(rail);
    return c;
  }

  // Rail-optimized: a scalable unit is one leaf per rail, built whole (the RAs' full-SU rule); each
  // plane is a separate fabric of its own (B300 Spectrum-X: "2x 400GbE ... through two different planes").
  c.rail_groups = in.planes;
  // Management links take leaf ports too: 31 DGX + UFM fill an H100 SU of 32 nodes' ports.
  c.scalable_units = ceil_div(in.nodes * in.rails + in.extra_ports, static_cast<long long>(d) * in.rails);
  const long long leaves = c.scalable_units * in.rails;
  c.tiers.push_back({kTierNames[0], leaves, 0});
  if (leaves == 1) {  // one rail, one switch: a single tier
    c.downlinks_per_leaf = k;
    c.uplinks_per_leaf = 0;
  } else if (!add_upper_tiers(leaves, u, k, in.max_tiers, c.tiers)) {
    c.feasible = false;
    c.why = fmt::format("{} leaves per plane exceed a {}-tier fat tree of radix {} (at most {} leaves)", leaves,
                        in.max_tiers, k, static_cast<long long>(k) * (k / 2) * (k / 2));
    c.tiers.resize(1);
  }
  for (auto& t : c.tiers) {
    t.switches *= in.planes;
    t.links_up *= in.planes;
  }
  return c;
}

}  // namespace gpuplan::fabric
