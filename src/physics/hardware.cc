#include "physics/hardware.h"
#include "core/text.h"

#include <algorithm>
#include <cctype>
#include <string>

namespace gpuplan {

namespace {

double latency_or(const Catalog& c, const std::string& network, double fallback) {
  if (network.empty()) return fallback;
  const Network* n = c.find_network(network);
  return n && n->latency_s > 0 ? n->latency_s : fallback;
}

// The scale-up network (tier scale_up) whose display name opens the accelerator's scaleup_link text
// and names PCIe ("PCIe Gen4 x16 (no NVLink)" -> pcie4), or null.
const Network* pcie_link_of(const Catalog& c, const Accelerator& acc) {
  const std::string link = to_lower(acc.scaleup_link);
  if (link.find("pcie") == std::string::npos) return nullptr;
  for (const auto& n : c.networks()) {
    const std::string d = to_lower(n.display_name);
    if (n.tier == NetworkTier::scale_up && !d.empty() && d.find("pcie") != std::string::npos && link.rfind(d, 0) == 0)
      return &n;
  }
  return nullptr;
}

}  // namespace

Hardware resolve_hardware(const Catalog& catalog, const std::string& system_or_gpu) {
  const System* sys = catalog.find_system(system_or_gpu);
  if (!sys) {
    // An accelerator name: use the first system built from it, if any. Neither: the systems are the
    // answer (an error listing them), not a guess.
    if (!catalog.find_accelerator(system_or_gpu)) catalog.system(system_or_gpu, "--system");
    const Accelerator& acc = catalog.accelerator(system_or_gpu, "--system");
    sys = catalog.first_system_of(acc.name);
    if (!sys) {
      Hardware hw;
      hw.accelerator = acc;
      hw.efficiency = catalog.efficiency(acc.generation);
      hw.fabric.domain_gpus = std::max(1, std::min(acc.max_scaleup_domain, 8));
      hw.fabric.scaleup_bytes_per_s = acc.scaleup_bandwidth_bytes_per_s > 0 ? acc.scaleup_bandwidth_bytes_per_s : 32e9;
      hw.system_name = acc.name;
      hw.host.bandwidth_bytes_per_s_per_gpu = acc.host_link_bytes_per_s;
      // A card without NVLink (L40S, L4, A10, RTX): the GPUs of one PCIe server reach each other over
      // its PCIe fabric, not the scale-out network, at the card's PCIe link rate and latency.
      if (const Network* pcie = acc.max_scaleup_domain <= 1 ? pcie_link_of(catalog, acc) : nullptr) {
        hw.fabric.domain_gpus = kPcieServerGpus;
        if (pcie->latency_s > 0) hw.fabric.scaleup_latency_s = pcie->latency_s;
      }
      return hw;
    }
  }
  Hardware hw;
  hw.accelerator = catalog.accelerator(sys->accelerator, "system.accelerator");
  hw.efficiency = catalog.efficiency(hw.accelerator.generation);
  hw.system_name = sys->name;
  hw.fabric.domain_gpus = std::max(1, sys->nvlink_domain_gpus);
  hw.fabric.multi_node_nvlink = sys->gpus_per_node > 0 && sys->nvlink_domain_gpus > sys->gpus_per_node;
  hw.fabric.scaleup_direct_mesh = sys->scaleup_topology == ScaleupTopology::direct_mesh;
  hw.fabric.scaleup_bytes_per_s = hw.accelerator.scaleup_bandwidth_bytes_per_s > 0
                                      ? hw.accelerator.scaleup_bandwidth_bytes_per_s
                                      : 32e9;
  hw.fabric.scaleout_bytes_per_s =
      sys->scaleout_bandwidth_bytes_per_s_per_gpu > 0 ? sys->scaleout_bandwidth_bytes_per_s_per_gpu : 50e9;
  hw.fabric.scaleup_latency_s = latency_or(catalog, sys->scaleup_network, hw.fabric.scaleup_latency_s);
  hw.fabric.scaleout_latency_s = latency_or(catalog, sys->scaleout_network, hw.fabric.scaleout_latency_s);
  hw.host.memory_bytes_per_gpu = sys->host_memory_bytes_per_gpu();
  hw.host.bandwidth_bytes_per_s_per_gpu = hw.accelerator.host_link_bytes_per_s;
  if (sys->host_memory_bandwidth_bytes_per_s > 0 && sys->gpus_per_node > 0 && hw.accelerator.host_link_bytes_per_s > 0)
    hw.host.bandwidth_bytes_per_s_per_gpu = std::min(hw.accelerator.host_link_bytes_per_s,
                                                     sys->host_memory_bandwidth_bytes_per_s / sys->gpus_per_node);
  return hw;
}

}  // namespace gpuplan
