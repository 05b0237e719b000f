#include "search/scaling.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace gpuplan {

std::string_view to_string(ScalingMode m) { return m == ScalingMode::weak ? "weak" : "strong"; }

long long scaling_global_batch(const ScalingOptions& o, int gpus) {
  if (o.mode == ScalingMode::strong) return o.global_batch;
  return std::max(1LL, std::llround(o.batch_per_gpu * gpus));
}

namespace {

ScalingPoint fixed_point(const ModelArch& m, const Hardware& hw, const TrainingWorkload& w, TrainingPlan plan,
                         const MemoryOptions& memory) {
  ScalingPoint pt;
  pt.gpus = w.num_gpus;
  pt.global_batch = w.global_batch;
  plan.dp = 0;
  TrainingMemory mem;
  const DropReason why = filter_plan(m, hw, plan, w, memory, mem);
  pt.plan = plan;
  if (why == DropReason::divisibility) {
    TrainingPlan p = plan;
    const auto v = check_plan(m, p, w);
    pt.reason = v.empty() ? "divisibility: the plan does not divide this GPU count, model or batch"
                          : "divisibility: " + v.front().message;
    return pt;
  }
  TrainingOptions topt;
  topt.with_memory = false;
  pt.result = evaluate_training(m, hw, plan, w, topt);
  pt.result.memory = mem;
  pt.found = why == DropReason::none && pt.result.valid();
  if (why == DropReason::memory)
    pt.reason = fmt::format("memory: needs {:.1f} GB per GPU, capacity {:.1f} GB", mem.total_bytes / 1e9,
                            mem.capacity_bytes / 1e9);
  return pt;
}

}  // namespace

std::vector<ScalingPoint> scaling_sweep(const ModelArch& m, const Hardware& hw, const ScalingOptions& o,
                                        const std::function<void(std::size_t, std::size_t)>& progress) {
  std::vector<ScalingPoint> out;
  out.reserve(o.gpus.size());
  SearchOptions so = o.search;
  so.top_k = 1;
  for (std::size_t i = 0; i < o.gpus.size(); ++i) {
    TrainingWorkload w;
    w.num_gpus = o.gpus[i];
    w.global_batch = scaling_global_batch(o, w.num_gpus);
    w.seq_len = o.seq_len;
    w.precision = o.precision;
    if (o.fixed_plan) {
      out.push_back(fixed_point(m, hw, w, *o.fixed_plan, so.memory));
    } else {
      ScalingPoint pt;
      pt.gpus = w.num_gpus;
      pt.global_batch = w.global_batch;
      SearchResult s = search_plans(m, hw, w, so);
      pt.stats = s.stats;
      if (!s.top.empty()) {
        pt.found = true;
        pt.plan = s.top.front().plan;
        pt.result = std::move(s.top.front().result);
      } else if (s.has_closest) {
        pt.reason = fmt::format("memory: no plan fits; the closest needs {:.1f} GB per GPU, capacity {:.1f} GB",
                                s.closest_memory.total_bytes / 1e9, s.closest_memory.capacity_bytes / 1e9);
      } else {
        pt.reason = "divisibility: no plan divides this GPU count and global batch";
      }
      out.push_back(std::move(pt));
    }
    if (progress) progress(i + 1, o.gpus.size());
  }
  return out;
}

}  // namespace gpuplan
