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
  LayerCostCache own_layer_costs;  // candidates share their layers' costs
  topt.layer_costs = o.layer_costs ? o.layer_costs : &own_layer_costs;
  topt.plan_checked = true;  // plan_divides ran check_plan on every candidate it passes
  const std::size_t k = std::max<std::size_t>(1, o.top_k);
  // The top, kept sorted best first: a higher score first, and among equal scores the plan enumerated
  // first (smaller TP/PP first), whatever order the candidates are examined in. `top_index` holds each
  // entry's place in the enumeration.
  std::vector<SearchCandidate>& top = out.top;
  std::vector<std::size_t> top_index;
  top.reserve(k + 1);
  top_index.reserve(k + 1);
  auto ahead = [](double score, std::size_t index, double other_score, std::size_t other_index) {
    return score > other_score || (score == other_score && index < other_index);
  };
  // Whether a candidate at `index` whose score is at most `most` cannot enter the top: below the least
  // score wanted, or not ahead of a full top's last.
  auto shut_out = [&](double most, std::size_t index) {
    return most < o.least_score || (top.size() == k && !ahead(most, index, top.back().score, top_index.back()));
  };
  const MemoryOptions mo = with_capacities(o.memory, hw);
  const bool prune = o.prune && o.objective == Objective::tokens_per_s;
  const double tokens = double(w.global_batch) * w.seq_len;  // per step, as the timing model counts them

  // Whether a plan divides does not depend on its recompute or ZeRO stage (plan_divides and check_plan
  // read neither): one verdict a block of the space.
  const std::size_t per_block = space.recompute.size() * space.zero.size();
  // The blocks that divide, in enumeration order. `ordinal` counts the blocks visited; a candidate's
  // place in the enumeration is ordinal * per_block + its place in the block. The memory model does not
  // read the context-parallel exchange (cp_kind), and under each TP, PP, VP and CP the enumeration
  // visits the same EP x micro-batch blocks once per exchange: `twins` names the blocks that differ
  // in their exchange alone, whose candidates share their memory-saver fit.
  struct Block {
    TrainingPlan plan;
    std::size_t ordinal = 0;
    std::size_t twins = 0;
    double most_tokens_per_s = std::numeric_limits<double>::infinity();  // what its step floor bounds
  };
  std::vector<Block> blocks;
  std::size_t ordinal = 0, group_first = 0;
  const std::size_t ep_mbs = std::max<std::size_t>(1, space.ep.size() * space.mbs.size());
  // tp * pp * cp must divide the GPUs (plan_divides' first rule): the blocks under a TP, PP, VP and CP
  // that does not are counted and dropped without a visit.
  auto enter = [&](const TrainingPlan& head) {
    const long long mp = 1LL * head.tp * head.pp * head.cp;
    if (mp > 0 && w.num_gpus % mp == 0) {
      group_first = ordinal;
      return true;
    }
    const std::size_t n = space.kinds_for(head.cp).size() * space.ep.size() * space.mbs.size() * per_block;
    out.stats.enumerated += n;
    out.stats.dropped_divisibility += n;
    return false;
  };
  for_each_plan_block(space, [&](const TrainingPlan& block) {
    const std::size_t at = ordinal++;
    out.stats.enumerated += per_block;
    TrainingPlan p = block;
    if (per_block == 0 || !plan_divides(m, p, w)) {
      out.stats.dropped_divisibility += per_block;
      return;
    }
    // Branch and bound, best first: each block's step floor (training_step_floor: the same for its
    // every recompute mode and ZeRO stage) bounds its candidates' tokens/s, and the blocks are examined
    // from the highest bound down (below), so the top fills early with plans that shut out most of the
    // rest. A block whose bound falls below the least score wanted is never examined: it is not kept.
    double most_tokens_per_s = std::numeric_limits<double>::infinity();
    if (prune) {
      p.recompute = space.recompute.front();
      p.zero = space.zero.front();
      const TrainingResult f = training_step_floor(m, hw, p, w, topt);
      if (f.valid()) most_tokens_per_s = tokens / f.step_time_s;
      if (most_tokens_per_s < o.least_score) return;
      p.recompute = block.recompute;
      p.zero = block.zero;
    }
    blocks.push_back({p, at, group_first + (at - group_first) % ep_mbs, most_tokens_per_s});
  }, enter);
  // The blocks in the order they are examined: a heap, highest bound (then first enumerated) on top, as
  // the examination mostly stops long before the last block. Once a block's bound falls below a full
  // top's last score, no later block can enter it.
  struct Next {
    double most_tokens_per_s;
    std::size_t at;  // in blocks (enumeration order)
  };
  std::vector<Next> next;
  next.reserve(blocks.size());
  for (std::size_t i = 0; i < blocks.size(); ++i) next.push_back({blocks[i].most_tokens_per_s, i});
  auto later = [](const Next& a, const Next& b) {
    return a.most_tokens_per_s < b.most_tokens_per_s || (a.most_tokens_per_s == b.most_tokens_per_s && a.at > b.at);
  };
  if (prune) std::make_heap(next.begin(), next.end(), later);
  else std::reverse(next.begin(), next.end());  // popped from the back: enumeration order

  // Memory-saver fits shared by twin blocks' candidates (context parallel only): per_block slots a pair.
  struct SharedFit {
    bool known = false;
    int recompute_layers = 0;
    int offload_layers = 0;
    TrainingMemoryTotals fit;
  };
  std::vector<int> fit_slots(ordinal, -1);
  std::vector<SharedFit> shared_fits;
  std::size_t closest_index = 0;

  auto consider = [&](TrainingPlan p, const Block& b, std::size_t j) {
    const std::size_t index = b.ordinal * per_block + j;
    if (prune && shut_out(b.most_tokens_per_s, index)) return;
    SharedFit* shared = nullptr;
    if (p.cp > 1) {
      int& slot = fit_slots[b.twins];
      if (slot < 0) {
        slot = static_cast<int>(shared_fits.size());
        shared_fits.resize(shared_fits.size() + per_block);
      }
      shared = &shared_fits[static_cast<std::size_t>(slot) + j];
    }
    // Full recompute of the fewest layers that fit; offload of the fewest layers that fit when the
    // plan does not fit otherwise: the candidate stands for its fastest memory saver setting.
    // Its totals decide; the whole estimate (stages, violations) is made for the few kept.
    // Branch and bound: the candidate's step time with its memory savers at their cheapest bounds the
    // step time of any setting the fit may choose, so a candidate that cannot enter the top even so is
    // skipped before its fit. Offload adds offload_s, a non-negative term, to a sum of non-negative
    // terms and touches no other, so without it the step is the smallest (floating-point sums of
    // non-negative terms are monotone in each). Full recompute of r layers a chunk (r >= 1, or all)
    // raises the recompute, recomputed collectives and bubble terms with r and lowers only the data-
    // parallel term, which overlaps the backward: at r = 1 with that term left out the sum is no larger.
    std::optional<TrainingResult> unsaved;  // the candidate's timing as enumerated (no offload), when exact
    const bool twin_fitted = shared && shared->known;
    if (prune && !twin_fitted) {
      TrainingPlan q = p;
      const bool full = q.recompute == Recompute::full;
      if (full) q.recompute_layers = 1;
      TrainingResult bound = evaluate_training(m, hw, q, w, topt);
      if (bound.valid()) {
        if (full) bound.parts.dp_comm_s = 0;
        const double least_step_s = full ? bound.parts.total_s() : bound.step_time_s;
        if (shut_out(tokens / least_step_s, index)) return;
        if (!full) unsaved = std::move(bound);
      }
    }
    TrainingMemoryTotals fit;
    if (twin_fitted) {
      p.recompute_layers = shared->recompute_layers;
      p.offload_layers = shared->offload_layers;
      fit = shared->fit;
    } else {
      fit = fit_memory_saver_totals(m, hw, p, w, mo, space.savers);
      if (shared) *shared = {true, p.recompute_layers, p.offload_layers, fit};
    }
    if (!fit.fits) {
      ++out.stats.dropped_memory;
      if (!out.has_closest || fit.headroom_bytes > out.closest_memory.headroom_bytes ||
          (fit.headroom_bytes == out.closest_memory.headroom_bytes && index < closest_index)) {
        out.has_closest = true;
        out.closest_plan = p;
        out.closest_memory = training_memory(m, p, w, mo);
        closest_index = index;
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
    if (shut_out(score, index)) return;
    r.memory = training_memory(m, p, w, mo);
    std::size_t at = top.size();
    while (at > 0 && ahead(score, index, top[at - 1].score, top_index[at - 1])) --at;
    top.insert(top.begin() + static_cast<std::ptrdiff_t>(at), SearchCandidate{p, std::move(r), score});
    top_index.insert(top_index.begin() + static_cast<std::ptrdiff_t>(at), index);
    if (top.size() > k) {
      top.pop_back();
      top_index.pop_back();
    }
  };
  while (!next.empty()) {
    if (prune) {
      std::pop_heap(next.begin(), next.end(), later);
    }
    const Block& b = blocks[next.back().at];
    next.pop_back();
    if (prune && (b.most_tokens_per_s < o.least_score || (top.size() == k && b.most_tokens_per_s < top.back().score)))
      break;  // nor can any block after it
    TrainingPlan p = b.plan;
    std::size_t j = 0;
    for (Recompute rc : space.recompute) {
      p.recompute = rc;
      for (int zero : space.zero) {
        p.zero = zero;
        consider(p, b, j++);
      }
    }
  }
  if (!top.empty()) out.has_closest = false;
  return out;
}

}  // namespace gpuplan
