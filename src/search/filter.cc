#include "search/filter.h"

#include "search/plan_space.h"
#include "training/context_parallel.h"
#include "training/training_step.h"

namespace gpuplan {

std::string_view to_string(DropReason r) {
  switch (r) {
    case DropReason::none: return "none";
    case DropReason::divisibility: return "divisibility";
    case DropReason::memory: return "memory";
  }
  return "none";
}

bool plan_divides(const ModelArch& m, TrainingPlan& p, const TrainingWorkload& w) {
  // Fast rejections before check_plan (which formats a message for each violation).
  const long long mp = 1LL * p.tp * p.pp * p.cp;
  if (mp <= 0 || w.num_gpus % mp != 0) return false;
  const long long dp = w.num_gpus / mp;
  if (w.global_batch % (dp * p.mbs) != 0) return false;
  if (tp_groups(m) % p.tp != 0) return false;
  if (p.pp * p.vp > m.layers) return false;
  if (p.cp > 1 && w.seq_len % (2 * p.cp) != 0) return false;
  // Interleaving needs a multiple of pp micro-batches per step (check_plan's rule).
  if (p.vp > 1 && p.pp > 1 && (w.global_batch / (dp * p.mbs)) % p.pp != 0) return false;
  if (p.cp > 1 && p.cp_kind == CpKind::a2a) {  // the heads each rank's all-to-all splits (check_plan's rule)
    const int kv_heads = (m.attention == AttentionKind::gqa && m.kv_heads > 0) ? m.kv_heads : m.heads;
    if (m.heads % p.tp == 0 && kv_heads % p.tp == 0 &&
        !cp_kind_violation(p.cp_kind, m.heads / p.tp, kv_heads / p.tp, p.cp).empty())
      return false;
  }
  if (m.is_moe()) {
    if (m.moe.num_experts % p.ep != 0 || m.moe.expert_ffn_hidden % p.etp != 0) return false;
    if ((dp * p.cp * p.tp) % (1LL * p.ep * p.etp) != 0) return false;
  } else if (p.ep != 1) {
    return false;
  }
  return check_plan(m, p, w).empty();  // the evaluator's own rules stay authoritative
}

DropReason filter_plan(const ModelArch& m, const Hardware& hw, TrainingPlan& p, const TrainingWorkload& w,
                       const MemoryOptions& options, TrainingMemory& memory) {
  if (!plan_divides(m, p, w)) return DropReason::divisibility;
  const MemoryOptions mo = with_capacities(options, hw);
  memory = training_memory(m, p, w, mo);
  return memory.fits ? DropReason::none : DropReason::memory;
}

}  // namespace gpuplan
