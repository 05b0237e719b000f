#pragma once
// The serving operating-point chooser: for a serving scenario that leaves the deployment and the load
// open, the deployment (aggregated or disaggregated, TP/EP widths, attention-DP, pipeline stages, MTP on
// models with an MTP module) and the number of whole units that give the most output tokens/s per GPU
// while every user gets the target speed within the TTFT limit. The load of each deployment is solved
// for, not read off a grid: the largest concurrency whose per-user speed still meets the target (per-user
// speed falls and TTFT grows with the load; throughput per GPU grows with it), by bisection between one
// sequence per rank and the KV cache's (or the decode slots') limit, then the best of the loads just
// below it and of the few that fill the ranks evenly (throughput per GPU is not monotone in the load:
// the busiest rank sets every rank's step). infer's point mode, compare, cost,
// recommend and site call it; see docs/inference-model.md ("The operating-point chooser").
#include <array>
#include <cstddef>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/spin_lock.h"
#include "inference/serving_scenario.h"
#include "inference/sweep.h"

namespace gpuplan {

// The operating points a chooser evaluated, by deployment and load: what several questions that differ
// only in the traffic's targets (tokens/s per user, TPOT and TTFT limits) share, since the points do not
// depend on them. Only for scenarios with the same model, hardware, workload, engine and ISL/OSL. Choosers
// on several threads may share one.
struct ServingEvalCache {
  // A point's deployment (every field of it that the evaluators read) and load.
  using Key = std::array<long long, 26>;
  struct KeyHash {
    std::size_t operator()(const Key& k) const;
  };
  SpinLock mutex;  // a few map operations at a time (core/spin_lock.h)
  std::unordered_map<Key, InferenceResult, KeyHash> points;
  DisaggregatedPools pools;  // the disaggregated deployments' pools
};

struct ChooserOptions {
  // A fixed GPU count (infer --gpus): deployments over exactly these GPUs; 0: whole units of the
  // scenario's unit_gpus, 1, 2, 4 .. max_units of them, as many as the best deployment needs.
  int gpus = 0;
  int max_units = 8;
  // Pipeline stages tried on one unit (or the fixed GPUs), and beyond one unit (a model too large for one
  // unit is served over several with pipeline stages between them).
  int max_pp = 1;
  int max_pp_beyond_one = 8;
  // MoE models: disaggregated pools, wide EP and MTP on/off (models with an MTP module); false: aggregated
  // engines only, MTP as the workload states it.
  bool explore_moe = true;
  // More units are chosen only when they give at least this much more throughput per GPU than fewer (a
  // larger purchase and failure domain for a gain inside the model's error is no gain).
  double more_units_margin = 0.01;
  // Shared with other questions on the same scenario but for its targets (see ServingEvalCache); null:
  // none.
  ServingEvalCache* cache = nullptr;
  // Skip the deployments and loads whose bound on throughput per GPU cannot beat the best found (the
  // answer is the same; docs/operating-point.md, "Pruning"); false: solve every deployment at every load
  // the solve tries (what the pruning is checked against).
  bool prune = true;
};

struct ServingChoice {
  bool met = false;         // a deployment meets the target within the TTFT limit
  std::string why_not;      // when !met: why none does
  SweepPoint point;         // when met: the deployment at the solved load
  int gpus = 0;             // GPUs the chosen deployment runs on (when !met: the most tried)
  int units = 0;            // the whole units of unit_gpus they take (0 with a fixed GPU count)
  int unit_gpus = 0;
  // The fewest units on which a deployment meets the target, and the most tokens/s per GPU bought there: equal to
  // units and the point's when the chosen size is the fewest that meets it; fewer when more units were
  // chosen for more throughput per GPU (0 with a fixed GPU count or when !met).
  int fewest_units = 0;
  double fewest_units_tokens_per_s_per_gpu = 0;
  // Every size's best point that gave more tokens/s per GPU bought than the smaller sizes', smallest first
  // (the last is `point`): a demand of few users is met on fewer GPUs by an earlier one, copies of the
  // chosen one serve many users on the fewest GPUs per user (recommend weighs them).
  std::vector<SweepPoint> by_size;
  double target_tokens_per_s_per_user = 0;  // the traffic's (0: none: the most throughput within the TTFT limit)
  double ttft_limit_s = 0;
  // The fastest per-user speed any deployment reached (at one sequence per rank) within the TTFT limit,
  // and the lowest TTFT seen: what the why_not quotes.
  double fastest_tokens_per_s_per_user = 0;
  double lowest_ttft_s = 0;
  std::size_t deployments = 0;  // deployments considered
  std::size_t evaluated = 0;    // operating points evaluated
};

// The chosen deployment and load of `s` (see the header comment). Never throws for a deployment the
// model's shapes refuse (it is skipped); InputError for a malformed scenario (ISL/OSL out of range).
ServingChoice choose_serving(const ServingScenario& s, const ChooserOptions& options = {});

// The load at which deployment `d` meets the scenario's traffic with the most tokens/s per GPU (the
// largest that meets it, or one of the few below it the chooser tries): its point, or false when even
// one sequence per rank misses it. `evaluated` counts the evaluations.
bool solve_load(const ServingScenario& s, const ServingDeployment& d, SweepPoint& out, std::size_t* evaluated = nullptr);

}  // namespace gpuplan
