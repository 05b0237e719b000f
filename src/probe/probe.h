#pragma once
// The CUDA probe: times cuBLASLt GEMMs (BF16, FP8), HBM copy and read bandwidth, and NVML power on one
// GPU. Built only with CUDA (cmake/probe.cmake defines GPUPLAN_HAVE_PROBE); no CUDA types in this header.
#include <iosfwd>
#include <string>

#include "doctor/measurements.h"

namespace gpuplan::probe {

struct Options {
  bool quick = false;  // fewer shapes and repetitions (about 20 s on an H200)
  int device = 0;      // CUDA device index
};

// Measures; progress goes to log. Throws std::runtime_error on CUDA, cuBLASLt or allocation errors (no
// GPU: "no CUDA device: ...").
doctor::ProbeMeasurements run(const Options& opts, std::ostream& log);

// The entry point of the probe module (libgpuplan_probe.so), which `gpuplan probe` opens with dlopen so
// that no other command loads cuBLASLt: run() behind a C symbol; returns 0, or 1 with *error set.
using ModuleRunFn = int (*)(const Options* opts, doctor::ProbeMeasurements* out, std::ostream* log,
                            std::string* error);
inline constexpr const char* kModuleRunSymbol = "gpuplan_probe_run";

}  // namespace gpuplan::probe
