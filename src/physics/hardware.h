#pragma once
// The hardware one evaluation runs on, resolved from the catalog once: the accelerator, its fitted
// efficiencies, and the two link tiers (inside one NVLink domain, and across the scale-out network).
#include "catalog/accelerator.h"
#include "catalog/catalog.h"
#include "catalog/efficiency.h"
#include "catalog/system.h"

namespace gpuplan {

struct Fabric {
  int domain_gpus = 8;                          // GPUs in one scale-up (NVLink) domain
  // The NVLink domain spans hosts (GB200 / GB300 NVL72: 18 compute trays of 4 GPUs), so engines' multi-node
  // NVLink paths (TensorRT-LLM's MNNVL all-to-all) run.
  bool multi_node_nvlink = false;
  double scaleup_bytes_per_s = 450e9;           // per GPU, one direction, all its scale-up links
  // The domain's GPUs are wired to one another directly (System::scaleup_topology), not through switches.
  bool scaleup_direct_mesh = false;
  double scaleout_bytes_per_s = 50e9;           // per GPU, one direction (its NIC share)
  double scaleup_latency_s = 3e-6;              // one step of a collective inside the domain
  double scaleout_latency_s = 8e-6;             // one step across the scale-out network
  // The scale-out fabric's shape (gpuplan fabric; defaults: a non-blocking rail-optimized fat tree).
  double scaleout_beyond_leaf_fraction = 1.0;   // bandwidth share past the leaf: u/d at d:u oversubscription
  int scaleout_leaf_gpus = 0;                   // GPUs under one scalable unit's leaves (0: the whole cluster)
  bool scaleout_rail_only = false;              // no spine: cross-rail traffic is forwarded over NVLink first

  // Per GPU, one direction: what a collective among `ranks` GPUs of one scale-up domain moves at. Through
  // switches, the GPU's whole scale-up bandwidth; in a direct mesh of the domain's n GPUs, the links to
  // the ranks - 1 peers, (ranks - 1) / (n - 1) of it (a pair: one peer's links).
  double scaleup_group_bytes_per_s(int ranks) const {
    if (!scaleup_direct_mesh || domain_gpus <= 2) return scaleup_bytes_per_s;
    const int peers = ranks < 2 ? 1 : (ranks > domain_gpus ? domain_gpus : ranks) - 1;
    return scaleup_bytes_per_s * double(peers) / double(domain_gpus - 1);
  }
};

// The host side one GPU sees: its share of the node's host DRAM and of the bandwidth to it.
struct HostSide {
  double memory_bytes_per_gpu = 0;  // node's host DRAM / GPUs per node; 0: unknown (not checked)
  // Offload traffic of one GPU when all the node's GPUs offload at once: min(its host link, the node's
  // host-memory bandwidth / GPUs per node); the host link alone where the node's is not published.
  double bandwidth_bytes_per_s_per_gpu = 0;
};

struct Hardware {
  Accelerator accelerator;
  Efficiency efficiency;
  Fabric fabric;
  HostSide host;
  std::string system_name;
};

// GPUs of one PCIe server (the 8-GPU PCIe chassis the published L40S tables ran TP up to 8 on, e.g.
// NVIDIA's TensorRT-LLM perf overview): the scale-up domain of a card without NVLink when no catalog
// system is built from it (a modelling assumption; a catalog system states its own).
inline constexpr int kPcieServerGpus = 8;

// Resolves a system (HGX node, NVL72 rack) to the hardware an evaluation needs. `system_or_gpu` may
// name a system or, for convenience, an accelerator that no catalog system is built from (then its
// largest scale-up domain is used with the catalog's default scale-out network; a PCIe card without
// NVLink: kPcieServerGpus over its PCIe link; host memory unknown). An accelerator some system is
// built from resolves to that system; a name that is neither -> InputError listing the systems.
Hardware resolve_hardware(const Catalog& catalog, const std::string& system_or_gpu);

}  // namespace gpuplan
