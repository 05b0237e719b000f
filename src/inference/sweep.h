#pragma once
// Sweeps the serving plan space (TP, EP, attention-DP, PP and concurrency) of one deployment and keeps
// the Pareto frontier of throughput per GPU against tokens/s per user: the curve vendors quote.
#include <vector>

#include "inference/inference.h"

namespace gpuplan {

struct SweepOptions {
  double ttft_limit_s = 0;  // 0: no limit
  double tpot_limit_s = 0;  // 0: no limit
  int max_pp = 1;           // pipeline stages tried: 1, 2, 4 .. max_pp
};

struct SweepPoint {
  InferenceParallel parallel;
  long long concurrency = 0;
  InferenceResult result;
};

struct SweepResult {
  size_t evaluated = 0;               // operating points evaluated
  size_t feasible = 0;                // of those, fitting in memory and within the limits
  std::vector<SweepPoint> frontier;   // Pareto-optimal, by ascending tokens/s per user
};

// Enumerates plans for `w.num_gpus` GPUs: tp over the valid degrees dividing the GPUs, ep over the
// divisors of tp (MoE), attention-DP on and off (MoE), pp up to max_pp, and concurrency in powers of
// two (x1.5 steps) up to what the KV cache holds. `w.concurrency` is ignored.
SweepResult sweep_inference(const ModelArch& m, const Hardware& hw, const InferenceWorkload& w,
                            const SweepOptions& opts = {});

// Indices of the points not dominated in (tokens/s per GPU, tokens/s per user), both higher-better.
std::vector<size_t> pareto_front(const std::vector<std::pair<double, double>>& points);

}  // namespace gpuplan
