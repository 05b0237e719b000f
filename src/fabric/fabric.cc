#include "fabric/fabric.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "core/error.h"
#include "core/text.h"

namespace gpuplan::fabric {
namespace {

constexpr double kFiberDelaySPerM = 5e-9;  // light in glass, about 2e8 m/s
constexpr long long kMaxGpus = 100'000'000;

double num(long long n) { return static_cast<double>(n); }

}  // namespace

const Medium* medium_for(const FabricCatalog& catalog, const std::string& generation, double length_m,
                         std::set<std::string>* used) {
  const Medium* best = nullptr;
  double best_reach = 0;
  for (const auto& m : catalog.media()) {
    if (m.generation != generation) continue;
    const double reach = catalog.value(m.reach_m);
    if (reach < length_m) continue;
    // Copper whenever it reaches; among optics (or among copper), the shortest reach that covers it.
    const bool better = !best || (m.copper && !best->copper) || (m.copper == best->copper && reach < best_reach);
    if (better) {
      best = &m;
      best_reach = reach;
    }
  }
  if (best && used) catalog.value(best->reach_m, used);
  return best;
}

FabricResult plan_fabric(const FabricCatalog& cat, const FabricKind& kind, const FabricSpec& spec) {
  if (spec.gpus < 1 || spec.gpus > kMaxGpus)
    throw InputError("--gpus", fmt::format("{} is out of range [1, {}]", spec.gpus, kMaxGpus));
  if (!(spec.oversubscription >= 1 && spec.oversubscription <= 64))
    throw InputError("--oversubscription", fmt::format("{:g} is out of range [1, 64] (r for r:1)", spec.oversubscription));
  if (spec.gpus_per_node < 1) throw InputError("gpus_per_node", "must be >= 1");
  if (spec.management_links < -1 || spec.management_links > 1000)
    throw InputError("--management-links", fmt::format("{} is out of range [0, 1000]", spec.management_links));
  if (spec.max_tiers < 1 || spec.max_tiers > 4)
    throw InputError("--max-tiers", fmt::format("{} is out of range [1, 4]", spec.max_tiers));

  std::set<std::string> used;
  FabricResult r;
  r.spec = spec;
  r.kind = kind.name;
  const SwitchModel& sw = cat.switch_model(kind.switch_name);
  const NicModel& nic = cat.nic(kind.nic);
  r.switch_name = sw.name;
  r.port_gbps = kind.port_gbps;
  r.radix = sw.radix_at(kind.port_gbps);
  r.rails = spec.gpus_per_node * kind.ports_per_nic;
  r.nodes = ceil_div(spec.gpus, spec.gpus_per_node);
  r.endpoints = spec.gpus * kind.ports_per_nic;
  r.management_links = spec.management_links >= 0 ? spec.management_links : kind.management_links;
  r.topology = count_topology({r.nodes, spec.gpus_per_node, kind.ports_per_nic, r.management_links, r.radix,
                               spec.oversubscription, spec.topology, spec.max_tiers});
  r.injection_bytes_per_s_per_gpu = kind.ports_per_nic * kind.port_gbps * 1e9 / 8;
  if (!r.topology.feasible) return r;

  const auto& tiers = r.topology.tiers;
  const int d = r.topology.downlinks_per_leaf;
  const int u = r.topology.uplinks_per_leaf;
  r.bisection_ratio = u > 0 ? std::min(1.0, static_cast<double>(u) / d) : 1.0;

  // Switches.
  for (const auto& t : tiers) r.switches += t.switches;
  r.switch_rack_units = r.switches * sw.rack_units;
  const double sw_power = cat.value(sw.power_w, &used);
  const double sw_price = cat.value(sw.price_usd, &used);
  r.switch_power_w = num(r.switches) * sw_power;
  r.switch_capex_usd = num(r.switches) * sw_price;
  r.bom.push_back({"switch", sw.display_name, r.switches, sw_power, sw_price, !sw.power_w.assumption.empty(),
                   !sw.price_usd.assumption.empty()});

  // NICs: one per GPU.
  r.nics = spec.gpus;
  const double nic_power = cat.value(nic.power_w, &used);
  const double nic_price = cat.value(nic.price_usd, &used);
  r.nic_power_w = num(r.nics) * nic_power;
  r.nic_capex_usd = num(r.nics) * nic_price;
  r.bom.push_back({"nic", nic.display_name, r.nics, nic_power, nic_price, !nic.power_w.assumption.empty(),
                   !nic.price_usd.assumption.empty()});

  // Links. A switch cage takes one module carrying (cage speed / port speed) fabric ports.
  const int ports_per_switch_module =
      std::max(1, static_cast<int>(std::lround(sw.port_gbps * sw.ports_per_cage / kind.port_gbps)));
  const int node_ports_per_module = spec.twin_port_node_cages ? 2 : kind.ports_per_nic;
  const double fiber_price = cat.value(Figure{0, "fiber_link_price_usd"}, &used);
  // Link lengths by tier boundary (assumptions; only those of the tiers present are used).
  const char* length_names[] = {"node_leaf_m", "leaf_spine_m", "spine_core_m", "spine_core_m"};
  double lengths[4] = {0, 0, 0, 0};
  for (size_t i = 0; i < tiers.size() && i < 4; ++i) lengths[i] = cat.value({0, length_names[i]}, &used);
  const char* names[] = {"node-leaf", "leaf-spine", "spine-core", "core-super-core"};
  std::map<std::string, long long> modules_by_medium;
  for (size_t i = 0; i < tiers.size(); ++i) {
    LinkGroup g;
    g.between = names[i];
    g.length_m = lengths[i];
    g.links = i == 0 ? r.endpoints + r.management_links : tiers[i - 1].links_up;
    if (g.links == 0) continue;
    const Medium* m = medium_for(cat, kind.generation, g.length_m, &used);
    if (!m) {
      r.topology.feasible = false;
      r.topology.why = fmt::format("no {} medium reaches {:g} m ({} links)", kind.generation, g.length_m, g.between);
      return r;
    }
    g.medium = m->name;
    g.copper = m->copper;
    const double price = cat.value(m->price_usd, &used);
    if (m->copper) {
      g.cables = ceil_div(g.links, i == 0 ? std::min(m->ports, ports_per_switch_module) : ports_per_switch_module);
      g.power_w = num(g.cables) * cat.value(m->power_w, &used);
      g.capex_usd = num(g.cables) * price;
      r.bom.push_back({"cable", m->display_name, g.cables, cat.value(m->power_w), price,
                       !m->power_w.assumption.empty(), !m->price_usd.assumption.empty()});
    } else {
      const double module_w = cat.value(m->power_w, &used);
      const double module_usd = m->ports * price;  // price is per port of a module
      if (i == 0) {
        // Leaf side: the RAs build each SU whole, so a rail-optimized leaf's node-facing cages are
        // populated for the full SU; node side: the NIC cages actually present.
        const long long populated = spec.topology == Topology::rail_optimized && tiers.size() > 1
                                        ? std::max(g.links, tiers[0].switches * d)
                                        : g.links;
        g.switch_modules = ceil_div(populated, ports_per_switch_module);
        g.node_modules = ceil_div(r.endpoints, node_ports_per_module);
        const double node_w =
            node_ports_per_module == 1 ? cat.value(m->single_port_power_w, &used) : module_w;
        const double node_usd = node_ports_per_module == 1 ? price : module_usd;
        g.power_w = num(g.switch_modules) * module_w + num(g.node_modules) * node_w;
        g.capex_usd = num(g.switch_modules) * module_usd + num(g.node_modules) * node_usd;
        r.bom.push_back({"module", m->display_name + " (node side)", g.node_modules, node_w, node_usd,
                         node_ports_per_module == 1 ? !m->single_port_power_w.assumption.empty()
                                                    : !m->power_w.assumption.empty(),
                         !m->price_usd.assumption.empty()});
      } else {
        g.switch_modules = 2 * ceil_div(g.links, ports_per_switch_module);  // both ends
        g.power_w = num(g.switch_modules) * module_w;
        g.capex_usd = num(g.switch_modules) * module_usd;
      }
      modules_by_medium[m->name] += g.switch_modules;
      g.cables = g.links;  // one fiber per link
      g.capex_usd += num(g.cables) * fiber_price;
    }
    r.optics_power_w += g.power_w;
    r.optics_capex_usd += g.copper ? 0 : g.capex_usd - num(g.cables) * fiber_price;
    r.cable_capex_usd += g.copper ? g.capex_usd : num(g.cables) * fiber_price;
    r.links.push_back(g);
  }
  for (const auto& [name, count] : modules_by_medium) {
    for (const auto& m : cat.media()) {
      if (m.name != name) continue;
      r.bom.push_back({"module", m.display_name + " (switch side)", count, cat.value(m.power_w),
                       m.ports * cat.value(m.price_usd), !m.power_w.assumption.empty(),
                       !m.price_usd.assumption.empty()});
    }
  }
  long long fibers = 0;
  for (const auto& g : r.links)
    if (!g.copper) fibers += g.cables;
  if (fibers > 0) r.bom.push_back({"cable", "fiber (MPO, one per optical link)", fibers, 0, fiber_price, false, true});

  // What each GPU gets, by distance. Latency: the network's one-hop figure, each further switch,
  // and the extra fiber run (there and back up the tree).
  const double sw_lat = cat.value(kind.switch_latency_ns, &used) * 1e-9;
  const double beyond_leaf = r.injection_bytes_per_s_per_gpu * r.bisection_ratio;
  const int upper = static_cast<int>(tiers.size()) - 1;
  const char* scopes[] = {"same leaf", "across leaves (spine)", "across pods (core)", "across super-pods (super-core)"};
  double extra_m = 0;
  for (int t = 0; t <= upper; ++t) {
    if (t > 0) extra_m += 2 * lengths[t];
    PathClass p;
    p.scope = scopes[t];
    p.switch_hops = 2 * t + 1;
    p.bandwidth_bytes_per_s_per_gpu = t == 0 ? r.injection_bytes_per_s_per_gpu : beyond_leaf;
    p.latency_s = spec.base_latency_s + (p.switch_hops - 1) * sw_lat + extra_m * kFiberDelaySPerM;
    r.paths.push_back(p);
  }
  if (spec.topology == Topology::rail_only && r.rails > 1) {
    PathClass p = r.paths.back();
    p.scope = "cross-rail (forwarded over NVLink, then the rail)";
    p.via_nvlink = true;
    r.paths.push_back(p);
    r.notes.push_back(
        "rail-only: no switch joins the rails; cross-rail traffic is forwarded over NVLink (Wang et al., "
        "arXiv 2307.12169: 8.2-11.2% completion-time overhead for MoE all-to-all)");
  } else if (r.rails > 1) {
    r.notes.push_back("rail-optimized: GPU i of every node shares rail i's leaves; cross-rail traffic crosses "
                      "the spine or is moved to the right rail over NVLink first (PXN)");
  }
  if (spec.topology == Topology::rail_optimized && tiers.size() > 1)
    r.notes.push_back(fmt::format("built in whole scalable units of {} nodes ({} leaves each), as the reference "
                                  "designs require",
                                  r.topology.nodes_per_su, r.rails));
  if (spec.gpus <= spec.nvlink_domain_gpus)
    r.notes.push_back("all GPUs share one NVLink domain: the scale-out fabric carries no training collectives");
  r.assumptions_used.assign(used.begin(), used.end());
  return r;
}

}  // namespace gpuplan::fabric
