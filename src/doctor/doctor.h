#pragma once
// The environment doctor: from what nvidia-smi, nvcc and PyTorch report (already parsed), match each GPU
// to the catalog and check the compatibility rules the catalog holds. Pure; the CLI gathers the inputs.
#include <optional>
#include <string>
#include <vector>

#include "catalog/catalog.h"
#include "doctor/nvidia_smi.h"

namespace gpuplan::doctor {

// How running one tool went. The CLI fills it; tests build it from fixtures.
enum class ToolStatus { ok, missing, failed, timed_out, not_run };
const char* to_string(ToolStatus s);

struct ToolOutput {
  ToolStatus status = ToolStatus::not_run;
  std::string text;  // stdout (and stderr) of the command
  int exit_code = 0;
};

// Everything the doctor looks at.
struct Environment {
  ToolOutput smi_query;  // nvidia-smi --query-gpu=<kSmiQueryFields> --format=csv
  ToolOutput smi_topo;   // nvidia-smi topo -m
  ToolOutput nvcc;       // nvcc --version
  ToolOutput torch;      // python3 -c <kTorchProbe>
};

enum class Severity { ok, warning, error };
const char* to_string(Severity s);

struct Finding {
  Severity severity = Severity::ok;
  std::string subject;  // "GPU0", "driver", "pytorch", "topology", "nvcc"
  std::string message;  // what was found
  std::string action;   // what to do; empty when nothing
};

struct GpuReport {
  SmiGpu smi;
  std::string catalog_name;  // "h200-sxm"; "" when unmatched
  std::string generation;
};

struct Report {
  bool nvidia_smi_found = false;
  std::vector<GpuReport> gpus;
  std::optional<Topology> topology;
  std::string driver_version;  // of GPU0
  std::string driver_cuda;     // newest CUDA the driver supports, "12.4"
  std::optional<std::string> nvcc_version;
  std::optional<TorchInfo> torch;
  std::vector<Finding> findings;
  Severity worst() const;
};

// The catalog entry for an nvidia-smi name ("NVIDIA H100 80GB HBM3", "NVIDIA GB200"): exact names and
// aliases first, then the family token (H100, B200, ...) with the form factor (PCIe, NVL) and the
// catalog entry whose memory is nearest to memory_bytes. nullptr when none fits.
const Accelerator* match_accelerator(const Catalog& catalog, const std::string& smi_name, double memory_bytes);

// Runs every check; never throws for what it finds (unparseable tool output becomes an error finding).
Report diagnose(const Environment& env, const Catalog& catalog);

}  // namespace gpuplan::doctor
