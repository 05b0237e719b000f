#include "physics/hardware.h"

#include <algorithm>

namespace gpuplan {

namespace {

double latency_or(const Catalog& c, const std::string& network, double fallback) {
  if (network.empty()) return fallback;
  const Network* n = c.find_network(network);
  return n && n->latency_s > 0 ? n->latency_s : fallback;
}

}  // namespace

Hardware resolve_hardware(const Catalog& catalog, const std::string& system_or_gpu) {
  const System* sys = catalog.find_system(system_or_gpu);
  if (!sys) {
    // An accelerator name: use the first system built from it, if any.
    const Accelerator& acc = catalog.accelerator(system_or_gpu, "--system");
    for (const auto& s : catalog.systems())
      if (s.accelerator == acc.name) {
        sys = &s;
        break;
      }
    if (!sys) {
      Hardware hw;
      hw.accelerator = acc;
      hw.efficiency = catalog.efficiency(acc.generation);
      hw.fabric.domain_gpus = std::max(1, std::min(acc.max_scaleup_domain, 8));
      hw.fabric.scaleup_bytes_per_s = acc.scaleup_bandwidth_bytes_per_s > 0 ? acc.scaleup_bandwidth_bytes_per_s : 32e9;
      hw.system_name = acc.name;
      return hw;
    }
  }
  Hardware hw;
  hw.accelerator = catalog.accelerator(sys->accelerator, "system.accelerator");
  hw.efficiency = catalog.efficiency(hw.accelerator.generation);
  hw.system_name = sys->name;
  hw.fabric.domain_gpus = std::max(1, sys->nvlink_domain_gpus);
  hw.fabric.scaleup_bytes_per_s = hw.accelerator.scaleup_bandwidth_bytes_per_s > 0
                                      ? hw.accelerator.scaleup_bandwidth_bytes_per_s
                                      : 32e9;
  hw.fabric.scaleout_bytes_per_s =
      sys->scaleout_bandwidth_bytes_per_s_per_gpu > 0 ? sys->scaleout_bandwidth_bytes_per_s_per_gpu : 50e9;
  hw.fabric.scaleup_latency_s = latency_or(catalog, sys->scaleup_network, hw.fabric.scaleup_latency_s);
  hw.fabric.scaleout_latency_s = latency_or(catalog, sys->scaleout_network, hw.fabric.scaleout_latency_s);
  return hw;
}

}  // namespace gpuplan
