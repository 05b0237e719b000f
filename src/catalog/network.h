#pragma once
// A link, NIC or fabric generation: NVLink 3/4/5, InfiniBand HDR/NDR/XDR, Ethernet 400G/800G.
#include <map>
#include <string>
#include <vector>

namespace gpuplan {

enum class NetworkTier { scale_up, scale_out };

struct Network {
  std::string name;  // "nvlink4", "ib-ndr", "eth-400g"
  std::string display_name;
  std::vector<std::string> aliases;
  NetworkTier tier = NetworkTier::scale_out;
  double bandwidth_bytes_per_s = 0;  // per GPU-facing port, one direction
  double latency_s = 0;              // one hop, end to end, as a modelling figure
  bool latency_is_assumption = true; // true where no vendor figure exists
  std::map<std::string, std::string> sources;
  std::string origin;
};

}  // namespace gpuplan
