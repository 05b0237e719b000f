#include "search/search.h"

#include <algorithm>
#include <limits>
#include <optional>
#include <vector>

#include "search/memory_savers.h"

namespace gpuplan {

SearchResult search_plans(const ModelArch& m, const Hardware& hw, const TrainingWorkload& w,
                          const SearchOptions& o) {
  return search_plan_space(build_plan_space(m, hw, w, o.space), m, hw, w, o);
}

SearchResult search_plan_space(const PlanSpace& space, const ModelArch& m, const Hardware& hw,
                               const TrainingWorkload& w, const SearchOptions& o) {
  SearchResult out;
  TrainingOptions topt;
  topt.with_memory = false;  // the filter already estimated it
  LayerCostCache layer_costs;  // candidates share their layers' costs
  topt.layer_costs = &layer_costs;
  topt.plan_checked = true;  // plan_divides ran check_plan on every candidate it passes
  const std::size_t k = std::max<std::size_t>(1, o.top_k);
  std::vector<SearchCandidate>& top = out.top;  // kept sorted, best first
  top.reserve(k + 1);
  const MemoryOptions mo = with_capacities(o.memory, hw);
  // The memory model does not read the context-parallel exchange (cp_kind), and for each tp, pp, vp
  // and cp the enumeration visits the ring plans before the a2a ones: an a2a plan's memory-saver fit is
  // its ring twin's, kept here for the current tp, pp, vp and cp.
  struct RingFit {
    TrainingPlan plan;  // with its memory-saver layers
    TrainingMemoryTotals fit;
    bool fitted = true;  // false: skipped by the bound before its fit (its twin fits itself)
  };
  std::vector<RingFit> ring_fits;
  std::size_t next_twin = 0;  // the a2a plans come in their ring twins' order: a twin is at or after it
  const bool prune = o.prune && o.objective == Objective::tokens_per_s;
  const double tokens = double(w.global_batch) * w.seq_len;  // per step, as the timing model counts them
  auto same_block = [](const TrainingPlan& a, const TrainingPlan& b) {
    return a.tp == b.tp && a.pp == b.pp && a.vp == b.vp && a.cp == b.cp;
  };
  auto twins = [&](const TrainingPlan& a, const TrainingPlan& b) {
    return same_block(a, b) && a.sequence_parallel == b.sequence_parallel && a.ep == b.ep &&
           a.ep_overlap == b.ep_overlap && a.mbs == b.mbs && a.recompute == b.recompute && a.zero == b.zero;
  };
  // A block's step floor (training_step_floor: the same for its every recompute mode and ZeRO stage),
  // as the tokens/s it bounds; worked out for the block's first candidate that meets a full top.
  struct BlockFloor {
    bool known = false;
    double most_tokens_per_s = 0;
  };
  auto consider = [&](TrainingPlan p, BlockFloor& floor) {
    const bool ring = p.cp > 1 && p.cp_kind == CpKind::ring;
    if (ring && !ring_fits.empty() && !same_block(ring_fits.front().plan, p)) {
      ring_fits.clear();
      next_twin = 0;
    }
    if (prune && top.size() == k) {
      if (!floor.known) {
        const TrainingResult f = training_step_floor(m, hw, p, w, topt);
        floor.known = true;
        floor.most_tokens_per_s = f.valid() ? tokens / f.step_time_s : std::numeric_limits<double>::infinity();
      }
      if (floor.most_tokens_per_s <= top.back().score) {
        if (ring) ring_fits.push_back({p, {}, false});
        return;
      }
    }
    // Full recompute of the fewest layers that fit; offload of the fewest layers that fit when the
    // plan does not fit otherwise: the candidate stands for its fastest memory saver setting.
    // Its totals decide; the whole estimate (stages, violations) is made for the few kept.
    const RingFit* twin = nullptr;
    if (p.cp > 1 && p.cp_kind == CpKind::a2a)
      for (std::size_t i = next_twin; i < ring_fits.size(); ++i)
        if (twins(ring_fits[i].plan, p)) {
          twin = &ring_fits[i];
          next_twin = i + 1;
          break;
        }
    if (twin && !twin->fitted) twin = nullptr;
    // Branch and bound: the candidate's step time with its memory savers at their cheapest bounds the
    // step time of any setting the fit may choose, so a candidate that cannot enter the top even so is
    // skipped before its fit. Offload adds offload_s, a non-negative term, to a sum of non-negative
    // terms and touches no other, so without it the step is the smallest (floating-point sums of
    // non-negative terms are monotone in each). Full recompute of r layers a chunk (r >= 1, or all)
    // raises the recompute, recomputed collectives and bubble terms with r and lowers only the data-
    // parallel term, which overlaps the backward: at r = 1 with that term left out the sum is no larger.
    std::optional<TrainingResult> unsaved;  // the candidate's timing as enumerated (no offload), when exact
    if (prune && !twin) {
      TrainingPlan q = p;
      const bool full = q.recompute == Recompute::full;
      if (full) q.recompute_layers = 1;
      TrainingResult b = evaluate_training(m, hw, q, w, topt);
      if (b.valid()) {
        if (full) b.parts.dp_comm_s = 0;
        const double least_step_s = full ? b.parts.total_s() : b.step_time_s;
        if (top.size() == k && tokens / least_step_s <= top.back().score) {
          if (ring) ring_fits.push_back({p, {}, false});
          return;
        }
        if (!full) unsaved = std::move(b);
      }
    }
    if (twin) {
      p.recompute_layers = twin->plan.recompute_layers;
      p.offload_layers = twin->plan.offload_layers;
    }
    const TrainingMemoryTotals fit = twin ? twin->fit : fit_memory_saver_totals(m, hw, p, w, mo, space.savers);
    if (ring) ring_fits.push_back({p, fit});
    if (!fit.fits) {
      ++out.stats.dropped_memory;
      if (!out.has_closest || fit.headroom_bytes > out.closest_memory.headroom_bytes) {
        out.has_closest = true;
        out.closest_plan = p;
        out.closest_memory = training_memory(m, p, w, mo);
      }
      return;
    }
    ++out.stats.evaluated;
    TrainingResult r = unsaved && p.offload_layers == 0 ? std::move(*unsaved) : evaluate_training(m, hw, p, w, topt);
    if (!r.valid()) {  // cannot happen after the filter; counted as divisibility to keep the sums
      --out.stats.evaluated;
      ++out.stats.dropped_divisibility;
      return;
    }
    const double score = objective_score(r, o.objective, o.objective_context);
    if (top.size() == k && score <= top.back().score) return;
    r.memory = training_memory(m, p, w, mo);
    SearchCandidate c{p, std::move(r), score};
    // Ties keep the earlier plan (smaller TP/PP first in enumeration order) ahead.
    auto at = std::upper_bound(top.begin(), top.end(), score,
                               [](double s, const SearchCandidate& x) { return s > x.score; });
    top.insert(at, std::move(c));
    if (top.size() > k) top.pop_back();
  };
  // Whether a plan divides does not depend on its recompute or ZeRO stage (plan_divides and check_plan
  // read neither): one verdict a block of the space.
  const std::size_t per_block = space.recompute.size() * space.zero.size();
  // tp * pp * cp must divide the GPUs (plan_divides' first rule): the blocks under a TP, PP, VP and CP
  // that does not are counted and dropped without a visit.
  auto enter = [&](const TrainingPlan& head) {
    const long long mp = 1LL * head.tp * head.pp * head.cp;
    if (mp > 0 && w.num_gpus % mp == 0) return true;
    const std::size_t n = space.kinds_for(head.cp).size() * space.ep.size() * space.mbs.size() * per_block;
    out.stats.enumerated += n;
    out.stats.dropped_divisibility += n;
    return false;
  };
  for_each_plan_block(space, [&](const TrainingPlan& block) {
    out.stats.enumerated += per_block;
    TrainingPlan p = block;
    if (!plan_divides(m, p, w)) {
      out.stats.dropped_divisibility += per_block;
      return;
    }
    BlockFloor floor;
    for (Recompute rc : space.recompute) {
      p.recompute = rc;
      for (int zero : space.zero) {
        p.zero = zero;
        consider(p, floor);
      }
    }
  }, enter);
  if (!top.empty()) out.has_closest = false;
  return out;
}

}  // namespace gpuplan
