#pragma once
// The search's filter: whether a candidate plan divides the model, GPU count and batch, then whether
// it fits in memory. Cheap checks first, so the timing model only sees plans that could run.
#include <string_view>

#include "memory/training_memory.h"
#include "model/model.h"
#include "physics/hardware.h"
#include "plan/plan.h"

namespace gpuplan {

enum class DropReason { none, divisibility, memory };
std::string_view to_string(DropReason r);

// Divisibility: every rule of check_plan (fills plan.dp) plus those the memory estimator enforces
// (TP splits the KV groups, pp*vp <= layers, cp divides seq, ep*etp divides a stage's GPUs), so an
// accepted plan never makes training_memory throw. True when the plan divides.
bool plan_divides(const ModelArch& model, TrainingPlan& plan, const TrainingWorkload& workload);

// Divisibility, then memory against `options.capacity_bytes` (0: the accelerator's HBM). `memory`
// receives the estimate when divisibility passed.
DropReason filter_plan(const ModelArch& model, const Hardware& hw, TrainingPlan& plan,
                       const TrainingWorkload& workload, const MemoryOptions& options, TrainingMemory& memory);

}  // namespace gpuplan
