#pragma once
// gpuplan fabric: the scale-out fabric of N GPUs of a system — topology, bill of materials (switches,
// NICs, transceivers and cables by kind and reach), network power and capex, and what each GPU gets
// (bandwidth, switch hops and latency per tier). Pure: catalog in, result out.
#include <string>
#include <vector>

#include "fabric/fabric_catalog.h"
#include "fabric/topology.h"

namespace gpuplan::fabric {

struct FabricSpec {
  std::string system;            // display only
  long long gpus = 0;
  int gpus_per_node = 8;         // GPUs behind one host's NICs (NVL72: a 4-GPU compute tray)
  int nvlink_domain_gpus = 8;
  double oversubscription = 1;   // r:1 at the leaf
  Topology topology = Topology::rail_optimized;
  bool twin_port_node_cages = false;  // DGX H100/H200/B200: two NICs per node-side OSFP cage
  int max_tiers = 4;
  int management_links = -1;     // UFM links on the leaves; -1: the fabric kind's figure
  double base_latency_s = 0;     // the catalog network's one-hop end-to-end figure
};

// One group of links between two tiers and what it is built from.
struct LinkGroup {
  std::string between;           // "node-leaf", "leaf-spine", "spine-core", "core-super-core"
  long long links = 0;
  double length_m = 0;
  std::string medium;            // Medium::name
  bool copper = false;
  long long switch_modules = 0;  // pluggable modules in switch cages (both ends for switch-switch)
  long long node_modules = 0;    // pluggable modules in node NIC cages
  long long cables = 0;          // copper cables, or fibers for optics
  double power_w = 0;            // modules or active copper
  double capex_usd = 0;          // modules + cables/fibers
};

// What traffic between two GPUs at a given distance sees.
struct PathClass {
  std::string scope;             // "same rail, same leaf", "across leaves (spine)", ...
  int switch_hops = 0;
  bool via_nvlink = false;       // rail-only cross-rail traffic is forwarded over NVLink
  double bandwidth_bytes_per_s_per_gpu = 0;  // one direction, all of a GPU's fabric ports
  double latency_s = 0;
};

struct BomLine {
  std::string item;              // "switch", "nic", "module", "cable"
  std::string name;
  long long count = 0;
  double unit_power_w = 0;
  double unit_price_usd = 0;
  bool power_assumed = false;    // the figure is a named assumption
  bool price_assumed = false;
};

struct FabricResult {
  FabricSpec spec;
  std::string kind;              // FabricKind::name
  std::string switch_name;
  double port_gbps = 0;
  int radix = 0;
  int rails = 0;                 // fabric ports per node
  long long nodes = 0;
  long long endpoints = 0;       // GPU fabric ports
  int management_links = 0;
  TopologyCounts topology;
  std::vector<LinkGroup> links;
  std::vector<BomLine> bom;
  std::vector<PathClass> paths;
  long long switches = 0;
  long long switch_rack_units = 0;
  long long nics = 0;
  double switch_power_w = 0, optics_power_w = 0, nic_power_w = 0;
  double switch_capex_usd = 0, optics_capex_usd = 0, cable_capex_usd = 0, nic_capex_usd = 0;
  double injection_bytes_per_s_per_gpu = 0;   // one direction, all fabric ports of a GPU
  double bisection_ratio = 1;                 // uplink / downlink bandwidth at the leaf (1 at 1:1)
  std::vector<std::string> assumptions_used;  // names, sorted
  std::vector<std::string> notes;

  double power_w() const { return switch_power_w + optics_power_w + nic_power_w; }
  double capex_usd() const { return switch_capex_usd + optics_capex_usd + cable_capex_usd + nic_capex_usd; }
  bool feasible() const { return topology.feasible; }
};

// Plans the fabric. Throws InputError only for inconsistent inputs (gpus < 1, bad ratio); a size
// beyond the tier limit is a result with topology.feasible == false and the reason.
FabricResult plan_fabric(const FabricCatalog& catalog, const FabricKind& kind, const FabricSpec& spec);

// The medium for a link of `length_m` in `generation`: copper within its reach, else the optic with
// the shortest reach that covers the length; nullptr when nothing reaches.
const Medium* medium_for(const FabricCatalog& catalog, const std::string& generation, double length_m,
                         std::set<std::string>* used = nullptr);

}  // namespace gpuplan::fabric
