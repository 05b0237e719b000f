#pragma once
// Scaling sweeps: the best plan (or one fixed plan) at each GPU count, for weak scaling (the global
// batch grows with the GPUs at a fixed batch per GPU) and strong scaling (the global batch is fixed).
// MFU and tokens/s per GPU against N are the curves SemiAnalysis and NVIDIA publish.
#include <functional>
#include <optional>
#include <vector>

#include "search/search.h"

namespace gpuplan {

enum class ScalingMode { weak, strong };
std::string_view to_string(ScalingMode m);

struct ScalingOptions {
  ScalingMode mode = ScalingMode::strong;
  std::vector<int> gpus;             // GPU counts, in order
  long long global_batch = 1024;     // strong: sequences per step at every N
  double batch_per_gpu = 1.0;        // weak: global batch = round(batch_per_gpu * N) sequences
  int seq_len = 4096;
  Precision precision = Precision::bf16;
  std::optional<TrainingPlan> fixed_plan;  // evaluate this plan (dp derived) instead of searching
  SearchOptions search;                    // top_k is forced to 1
};

struct ScalingPoint {
  int gpus = 0;
  long long global_batch = 0;
  bool found = false;          // a valid plan that fits memory
  TrainingPlan plan;           // the best (or the fixed) plan; dp filled in when it divides
  TrainingResult result;       // timed whenever the plan divides (even if it does not fit)
  SearchStats stats;           // searched points only
  std::string reason;          // why not found: "divisibility: ..." or "memory: ..."
};

// progress(done, total) after each point, for long sweeps.
std::vector<ScalingPoint> scaling_sweep(const ModelArch& model, const Hardware& hw, const ScalingOptions& options,
                                        const std::function<void(std::size_t, std::size_t)>& progress = {});

// Global batch at N GPUs under the options' mode (at least 1 sequence).
long long scaling_global_batch(const ScalingOptions& options, int gpus);

}  // namespace gpuplan
