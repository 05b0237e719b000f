#pragma once
// What a search maximises: tokens per second, or tokens per dollar (cost: $ per million tokens from
// the system's TCO per GPU-hour, src/cost). With the system and GPU count fixed the two rank plans the
// same way; the cost objective reports the figure a buyer compares.
#include <string_view>

#include "training/training_step.h"

namespace gpuplan {

enum class Objective { tokens_per_s, cost };
std::string_view to_string(Objective o);

struct ObjectiveContext {
  double usd_per_gpu_hour = 0;  // cost: the system's TCO per GPU-hour (> 0)
};

// Higher is better. Only called on valid plans. cost: minus $ per million tokens.
double objective_score(const TrainingResult& result, Objective objective, const ObjectiveContext& ctx = {});

// $ per million tokens trained at `usd_per_gpu_hour` (0 when the rate or the throughput is 0).
double usd_per_million_tokens(const TrainingResult& result, double usd_per_gpu_hour);

}  // namespace gpuplan
