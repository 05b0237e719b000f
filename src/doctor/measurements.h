#pragma once
// What `gpuplan probe` measures on a GPU. Standard C++ only: src/probe/*.cu (compiled by nvcc) fills it.
#include <optional>
#include <string>
#include <vector>

namespace gpuplan::doctor {

// One timed GEMM: D[m x n] = A[m x k] * B[k x n], median over the timed repetitions.
struct GemmSample {
  std::string format;  // "bf16", "fp8"
  long m = 0, n = 0, k = 0;
  double median_s = 0;
  double flops_per_s() const { return median_s > 0 ? 2.0 * double(m) * double(n) * double(k) / median_s : 0; }
};

struct ProbeMeasurements {
  std::string device_name;  // cudaDeviceProp::name, "NVIDIA H200"
  int compute_capability = 0;
  double memory_bytes = 0;
  std::vector<GemmSample> gemms;
  double copy_bytes_per_s = 0;  // device-to-device copy, read plus write counted
  double read_bytes_per_s = 0;  // read-only kernel
  std::optional<double> gemm_power_w;  // NVML average board power during the largest BF16 GEMM
  std::vector<std::string> notes;      // skipped measurements and why
};

}  // namespace gpuplan::doctor
