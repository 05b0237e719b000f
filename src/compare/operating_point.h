#pragma once
// The operating points compare and recommend put side by side: the best training plan of a system
// for a workload (plan search), and the serving curve of a system (the Pareto frontier of throughput
// per GPU against tokens/s per user) read at an interactivity. Thin wrappers over search/ and
// inference/ so every figure comes from the same evaluators as `gpuplan search` and `infer --sweep`.
#include <optional>
#include <string>
#include <vector>

#include "inference/sweep.h"
#include "search/search.h"

namespace gpuplan::compare {

struct TrainingPick {
  bool found = false;
  std::string why_not;          // when !found: "no plan fits in memory (closest needs 95 GB of 80 GB)"
  TrainingWorkload workload;
  TrainingPlan plan;
  TrainingResult result;
  std::size_t evaluated = 0;
};
TrainingPick best_training(const ModelArch& model, const Hardware& hw, const TrainingWorkload& workload);

struct ServingCurve {
  std::size_t evaluated = 0;
  std::vector<SweepPoint> frontier;  // ascending tokens/s per user
};
ServingCurve serving_curve(const ModelArch& model, const Hardware& hw, const InferenceWorkload& workload,
                           const SweepOptions& options = {});

// The frontier point with the most throughput per GPU among those at least `tokens_per_s_per_user`
// fast; nullptr when the curve never gets that fast.
const SweepPoint* at_interactivity(const ServingCurve& curve, double tokens_per_s_per_user);
// The point of highest throughput per GPU (offline / maximum throughput).
const SweepPoint* max_throughput(const ServingCurve& curve);
// The fastest point per user.
const SweepPoint* max_interactivity(const ServingCurve& curve);

}  // namespace gpuplan::compare
