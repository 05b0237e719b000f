#include "compare/operating_point.h"

#include <fmt/format.h>

#include <algorithm>

#include "physics/compute.h"

namespace gpuplan::compare {

TrainingPick best_training(const ModelArch& model, const Hardware& hw, const TrainingWorkload& w,
                           double least_tokens_per_s, LayerCostCache* layer_costs) {
  TrainingPick p;
  p.workload = w;
  if (std::string why = training_refusal(w.precision); !why.empty()) {
    p.why_not = why;
    return p;
  }
  if (const std::string why = unsupported_precision(hw.accelerator, w.precision); !why.empty()) {
    p.why_not = why;  // no framework trains in a format the chip has no tensor cores for
    return p;
  }
  SearchOptions so;
  so.top_k = 1;
  so.prune = true;  // the best plan alone is read
  if (least_tokens_per_s > 0) so.least_score = least_tokens_per_s;
  so.layer_costs = layer_costs;
  const SearchResult r = search_plans(model, hw, w, so);
  p.evaluated = r.stats.evaluated;
  if (r.top.empty() && least_tokens_per_s > 0) {
    p.short_of_least = true;
    p.why_not = fmt::format("no plan on {} GPUs reaches {:.0f} tokens/s", w.num_gpus, least_tokens_per_s);
    return p;
  }
  if (r.top.empty()) {
    if (r.has_closest)
      p.why_not = fmt::format("no plan fits in memory on {} GPUs (closest needs {:.0f} GB of {:.0f} GB per GPU)",
                              w.num_gpus, r.closest_memory.total_bytes / 1e9, r.closest_memory.capacity_bytes / 1e9);
    else
      p.why_not = fmt::format("no plan divides {} GPUs and a global batch of {}", w.num_gpus, w.global_batch);
    return p;
  }
  p.found = true;
  p.plan = r.top[0].plan;
  p.result = r.top[0].result;
  return p;
}

ServingCurve serving_curve(const ModelArch& model, const Hardware& hw, const InferenceWorkload& w,
                           const SweepOptions& options) {
  ServingCurve c;
  SweepResult r = sweep_inference(model, hw, w, options);
  c.evaluated = r.evaluated;
  c.feasible = r.feasible;
  c.frontier = std::move(r.frontier);
  return c;
}

InferenceWorkload serving_workload(Precision weights, long long isl, long long osl, int gpus, double mtp_accept) {
  InferenceWorkload w;
  w.mtp_accept = mtp_accept;
  w.weight_precision = weights;
  w.kv_bytes_per_element = default_kv_bytes(weights);  // FP8 KV with FP8/FP4 weights, 16-bit with bf16/w4a16
  w.num_gpus = gpus;
  w.isl = isl;
  w.osl = osl;
  return w;
}

SweepOptions serving_sweep(const ModelArch& model, double ttft_limit_s, double tpot_limit_s, int max_pp) {
  SweepOptions so;
  so.ttft_limit_s = ttft_limit_s;
  so.tpot_limit_s = tpot_limit_s;
  so.max_pp = max_pp;
  so.mtp = so.disaggregated = model.is_moe();
  return so;
}

ServingScenario serving_scenario(const ModelArch& model, const Hardware& hw, int unit_gpus, Precision weights,
                                 long long isl, long long osl, double tokens_per_s_per_user, double tpot_limit_s,
                                 double ttft_limit_s, double mtp_accept) {
  ServingScenario s;
  s.model = model;
  s.hw = hw;
  s.system = hw.system_name;
  s.unit_gpus = unit_gpus;
  s.workload = serving_workload(weights, isl, osl, unit_gpus, mtp_accept);
  s.traffic.isl = isl;
  s.traffic.osl = osl;
  s.traffic.tokens_per_s_per_user = tokens_per_s_per_user;
  s.traffic.tpot_limit_s = tpot_limit_s;
  s.traffic.ttft_limit_s = resolve_ttft_limit_s(ttft_limit_s, isl);
  s.traffic.ttft_basis = ttft_limit_basis(ttft_limit_s, isl);
  return s;
}

ScaledCurve serving_curve_scaled(const ModelArch& model, const Hardware& hw, InferenceWorkload w, int unit_gpus,
                                 double tokens_per_s_per_user, SweepOptions options, int max_pp_beyond_one,
                                 int first_units, int max_units) {
  ScaledCurve sc;
  const int one_unit_pp = options.max_pp;
  for (int k = std::max(1, first_units); k <= max_units && !sc.point; k *= 2) {
    sc.gpus = unit_gpus * k;
    w.num_gpus = sc.gpus;
    options.max_pp = k == 1 ? one_unit_pp : max_pp_beyond_one;
    sc.curve = serving_curve(model, hw, w, options);
    sc.point = tokens_per_s_per_user > 0 ? at_interactivity(sc.curve, tokens_per_s_per_user * 0.999)
                                         : max_throughput(sc.curve);
    if (const SweepPoint* f = max_interactivity(sc.curve))
      sc.fastest_tokens_per_s_per_user = std::max(sc.fastest_tokens_per_s_per_user, f->result.tokens_per_s_per_user);
  }
  return sc;
}

const SweepPoint* at_interactivity(const ServingCurve& c, double tps_user) {
  const SweepPoint* best = nullptr;
  for (const auto& p : c.frontier)
    if (p.result.tokens_per_s_per_user >= tps_user &&
        (!best || p.result.tokens_per_s_per_gpu > best->result.tokens_per_s_per_gpu))
      best = &p;
  return best;
}

const SweepPoint* max_throughput(const ServingCurve& c) {
  const SweepPoint* best = nullptr;
  for (const auto& p : c.frontier)
    if (!best || p.result.tokens_per_s_per_gpu > best->result.tokens_per_s_per_gpu) best = &p;
  return best;
}

const SweepPoint* max_interactivity(const ServingCurve& c) {
  const SweepPoint* best = nullptr;
  for (const auto& p : c.frontier)
    if (!best || p.result.tokens_per_s_per_user > best->result.tokens_per_s_per_user) best = &p;
  return best;
}

}  // namespace gpuplan::compare
