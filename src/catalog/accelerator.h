#pragma once
// One accelerator (GPU or other chip) as the catalog describes it. All figures per device, in SI units.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/precision.h"

namespace gpuplan {

struct Accelerator {
  std::string name;          // catalog key, e.g. "H200-SXM"
  std::string display_name;  // as the vendor writes it, e.g. "H200 SXM"
  std::vector<std::string> aliases;  // other names sources use ("H200-SXM-141GB", "H200")
  std::string vendor;        // NVIDIA, AMD, Intel, Google
  std::string architecture;  // "Hopper (GH100)"
  std::string generation;    // efficiency group: ampere, ada, hopper, blackwell, blackwell_ultra, cdna3, ...
  int launch_year = 0;
  std::string form_factor;   // SXM5, PCIe, OAM, ...

  // Dense (non-sparse) tensor peak rates in FLOP/s (int8: OP/s). A format the chip lacks is absent.
  std::map<MathFormat, double> peak_flops;

  double memory_bytes = 0;                  // HBM/GDDR capacity in bytes (see memory_basis)
  // How memory_bytes was given: "driver" (memory_mib: the total nvidia-smi/rocm-smi reports, binary
  // MiB, what frameworks allocate from) or "datasheet" (memory_gb: the vendor's decimal GB).
  std::string memory_basis = "datasheet";
  double memory_bandwidth_bytes_per_s = 0;  // peak HBM bandwidth
  std::string memory_type;

  std::string scaleup_link;                         // "NVLink 4", "PCIe Gen5", "Infinity Fabric"
  double scaleup_bandwidth_bytes_per_s = 0;         // per GPU, one direction
  int max_scaleup_domain = 1;                       // GPUs reachable at scale-up bandwidth
  // GPU <-> host (CPU) memory, per GPU, one direction: PCIe to an x86 host, NVLink-C2C to Grace. What
  // activation offload moves over; 0: not published (offload is not modelled).
  double host_link_bytes_per_s = 0;
  double tdp_w = 0;

  std::string arch_target;      // "sm_90", "gfx942"
  int compute_capability = 0;   // NVIDIA only: 80, 86, 89, 90, 100, 103, 120; 0 elsewhere
  std::string min_cuda;         // "12.0" (or ROCm version for AMD)
  std::string min_driver;       // "525.60.13"
  std::string first_pytorch;    // "2.0"
  std::optional<double> price_usd;

  // Provenance: field name -> source (URL or citation). Key "*" is the entry's primary source.
  std::map<std::string, std::string> sources;
  std::string origin;  // "built-in" or the user file the entry came from

  // Peak dense rate for a format; 0 when the chip has no such tensor path.
  double peak(MathFormat f) const {
    auto it = peak_flops.find(f);
    return it == peak_flops.end() ? 0.0 : it->second;
  }
};

}  // namespace gpuplan
