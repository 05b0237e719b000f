#pragma once
// Plan search: enumerate the plan space, filter (divisibility, memory), evaluate the survivors with
// the training-step model, rank by the objective, keep the top K.
#include <cstddef>
#include <limits>
#include <vector>

#include "search/filter.h"
#include "search/objective.h"
#include "search/plan_space.h"
#include "training/training_step.h"

namespace gpuplan {

struct SearchOptions {
  std::size_t top_k = 5;
  Objective objective = Objective::tokens_per_s;
  ObjectiveContext objective_context;  // cost: the TCO per GPU-hour
  SpaceOptions space;
  MemoryOptions memory;  // capacity_bytes 0: the accelerator's HBM
  // Branch and bound (objective tokens_per_s): once the top is full, a candidate whose step time
  // cannot fall below what its tokens/s would need to enter it is skipped before its memory fit. The
  // top is the same; the stats then count only the candidates examined whole.
  bool prune = false;
  // Plans scoring below this are not wanted: the top holds only plans that reach it (and is empty when
  // none does). With prune, blocks and candidates whose bound falls below it are skipped before their
  // fit, so has_closest and the stats then describe only what was examined.
  double least_score = -std::numeric_limits<double>::infinity();
  // Layer costs shared with other searches of the same model, hardware, sequence and precision (the
  // GPU count may differ: a layer's cost does not read it); null: the search's own. One per thread.
  LayerCostCache* layer_costs = nullptr;
};

struct SearchCandidate {
  TrainingPlan plan;       // dp filled in
  TrainingResult result;   // valid, memory.fits
  double score = 0;        // the objective
};

struct SearchStats {
  std::size_t enumerated = 0;
  std::size_t evaluated = 0;                // timed by the training-step model
  std::size_t dropped_divisibility = 0;
  std::size_t dropped_memory = 0;
  std::size_t dropped() const { return dropped_divisibility + dropped_memory; }
};

struct SearchResult {
  SearchStats stats;
  std::vector<SearchCandidate> top;  // best first, at most top_k
  // When nothing survived: the plan that came closest to fitting (least over capacity), if any divided.
  bool has_closest = false;
  TrainingPlan closest_plan;
  TrainingMemory closest_memory;
};

// Searches build_plan_space(model, hw, workload, options.space).
SearchResult search_plans(const ModelArch& model, const Hardware& hw, const TrainingWorkload& workload,
                          const SearchOptions& options = {});

// Searches `space` (e.g. one narrowed to some stated fields); options.space is not used. Each
// candidate that divides gets the space's memory savers (fit_memory_savers) before the memory check.
SearchResult search_plan_space(const PlanSpace& space, const ModelArch& model, const Hardware& hw,
                               const TrainingWorkload& workload, const SearchOptions& options = {});

}  // namespace gpuplan
