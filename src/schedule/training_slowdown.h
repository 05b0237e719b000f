#pragma once
// The cross-domain slowdown as the training model computes it: how much longer one step of a
// reference model takes when a job's tightly coupled group spans two NVLink domains instead of one.
#include "model/model.h"
#include "physics/hardware.h"
#include "schedule/slowdown.h"

namespace gpuplan::schedule {

// The group of g GPUs is the reference model's tensor-parallel group where it can be (up to 8, dividing
// heads and KV heads) and data-parallel beyond; the step is evaluated with the group inside one domain
// and split over two (domain of g/2 GPUs), and the ratio of the two step times is the factor (>= 1).
// Factors are computed once per group size and cached.
SlowdownModel training_slowdown(const Hardware& hw, const ModelArch& reference);

// The factor for one group size (what the SlowdownModel returns for a split group).
double training_slowdown_factor(const Hardware& hw, const ModelArch& reference, int group_gpus);

}  // namespace gpuplan::schedule
