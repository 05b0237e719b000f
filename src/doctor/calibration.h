#pragma once
// From probe measurements to the efficiency parameters of the performance models (efficiency.h), and the
// measured-vs-datasheet comparison. Pure: the CUDA probe (src/probe/) fills ProbeMeasurements; no CUDA here.
#include <optional>
#include <string>
#include <vector>

#include "catalog/catalog.h"
#include "doctor/measurements.h"

namespace gpuplan::doctor {

// One figure, measured against the datasheet.
struct Comparison {
  std::string figure;  // "bf16 gemm 8192x8192x8192"
  double measured = 0, datasheet = 0;
  std::string unit;    // "FLOP/s", "B/s"
};

struct Calibration {
  Efficiency efficiency;  // the base entry with the measured fields replaced
  std::vector<Comparison> comparisons;
  std::optional<double> joules_per_flop;  // BF16, from the NVML power
};

// Fits gemm_max and gemm_half_dim on the BF16 samples (achieved/peak = gemm_max * d/(d + half_dim), d the
// smallest of m, n, k; least squares on log), gemm_fp8_scale as the median FP8 ratio to that curve, and
// hbm_eff = copy bandwidth / peak. Fields without samples keep base's values. Throws InputError when the
// accelerator has no BF16 peak or there are no BF16 samples.
Calibration fit_calibration(const ProbeMeasurements& m, const Accelerator& acc, const Efficiency& base,
                            const std::string& date);

// The catalog overlay the probe writes (--out): an `efficiencies:` document `--catalog DIR` loads.
std::string calibration_yaml(const Calibration& c, const ProbeMeasurements& m, const Accelerator& acc);

}  // namespace gpuplan::doctor
