#pragma once
// The space of training plans a search walks: one candidate list per dimension (TP, PP, VP, CP and
// its exchange, EP, micro-batch, recompute, ZeRO), built from the model and the hardware alone. The enumerator visits
// their cross product; whether a plan divides the GPU count and batch is the filter's business.
#include <cstddef>
#include <functional>
#include <vector>

#include "model/model.h"
#include "physics/hardware.h"
#include "plan/plan.h"
#include "search/memory_savers.h"

namespace gpuplan {

struct PlanSpace {
  std::vector<int> tp, pp, vp, cp, ep, mbs, zero;
  std::vector<Recompute> recompute;
  // Context-parallel exchanges tried where cp > 1 (training/context_parallel.h): ring and a2a.
  std::vector<CpKind> cp_kinds = {CpKind::ring, CpKind::a2a};
  // The kinds a cp value is tried with: ring alone without CP.
  std::vector<CpKind> kinds_for(int cp_value) const;
  MemorySavers savers;  // applied to each candidate that divides (search/memory_savers.h)
  // Plans with EP > 1 overlap the expert all-to-all with compute, as the newest framework runs them
  // (training/expert_overlap.h: a MoE model, EP > 1), so the search ranks and times them as `train` does.
  bool ep_overlap = true;
  // Plans in the cross product (vp > 1 pairs only with pp values that interleave; see vp_allowed).
  std::size_t size() const;
  // Whether pp * vp model chunks split the layers: vp == 1, or pp > 1 with pp*vp <= layers and the
  // spare slots at most Megatron's embedding/loss pipeline slots (2) or the first and last chunks'
  // shortfall, each keeping a layer (plan_space.cc).
  int layers = 0;
  bool vp_allowed(int pp_value, int vp_value) const;
};

struct SpaceOptions {
  std::vector<int> mbs = {1, 2, 4, 8};
  int max_vp = 8;
  // CP only for long sequences: each CP rank keeps at least this many tokens of a sequence.
  int min_tokens_per_cp_rank = 4096;
  // TP beyond the NVLink domain: up to this multiple of the domain size. 1: TP stays inside the domain,
  // as every published recipe keeps it (TP's per-layer all-gathers and reduce-scatters over the
  // scale-out network cost more than any plan gains; the evaluator still costs a stated one over it).
  int tp_domain_multiple = 1;
  // Module recompute (norms, the experts' activation, MLA up-projections) as a recompute choice.
  bool module_recompute = true;
  // Applied to each candidate that divides (search/memory_savers.h): full recompute of the fewest
  // layers that fit, activation offload of the fewest layers that fit where the GPU has a host link.
  MemorySavers savers;
  // The expert all-to-all overlapped on plans with EP > 1 (PlanSpace::ep_overlap); false: as a framework
  // without it (before Megatron-Core 0.14) runs them.
  bool ep_overlap = true;
};

// Candidate lists for `model` on `hw` at `workload`'s sequence length (the GPU count bounds TP, PP,
// CP and EP from above).
PlanSpace build_plan_space(const ModelArch& model, const Hardware& hw, const TrainingWorkload& workload,
                           const SpaceOptions& options = {});

// Calls visit(plan) for every plan of the space, TP outermost. Plans have dp = 0 (derived later),
// sequence parallel on exactly when tp > 1, ZeRO 1 as the distributed optimizer, and the expert
// all-to-all overlapped exactly when ep > 1 and space.ep_overlap.
void for_each_plan(const PlanSpace& space, const std::function<void(const TrainingPlan&)>& visit);

// for_each_plan by blocks: visit(plan) for each plan of the space but its recompute and ZeRO stage, in
// the same order; for_each_plan sets those from space.recompute x space.zero (ZeRO innermost) in turn.
// `enter` (optional) is asked first with each TP, PP, VP and CP: false skips the blocks under them.
void for_each_plan_block(const PlanSpace& space, const std::function<void(const TrainingPlan&)>& visit,
                         const std::function<bool(const TrainingPlan&)>& enter = {});

// Attention groups TP may split: heads (MHA, MLA) or gcd(heads, kv_heads) (GQA; Megatron splits KV
// groups too).
int tp_groups(const ModelArch& model);

}  // namespace gpuplan
