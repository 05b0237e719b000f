#pragma once
// What a search maximises. Tokens per second today; cost (tokens per dollar) once the cost model lands.
#include <string_view>

#include "training/training_step.h"

namespace gpuplan {

enum class Objective { tokens_per_s };
std::string_view to_string(Objective o);

// Higher is better. Only called on valid plans.
double objective_score(const TrainingResult& result, Objective objective);

}  // namespace gpuplan
