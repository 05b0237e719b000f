#pragma once
// Parsers for what the NVIDIA tools print: `nvidia-smi --query-gpu=... --format=csv`, `nvidia-smi topo -m`,
// `nvcc --version` and the one-line JSON our PyTorch probe prints. Pure: they take the text, never run
// anything (the CLI runs the commands), so recorded outputs (src/doctor/fixtures/) test them.
#include <optional>
#include <string>
#include <vector>

namespace gpuplan::doctor {

// The query the CLI runs; parse_smi_query expects its columns in this order (header names are checked).
inline constexpr const char* kSmiQueryFields =
    "index,name,uuid,pci.bus_id,driver_version,memory.total,compute_cap,power.limit";

struct SmiGpu {
  int index = 0;
  std::string name;            // "NVIDIA H100 80GB HBM3"
  std::string uuid;
  std::string pci_bus_id;
  std::string driver_version;  // "550.54.15"
  double memory_bytes = 0;     // memory.total, MiB converted to bytes
  int compute_capability = 0;  // "9.0" -> 90; 0 when the driver does not report it
  double power_limit_w = 0;    // 0 when [N/A]
};

// Rows of `nvidia-smi --query-gpu=<kSmiQueryFields> --format=csv` (header line first). "No devices were
// found" gives an empty list. Throws InputError when the text is not that CSV.
std::vector<SmiGpu> parse_smi_query(const std::string& csv);

// `nvidia-smi topo -m`: the GPU-to-GPU block of the matrix ("X", "NV18", "SYS", "PIX", ...).
struct Topology {
  std::vector<std::string> gpus;               // "GPU0", "GPU1", ...
  std::vector<std::vector<std::string>> link;  // link[i][j] between gpus[i] and gpus[j]
  // NVLink count between i and j ("NV18" -> 18); 0 when the pair talks over PCIe or the CPU.
  int nvlinks(size_t i, size_t j) const;
};
// Throws InputError when there is no header row naming GPU columns.
Topology parse_topo(const std::string& text);

// "Cuda compilation tools, release 12.4, V12.4.131" -> "12.4"; nullopt when absent.
std::optional<std::string> parse_nvcc_version(const std::string& text);

// What `python3 -c <kTorchProbe>` prints: one JSON line.
inline constexpr const char* kTorchProbe =
    "import json, torch; print(json.dumps({'version': torch.__version__, 'cuda': torch.version.cuda, "
    "'arch_list': torch.cuda.get_arch_list() if torch.version.cuda else [], "
    "'cuda_available': torch.cuda.is_available()}))";
struct TorchInfo {
  std::string version;   // "2.5.1+cu124" as torch prints it
  std::string cuda;      // CUDA the wheel was built with, "" for a CPU-only wheel
  std::vector<std::string> arch_list;  // "sm_90", "compute_90", ...
  bool cuda_available = false;
};
// Reads the last JSON line of the output; throws InputError when there is none.
TorchInfo parse_torch_probe(const std::string& text);

// Dotted-version comparison: "550.54.15" vs "525.60.13" -> >0; missing parts count as 0; the "+cu124"
// suffix and other non-digits end a part.
int compare_versions(const std::string& a, const std::string& b);

// The newest CUDA a Linux driver supports (CUDA toolkit release notes, table 3 "CUDA Toolkit and
// Corresponding Driver Versions"): "550.54.15" -> "12.4". "" for drivers older than CUDA 11.0's.
std::string cuda_for_driver(const std::string& driver_version);

}  // namespace gpuplan::doctor
