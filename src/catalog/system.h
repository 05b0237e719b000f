#pragma once
// A buildable system: an 8-GPU HGX/DGX node, an NVL72 rack, an MI300X platform.
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace gpuplan {

enum class Cooling { air, liquid };

// How a scale-up domain's GPUs are wired. switched: every GPU's links run to switches (NVSwitch, NVLink
// Switch trays), so any group of its GPUs talks at the GPU's whole scale-up bandwidth. direct_mesh:
// each GPU's links are split evenly over direct links to every other GPU of the domain (HGX H100 4-GPU:
// 6 of its 18 NVLinks to each peer), so a group of k of its n GPUs reaches only the k - 1 peers' links:
// (k - 1) / (n - 1) of it.
enum class ScaleupTopology { switched, direct_mesh };

struct System {
  std::string name;          // catalog key, e.g. "hgx-h200", "gb300-nvl72"
  std::string display_name;  // "HGX H200 8-GPU"
  std::vector<std::string> aliases;
  std::string accelerator;   // Accelerator::name
  int gpus_per_node = 8;     // GPUs that share one host (compute tray on NVL72: 4)
  int nodes = 1;             // nodes in one system unit (NVL72: 18 compute trays)
  int nvlink_domain_gpus = 8;                // GPUs in one scale-up (NVLink) domain
  std::string scaleup_network;               // Network::name of the scale-up fabric
  ScaleupTopology scaleup_topology = ScaleupTopology::switched;
  std::string scaleout_network;              // Network::name of the default scale-out fabric
  double scaleout_bandwidth_bytes_per_s_per_gpu = 0;  // one direction, per GPU (NIC share)
  double power_w = 0;                        // whole system unit at full load (node or rack)
  Cooling cooling = Cooling::air;
  // The host side of a node (the CPUs and their DRAM that the node's gpus_per_node GPUs share): what
  // CPU-resident training state (offloaded activations, pinned buffers) must fit in, and the bandwidth
  // offload traffic of all the node's GPUs shares. 0: not published (host memory is then not checked).
  double host_memory_bytes = 0;               // per node (HGX/DGX: the server; NVL72: one compute tray)
  double host_memory_bandwidth_bytes_per_s = 0;  // per node, one direction, shared by its GPUs
  std::optional<int> rack_units;
  std::optional<double> price_usd;           // system unit price where published
  std::vector<std::string> claims;           // vendors' headline claims with their conditions, verbatim
  std::map<std::string, std::string> sources;
  std::string origin;

  int gpus_per_unit() const { return gpus_per_node * nodes; }
  double host_memory_bytes_per_gpu() const { return gpus_per_node > 0 ? host_memory_bytes / gpus_per_node : 0.0; }
};

}  // namespace gpuplan
