// gpuplan fabric: the scale-out network of N GPUs — topology, bill of materials, power, capex, and what
// each GPU gets. The planner is src/fabric; this file parses options and prints.
#include <fmt/format.h>

#include <algorithm>
#include <iostream>
#include <optional>

#include "api/fabric.h"
#include "api/text.h"
#include "api/fabric_options.h"
#include "core/error.h"
#include "core/text.h"
#include "fabric/system_fabric.h"

namespace gpuplan::api {

namespace fabric_detail {  // named, not anonymous: the CLI may be built as one unit

std::string usd(double v) {
  if (v >= 1e6) return fmt::format("${:.2f}M", v / 1e6);
  if (v >= 1e3) return fmt::format("${:.1f}k", v / 1e3);
  return fmt::format("${:.0f}", v);
}

}  // namespace fabric_detail

nlohmann::json fabric_json(const fabric::FabricResult& f, const fabric::FabricCatalog& fc) {
  using nlohmann::json;
  json tiers = json::array(), links = json::array(), bom = json::array(), paths = json::array(),
       assumptions = json::array();
  for (const auto& t : f.topology.tiers) tiers.push_back({{"tier", t.name}, {"switches", t.switches}, {"links_up", t.links_up}});
  for (const auto& g : f.links)
    links.push_back({{"between", g.between}, {"links", g.links}, {"length_m", g.length_m}, {"medium", g.medium},
                     {"copper", g.copper}, {"switch_modules", g.switch_modules}, {"node_modules", g.node_modules},
                     {"cables", g.cables}, {"power_w", g.power_w}, {"capex_usd", g.capex_usd}});
  for (const auto& b : f.bom)
    bom.push_back({{"item", b.item}, {"name", b.name}, {"count", b.count}, {"unit_power_w", b.unit_power_w},
                   {"unit_price_usd", b.unit_price_usd}, {"power_is_assumption", b.power_assumed},
                   {"price_is_assumption", b.price_assumed}});
  for (const auto& p : f.paths)
    paths.push_back({{"scope", p.scope}, {"switch_hops", p.switch_hops}, {"via_nvlink", p.via_nvlink},
                     {"bandwidth_bytes_per_s_per_gpu", p.bandwidth_bytes_per_s_per_gpu}, {"latency_s", p.latency_s}});
  for (const auto& name : f.assumptions_used) {
    const auto& a = fc.assumption(name);
    assumptions.push_back({{"name", a.name}, {"value", a.value}, {"basis", a.basis}, {"overridden", a.overridden}});
  }
  json j = {{"system", f.spec.system},
            {"gpus", f.spec.gpus},
            {"nodes", f.nodes},
            {"kind", f.kind},
            {"switch", f.switch_name},
            {"topology", f.spec.topology == fabric::Topology::rail_only ? "rail-only" : "rail-optimized"},
            {"oversubscription", f.spec.oversubscription},
            {"feasible", f.feasible()},
            {"port_gbps", f.port_gbps},
            {"radix", f.radix},
            {"rails", f.rails},
            {"endpoints", f.endpoints},
            {"management_links", f.management_links},
            {"downlinks_per_leaf", f.topology.downlinks_per_leaf},
            {"uplinks_per_leaf", f.topology.uplinks_per_leaf},
            {"nodes_per_scalable_unit", f.topology.nodes_per_su},
            {"scalable_units", f.topology.scalable_units},
            {"max_endpoints", {{"two_tiers", f.topology.max_endpoints_2tier}, {"three_tiers", f.topology.max_endpoints_3tier}}},
            {"tiers", tiers},
            {"links", links},
            {"bill_of_materials", bom},
            {"switches", f.switches},
            {"switch_rack_units", f.switch_rack_units},
            {"nics", f.nics},
            {"power_w", {{"switches", f.switch_power_w}, {"optics", f.optics_power_w}, {"nics", f.nic_power_w},
                         {"total", f.power_w()}, {"per_gpu", f.power_w() / static_cast<double>(f.spec.gpus)}}},
            {"capex_usd", {{"switches", f.switch_capex_usd}, {"optics", f.optics_capex_usd},
                           {"cables", f.cable_capex_usd}, {"nics", f.nic_capex_usd}, {"total", f.capex_usd()},
                           {"per_gpu", f.capex_usd() / static_cast<double>(f.spec.gpus)}}},
            {"per_gpu", {{"injection_bytes_per_s", f.injection_bytes_per_s_per_gpu},
                         {"beyond_leaf_bytes_per_s", f.injection_bytes_per_s_per_gpu * f.bisection_ratio},
                         {"bisection_ratio", f.bisection_ratio}}},
            {"paths", paths},
            {"assumptions", assumptions},
            {"notes", f.notes}};
  if (!f.feasible()) j["why_not"] = f.topology.why;
  return j;
}

void add_fabric_options(CLI::App& app, FabricRequest& req) {
  app.description("Scale-out fabric for N GPUs of a system: rail-optimized fat tree (or rail-only, or oversubscribed), "
               "scalable units, leaf/spine/core switches (radix from the switch), NICs, transceivers and cables by "
               "kind and reach, network power and capex, and per-GPU bandwidth, hops and latency per tier. Figures "
               "no source publishes are named assumptions (--assume NAME=VALUE).");
  app.add_option("--system", req.system_name, "Catalog system (hgx-h100, gb300-nvl72, ...)");
  app.add_option("--gpus", req.gpus, "GPUs to connect (1 to 100000000)");
  app.add_option("--kind", req.kind_name, "Fabric kind: ib-ndr, ib-xdr, ib-hdr, eth-400g, eth-800g, gaudi3-roce "
                                      "(default: the system's scale-out network)");
  app.add_option("--topology", req.topology, "rail-optimized (fat tree) or rail-only (no spine)")->capture_default_str();
  app.add_option("--oversubscription", req.ratio, "Leaf downlink:uplink ratio r (r or r:1, 1 to 64)")->capture_default_str();
  app.add_option("--node-optics", req.node_optics,
                 "single-port (HGX: one module per NIC) or twin-port (DGX: two NICs per OSFP cage)")
      ->capture_default_str();
  app.add_option("--max-tiers", req.max_tiers, "Most switch tiers allowed (1 to 4)")->capture_default_str();
  app.add_option("--management-links", req.management_links,
                 "Leaf ports for management (UFM) links, 0 to 1000 (default: the fabric kind's, 4 on NDR)");
  app.add_option("--assume", req.assume, "Override a named assumption: NAME=VALUE (repeatable)");
  app.add_option("--frontend", req.frontend,
                 "Also plan a front-end (north-south: storage, in-band, users) network: eth-frontend-200g (HGX "
                 "H100/H200/B200 RA) or eth-frontend-400g (B300/GB300 RAs)");
  app.add_flag("--list-assumptions", req.list_assumptions, "Print every named assumption and its basis, then exit");
}

int fabric(const Catalog& catalog, FabricRequest req, Output& output) {
  using namespace fabric_detail;
  fabric::FabricCatalog fc = fabric::FabricCatalog::builtin();
  auto overridden = [&fc] {
    return std::count_if(fc.assumptions().begin(), fc.assumptions().end(), [](const auto& a) { return a.overridden; });
  };
  for (const auto& a : req.assume) {
    const auto before = overridden();
    fc.set_assumption(a);
    if (overridden() == before)
      throw InputError("--assume", fmt::format("'{}' sets an assumption given twice; give each once", a));
  }
  if (req.list_assumptions) {
    nlohmann::json arr = nlohmann::json::array();
    for (const auto& a : fc.assumptions()) {
      arr.push_back({{"name", a.name}, {"value", a.value}, {"basis", a.basis}, {"overridden", a.overridden}});
      if (!output.json()) output.os() << fmt::format("{:<30} {:>10g}  {}\n", a.name, a.value, a.basis);
    }
    if (output.json()) output.emit("fabric-assumptions", {{"assumptions", arr}});
    return kExitOk;
  }
  if (req.system_name.empty()) throw InputError("--system", "required (e.g. --system hgx-h100)");
  if (req.gpus < 1 || req.gpus > 100'000'000) throw InputError("--gpus", fmt::format("must be 1 to 100000000, got {}", req.gpus));
  if (req.topology != "rail-optimized" && req.topology != "rail-only")
    throw InputError("--topology", fmt::format("must be rail-optimized or rail-only, got '{}'", req.topology));
  if (req.node_optics != "single-port" && req.node_optics != "twin-port")
    throw InputError("--node-optics", fmt::format("must be single-port or twin-port, got '{}'", req.node_optics));
  const double r = parse_oversubscription(req.ratio);
  const System& sys = catalog.system(req.system_name, "--system");
  const fabric::FabricKind& kind = fabric::kind_for_system(fc, sys, req.kind_name);
  fabric::FabricSpec spec = fabric::spec_for_system(catalog, sys, kind, req.gpus);
  spec.oversubscription = r;
  spec.topology = req.topology == "rail-only" ? fabric::Topology::rail_only : fabric::Topology::rail_optimized;
  spec.twin_port_node_cages = req.node_optics == "twin-port";
  spec.max_tiers = req.max_tiers;
  if (req.given("--management-links")) {
    if (req.management_links < 0 || req.management_links > 1000)
      throw InputError("--management-links", fmt::format("must be 0 to 1000, got {}", req.management_links));
    spec.management_links = req.management_links;
  }
  if (kind.frontend)
    throw InputError("--kind", fmt::format("'{}' is a front-end network: give it with --frontend", kind.name));
  const fabric::FabricResult f = fabric::plan_fabric(fc, kind, spec);
  // The front-end network: each node is one endpoint with the kind's ports (one per plane).
  std::optional<fabric::FabricResult> fe;
  if (!req.frontend.empty()) {
    const fabric::FabricKind& fk = fc.kind(req.frontend, "--frontend");
    if (!fk.frontend)
      throw InputError("--frontend", fmt::format("'{}' is a compute fabric kind; front-end kinds: eth-frontend-200g, "
                                                 "eth-frontend-400g",
                                                 fk.name));
    fabric::FabricSpec fs = fabric::spec_for_system(catalog, sys, fk, f.nodes);
    fs.gpus_per_node = 1;
    fs.nvlink_domain_gpus = 1;
    fs.management_links = 0;
    fe = fabric::plan_fabric(fc, fk, fs);
  }
  if (f.feasible()) {  // an assumption given must be one this fabric uses, or it changes nothing
    std::vector<std::string> used = f.assumptions_used;
    if (fe) used.insert(used.end(), fe->assumptions_used.begin(), fe->assumptions_used.end());
    std::sort(used.begin(), used.end());
    used.erase(std::unique(used.begin(), used.end()), used.end());
    for (const auto& a : fc.assumptions())
      if (a.overridden && std::find(used.begin(), used.end(), a.name) == used.end())
        throw InputError("--assume " + a.name,
                         fmt::format("is not used by this fabric ({}); the assumptions it uses: {}", kind.name,
                                     fmt::join(used, ", ")));
  }
  if (output.json()) {
    nlohmann::json j = fabric_json(f, fc);
    if (fe) {
      nlohmann::json fj = fabric_json(*fe, fc);
      fj["endpoints_are"] = "nodes";
      j["frontend"] = fj;
    }
    output.emit("fabric", std::move(j));
    return kExitOk;
  }
  output.os() << fmt::format("Fabric for {} GPUs of {} ({} nodes of {} GPUs): {}, {}, {:g}:1 at the leaf\n", req.gpus,
                           sys.name, f.nodes, sys.gpus_per_node, kind.display_name, req.topology, r);
  if (!f.feasible()) {
    output.os() << "Not buildable: " << f.topology.why << "\n";
    return kExitOk;
  }
  const auto& t = f.topology;
  output.os() << fmt::format("  {} at {:g}G: radix {}; {} rails; leaf {} down / {} up; ", f.switch_name, f.port_gbps,
                           f.radix, f.rails, t.downlinks_per_leaf, t.uplinks_per_leaf);
  if (spec.topology == fabric::Topology::rail_optimized)
    output.os() << fmt::format("scalable unit {} nodes ({} GPUs), {} SU{}; ", t.nodes_per_su,
                             t.nodes_per_su * sys.gpus_per_node, t.scalable_units, t.scalable_units == 1 ? "" : "s");
  output.os() << fmt::format("{} tier{}\n", t.tiers.size(), t.tiers.size() == 1 ? "" : "s");
  output.os() << "  Switches:";
  for (const auto& tier : t.tiers) output.os() << fmt::format(" {} {}", tier.switches, tier.name);
  output.os() << fmt::format(" = {} ({} RU)\n", f.switches, f.switch_rack_units);
  output.os() << "  Links:\n";
  for (const auto& g : f.links) {
    output.os() << fmt::format("    {:<16} {:>8} links at {:g} m over {}", g.between, g.links, g.length_m, g.medium);
    if (g.copper)
      output.os() << fmt::format(": {} copper cables\n", g.cables);
    else
      output.os() << fmt::format(": {} switch-side{} modules, {} fibers\n", g.switch_modules,
                               g.node_modules ? fmt::format(" + {} node-side", g.node_modules) : "", g.cables);
  }
  const double n = static_cast<double>(req.gpus);
  output.os() << fmt::format("  Power: switches {} + optics {} + NICs {} = {} ({:.0f} W/GPU)\n",
                             kilowatts_text(f.switch_power_w, 1), kilowatts_text(f.optics_power_w, 1),
                             kilowatts_text(f.nic_power_w, 1), kilowatts_text(f.power_w(), 1), f.power_w() / n);
  output.os() << fmt::format("  Capex: switches {} + optics {} + cables {} + NICs {} = {} ({}/GPU)\n",
                           usd(f.switch_capex_usd), usd(f.optics_capex_usd), usd(f.cable_capex_usd),
                           usd(f.nic_capex_usd), usd(f.capex_usd()), usd(f.capex_usd() / n));
  output.os() << fmt::format("  Per GPU: {:.0f} GB/s injection, {:.1f} GB/s beyond the leaf\n",
                           f.injection_bytes_per_s_per_gpu / 1e9, f.injection_bytes_per_s_per_gpu * f.bisection_ratio / 1e9);
  for (const auto& p : f.paths)
    output.os() << fmt::format("    {:<50} {} switch hop(s){}  {:>6.1f} GB/s  {:.2f} us\n", p.scope, p.switch_hops,
                             p.via_nvlink ? " + NVLink" : "", p.bandwidth_bytes_per_s_per_gpu / 1e9, p.latency_s * 1e6);
  output.os() << "  Assumptions used (override with --assume NAME=VALUE):\n";
  for (const auto& name : f.assumptions_used) {
    const auto& a = fc.assumption(name);
    output.os() << fmt::format("    {} = {:g}{}: {}\n", a.name, a.value, a.overridden ? " (given)" : "", a.basis);
  }
  for (const auto& note : f.notes) output.os() << "  Note: " << note << "\n";
  if (fe) {
    output.os() << fmt::format("Front-end network ({}), one endpoint per node ({} nodes):\n", fe->kind, f.nodes);
    if (!fe->feasible()) {
      output.os() << "  Not buildable: " << fe->topology.why << "\n";
    } else {
      output.os() << "  Switches:";
      for (const auto& tier : fe->topology.tiers) output.os() << fmt::format(" {} {}", tier.switches, tier.name);
      output.os() << fmt::format(" = {} ({} RU); {} links to nodes\n", fe->switches, fe->switch_rack_units,
                               fe->links.empty() ? 0 : fe->links[0].links);
      output.os() << fmt::format("  Power {} (switches, optics, DPUs); capex {} ({}/GPU)\n",
                                 kilowatts_text(fe->power_w(), 1), usd(fe->capex_usd()), usd(fe->capex_usd() / n));
      output.os() << fmt::format("  Both networks: {} and {} ({:.0f} W and {}/GPU)\n",
                                 kilowatts_text(f.power_w() + fe->power_w(), 1), usd(f.capex_usd() + fe->capex_usd()),
                                 (f.power_w() + fe->power_w()) / n, usd((f.capex_usd() + fe->capex_usd()) / n));
      for (const auto& name : fe->assumptions_used)
        if (std::find(f.assumptions_used.begin(), f.assumptions_used.end(), name) == f.assumptions_used.end())
          output.os() << fmt::format("  Assumption: {} = {:g}: {}\n", name, fc.assumption(name).value,
                                   fc.assumption(name).basis);
    }
  }
  return kExitOk;
}


}  // namespace gpuplan::api
