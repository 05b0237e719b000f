#include "schedule/training_slowdown.h"

#include <algorithm>
#include <map>
#include <memory>
#include <mutex>

#include "training/training_step.h"

namespace gpuplan::schedule {

double training_slowdown_factor(const Hardware& hw, const ModelArch& reference, int g) {
  if (g <= 1) return 1.0;
  TrainingPlan plan;
  const int kv = reference.kv_heads > 0 ? reference.kv_heads : reference.heads;
  while (plan.tp * 2 <= std::min(g, 8) && g % (plan.tp * 2) == 0 && reference.heads % (plan.tp * 2) == 0 &&
         kv % (plan.tp * 2) == 0)
    plan.tp *= 2;
  plan.dp = 0;
  TrainingWorkload w;
  w.num_gpus = g;
  w.seq_len = 4096;
  w.global_batch = 4LL * (g / plan.tp);  // four micro-batches per replica
  w.precision = Precision::bf16;
  TrainingOptions opts;
  opts.with_memory = false;
  Hardware inside = hw, split = hw;
  inside.fabric.domain_gpus = std::max(hw.fabric.domain_gpus, g);
  split.fabric.domain_gpus = std::max(1, g / 2);
  const TrainingResult a = evaluate_training(reference, inside, plan, w, opts);
  const TrainingResult b = evaluate_training(reference, split, plan, w, opts);
  if (!a.valid() || !b.valid() || a.step_time_s <= 0) return 1.0;
  return std::max(1.0, b.step_time_s / a.step_time_s);
}

SlowdownModel training_slowdown(const Hardware& hw, const ModelArch& reference) {
  struct Cache {
    std::mutex mu;
    std::map<int, double> factor;
  };
  auto cache = std::make_shared<Cache>();
  return [hw, reference, cache](const Job& job, const PlacementShape& shape) {
    if (shape.split_groups <= 0) return 1.0;
    std::lock_guard<std::mutex> lock(cache->mu);
    auto it = cache->factor.find(job.group_gpus);
    if (it == cache->factor.end())
      it = cache->factor.emplace(job.group_gpus, training_slowdown_factor(hw, reference, job.group_gpus)).first;
    return it->second;
  };
}

}  // namespace gpuplan::schedule
