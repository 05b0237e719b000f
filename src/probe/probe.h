#pragma once
// The CUDA probe: times cuBLASLt GEMMs (BF16, FP8), HBM copy and read bandwidth, and NVML power on one
// GPU. Built only with CUDA (cmake/probe.cmake defines GPUPLAN_HAVE_PROBE); no CUDA types in this header.
#include <iosfwd>

#include "doctor/measurements.h"

namespace gpuplan::probe {

struct Options {
  bool quick = false;  // fewer shapes and repetitions (about 20 s on an H200)
  int device = 0;      // CUDA device index
};

// Measures; progress goes to log. Throws std::runtime_error on CUDA, cuBLASLt or allocation errors (no
// GPU: "no CUDA device: ...").
doctor::ProbeMeasurements run(const Options& opts, std::ostream& log);

}  // namespace gpuplan::probe
