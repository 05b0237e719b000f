#include "search/plan_space.h"

#include <algorithm>
#include <numeric>

namespace gpuplan {

namespace {

std::vector<int> divisors(int n, int limit) {
  std::vector<int> d;
  for (int i = 1; i <= n && i <= limit; ++i)
    if (n % i == 0) d.push_back(i);
  return d;
}

// Chunks of ceil(layers / chunks) layers each hold every layer: the slots left over are the embedding
// and the loss counted as layers (Megatron account_for_embedding/loss_in_pipeline_split, 2 slots), or
// go to the first and last chunks, which hold fewer layers but at least one each (Megatron
// --decoder-first/last-pipeline-num-layers). The step follows the full stages (training_step.cc), so
// a split that leaves slots idle is costed as what it wastes.
bool near_divides(int layers, int chunks) {
  if (chunks < 1 || chunks > layers) return false;
  const int per = (layers + chunks - 1) / chunks;
  return per * chunks - layers <= std::max(2, 2 * (per - 1));
}

}  // namespace

int tp_groups(const ModelArch& m) {
  if (m.attention == AttentionKind::gqa && m.kv_heads > 0) return std::gcd(m.heads, m.kv_heads);
  return m.heads;
}

bool PlanSpace::vp_allowed(int pp_value, int vp_value) const {
  if (vp_value == 1) return true;
  return pp_value > 1 && near_divides(layers, pp_value * vp_value);
}

std::vector<CpKind> PlanSpace::kinds_for(int cp_value) const {
  if (cp_value <= 1 || cp_kinds.empty()) return {CpKind::ring};
  return cp_kinds;
}

std::size_t PlanSpace::size() const {
  std::size_t pipeline = 0;
  for (int p : pp)
    for (int v : vp) pipeline += vp_allowed(p, v) ? 1 : 0;
  std::size_t context = 0;
  for (int c : cp) context += kinds_for(c).size();
  return tp.size() * pipeline * context * ep.size() * mbs.size() * recompute.size() * zero.size();
}

PlanSpace build_plan_space(const ModelArch& m, const Hardware& hw, const TrainingWorkload& w,
                           const SpaceOptions& o) {
  PlanSpace s;
  s.layers = m.layers;
  const int gpus = std::max(1, w.num_gpus);
  const int domain = std::max(1, hw.fabric.domain_gpus);
  s.tp = divisors(tp_groups(m), std::min(gpus, domain * std::max(1, o.tp_domain_multiple)));
  for (int p = 1; p <= std::min(m.layers, gpus); ++p)
    if (near_divides(m.layers, p)) s.pp.push_back(p);
  for (int v = 1; v <= std::max(1, o.max_vp); ++v) s.vp.push_back(v);
  for (int c = 1; c <= gpus; c *= 2) {
    if (c > 1 && (w.seq_len % (2 * c) != 0 || w.seq_len / c < o.min_tokens_per_cp_rank)) break;
    s.cp.push_back(c);
  }
  s.ep = m.is_moe() ? divisors(m.moe.num_experts, gpus) : std::vector<int>{1};
  s.mbs = o.mbs;
  s.recompute = {Recompute::none, Recompute::selective, Recompute::full};
  if (o.module_recompute) s.recompute.insert(s.recompute.begin() + 2, Recompute::modules);
  s.zero = {1, 3};
  s.savers = o.savers;
  s.ep_overlap = o.ep_overlap;
  return s;
}

void for_each_plan(const PlanSpace& s, const std::function<void(const TrainingPlan&)>& visit) {
  for_each_plan_block(s, [&](const TrainingPlan& block) {
    TrainingPlan p = block;
    for (Recompute rc : s.recompute) {
      p.recompute = rc;
      for (int zero : s.zero) {
        p.zero = zero;
        visit(p);
      }
    }
  });
}

void for_each_plan_block(const PlanSpace& s, const std::function<void(const TrainingPlan&)>& visit,
                         const std::function<bool(const TrainingPlan&)>& enter) {
  TrainingPlan p;
  p.dp = 0;
  p.etp = 1;
  p.distributed_optimizer = true;
  for (int tp : s.tp) {
    p.tp = tp;
    p.sequence_parallel = tp > 1;
    for (int pp : s.pp) {
      p.pp = pp;
      for (int vp : s.vp) {
        if (!s.vp_allowed(pp, vp)) continue;
        p.vp = vp;
        for (int cp : s.cp) {
          p.cp = cp;
          if (enter && !enter(p)) continue;
          for (CpKind kind : s.kinds_for(cp)) {
            p.cp_kind = kind;
            for (int ep : s.ep) {
              p.ep = ep;
              p.ep_overlap = s.ep_overlap && ep > 1;
              for (int mbs : s.mbs) {
                p.mbs = mbs;
                visit(p);
              }
            }
          }
        }
      }
    }
  }
}

}  // namespace gpuplan
