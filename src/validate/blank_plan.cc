#include "validate/blank_plan.h"

#include <fmt/format.h>

#include <limits>

#include "memory/training_memory.h"
#include "search/filter.h"
#include "search/memory_savers.h"
#include "search/plan_space.h"
#include "training/training_step.h"

namespace gpuplan {

BlankFill fill_blank_plan(const ModelArch& m, const Hardware& hw, const TrainingWorkload& w,
                          const TrainingPlan& base, const BlankFields& b) {
  BlankFill out;
  const PlanSpace space = build_plan_space(m, hw, w);
  auto pick = [](bool blank, const std::vector<int>& all, int stated) { return blank ? all : std::vector<int>{stated}; };
  const std::vector<int> tps = pick(b.tp, space.tp, base.tp), pps = pick(b.pp, space.pp, base.pp),
                         vps = pick(b.vp, space.vp, base.vp), cps = pick(b.cp, space.cp, base.cp),
                         eps = pick(b.ep, m.is_moe() ? space.ep : std::vector<int>{1}, base.ep),
                         mbss = pick(b.mbs, space.mbs, base.mbs);
  // A blank recompute searches the space's choices: none, selective, module (Megatron
  // --recompute-modules, the frameworks' MoE recipes) and full recompute.
  const std::vector<Recompute> rcs = b.recompute ? space.recompute : std::vector<Recompute>{base.recompute};
  TrainingOptions topt;
  topt.with_memory = false;  // the filter estimated it
  MemoryOptions mopt;
  // Stated structure (only recompute blank): the published grid ran, so the evaluator's own rules
  // (check_plan) judge it, not the search's stricter fast rejections.
  const bool structure_stated = !(b.tp || b.pp || b.vp || b.cp || b.ep || b.mbs);
  // A published run fitted on its GPUs: where the row states the grid and micro-batch (what sets the
  // memory; a blank vp only reorders the schedule), the filter leaves out the allowance for allocator
  // slack and workspaces (reserve_bytes) that a plan meant to run for the first time needs. A plan
  // the row does not state is one nobody ran: it keeps that allowance, as in the search.
  // A blank cp is stated too where the row's tp, pp and dp leave it one value.
  const bool cp_stated = !b.cp || (b.stated_dp > 0 && !b.tp && !b.pp);
  if (!(b.tp || b.pp || b.ep || b.mbs) && cp_stated) {
    mopt.reserve_bytes = 0;
    mopt.host_reserve_bytes = 0;
  }
  TrainingMemory mem;
  double best_s = std::numeric_limits<double>::infinity();
  double closest_headroom = -std::numeric_limits<double>::infinity();
  double closest_s = std::numeric_limits<double>::infinity();
  TrainingPlan closest;
  bool have_closest = false;
  auto divides = [&](TrainingPlan& p) {
    if (!structure_stated) return plan_divides(m, p, w);
    TrainingPlan q = p;
    if (!check_plan(m, q, w).empty()) return false;
    p.dp = q.dp;
    return true;
  };
  const MemoryOptions mcap = with_capacities(mopt, hw);
  auto consider = [&](TrainingPlan p) {
    if (!divides(p)) return;
    if (b.stated_dp > 0 && derived_dp(p, w.num_gpus) != b.stated_dp) return;
    mem = training_memory(m, p, w, mcap);
    ++out.evaluated;
    const TrainingResult r = evaluate_training(m, hw, p, w, topt);
    if (!r.valid()) return;
    if (!mem.fits) {
      // Kept in case nothing fits by gpuplan's estimate (the run did fit): then the plan
      // closest to fitting is taken, the fastest among equally close ones.
      const bool closer = mem.headroom_bytes > closest_headroom + 1e6;
      const bool as_close = mem.headroom_bytes > closest_headroom - 1e6 && r.step_time_s < closest_s;
      if (!have_closest || closer || as_close) {
        closest_headroom = mem.headroom_bytes;
        closest_s = r.step_time_s;
        closest = p;
        have_closest = true;
      }
      return;
    }
    if (!(r.step_time_s < best_s)) return;
    best_s = r.step_time_s;
    out.plan = p;
    out.found = true;
  };
  for (int tp : tps)
    for (int pp : pps)
      for (int vp : vps) {
        if (b.vp && !space.vp_allowed(pp, vp)) continue;
        for (int cp : cps)
          for (CpKind kind : b.cp ? space.kinds_for(cp) : std::vector<CpKind>{base.cp_kind})
          for (int ep : eps)
            for (int mbs : mbss)
              for (Recompute rc : rcs) {
                TrainingPlan p = base;
                p.tp = tp, p.pp = pp, p.vp = vp, p.cp = cp, p.ep = ep, p.mbs = mbs, p.recompute = rc;
                p.cp_kind = kind;
                if (b.ep_overlap && p.ep > 1) p.ep_overlap = *b.ep_overlap;
                if (b.tp) p.sequence_parallel = base.sequence_parallel || (base.tp <= 1 && tp > 1);
                if (p.tp <= 1 || !b.sequence_parallel_available) p.sequence_parallel = false;
                p.dp = 0;
                // A blank recompute: the candidate stands for its fastest memory saver setting, as in
                // the search (search/memory_savers.h): full recompute of the fewest layers of each
                // chunk that fit (Megatron --recompute-num-layers); activation offload of the fewest
                // layers that fit (Megatron/Transformer Engine cpu_offloading_num_layers) where the
                // GPU has a host link, when the plan does not fit without.
                if (b.recompute) {
                  if (!divides(p)) continue;
                  fit_memory_savers(m, hw, p, w, mcap, space.savers);
                }
                consider(p);
              }
      }
  if (!out.found && have_closest) {
    out.found = true;
    out.fits_memory = false;
    out.plan = closest;
  }
  if (!out.found) {
    out.note = "no plan with the stated fields divides the model, GPUs and batch";
    return out;
  }
  std::string chosen;
  auto add = [&](bool blank, const std::string& s) {
    if (blank) chosen += (chosen.empty() ? "" : ", ") + s;
  };
  add(b.tp, fmt::format("tp={}", out.plan.tp));
  add(b.pp, fmt::format("pp={}", out.plan.pp));
  add(b.vp, fmt::format("vp={}", out.plan.vp));
  add(b.cp, out.plan.cp > 1 ? fmt::format("cp={} ({})", out.plan.cp, to_string(out.plan.cp_kind))
                             : fmt::format("cp={}", out.plan.cp));
  add(b.ep, fmt::format("ep={}", out.plan.ep));
  add(b.mbs, fmt::format("mbs={}", out.plan.mbs));
  add(b.recompute, out.plan.recompute == Recompute::full && out.plan.recompute_layers > 0
                       ? fmt::format("recompute=full ({} layers of each chunk)", out.plan.recompute_layers)
                       : fmt::format("recompute={}", to_string(out.plan.recompute)));
  add(b.recompute && out.plan.offload_layers > 0,
      fmt::format("activation offload of {} layers of each chunk", out.plan.offload_layers));
  out.note = fmt::format("blank {} from the search: the fastest of {} candidates under the stated fields{}", chosen,
                         out.evaluated,
                         out.fits_memory ? "" : " (none fits in memory by gpuplan's estimate, but the run did: the closest to fitting)");
  return out;
}

}  // namespace gpuplan
