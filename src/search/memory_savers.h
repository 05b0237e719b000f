#pragma once
// Memory savers counted in layers: full recompute of the first recompute_layers layers of each model
// chunk (Megatron --recompute-num-layers) and activation offload of the first offload_layers layers of
// each chunk to host memory (Megatron/Transformer Engine cpu_offloading_num_layers, over the GPU's host
// link). Memory falls and time rises as layers are added, so the fastest setting that fits is the
// fewest layers that fit, found by bisection. Used by the search and by validate's blank-plan fill, so
// both give one workload the same plan.
#include "memory/training_memory.h"
#include "model/model.h"
#include "physics/hardware.h"
#include "plan/plan.h"

namespace gpuplan {

struct MemorySavers {
  bool partial_recompute = true;  // full recompute: the fewest layers that fit instead of all
  bool offload = true;            // no/selective/module recompute that does not fit: offload the fewest layers that fit
};

// `plan` divides (plan_divides or check_plan passed; dp filled). Estimates its memory against
// `options` (capacity_bytes 0: the accelerator's HBM) and, as `savers` allow:
// - full recompute of all layers (recompute_layers 0) that fits: recompute_layers becomes the fewest
//   layers of each chunk that fit (0 again when only all of them do);
// - any other recompute that does not fit, on an accelerator with a catalogued host link and
//   offload_layers 0: offload_layers becomes the fewest layers of each chunk that fit, or stays 0 when
//   offloading every layer does not fit either.
// Returns the memory estimate of the plan as left. Pure; a few memory estimates.
TrainingMemory fit_memory_savers(const ModelArch& model, const Hardware& hw, TrainingPlan& plan,
                                 const TrainingWorkload& workload, const MemoryOptions& options,
                                 const MemorySavers& savers = {});

// fit_memory_savers, returning the totals of the memory estimate it would return (the same figures):
// for a search that needs the whole estimate of few of its candidates.
TrainingMemoryTotals fit_memory_saver_totals(const ModelArch& model, const Hardware& hw, TrainingPlan& plan,
                                             const TrainingWorkload& workload, const MemoryOptions& options,
                                             const MemorySavers& savers = {});

}  // namespace gpuplan
