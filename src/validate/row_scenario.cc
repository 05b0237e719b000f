#include "validate/row_scenario.h"

#include <fmt/format.h>

#include <algorithm>

#include "core/error.h"
#include "inference/chooser.h"
#include "memory/inference_memory.h"
#include "inference/request_rate.h"

namespace gpuplan {

RowScenario row_scenario(const InferenceCase& c) {
  RowScenario r;
  ServingScenario& s = r.scenario;
  s.model = c.model;
  s.hw = c.hardware;
  s.system = c.system;
  s.workload = c.workload;
  s.engine = c.engine;
  s.traffic.isl = c.workload.isl;
  s.traffic.osl = c.workload.osl;
  s.traffic.ttft_limit_s = c.ttft_limit_s;
  s.traffic.tpot_limit_s = c.tpot_limit_s;
  s.traffic.ttft_basis = c.ttft_limit_s > 0 ? "stated" : "none (stated)";
  s.provenance = fmt::format("{} row {}", c.source_id, c.row);
  ServingDeployment& d = r.deployment;
  d.disaggregated = c.mode == InferenceMode::disaggregated;
  d.parallel = c.parallel;
  d.disagg = c.disagg;
  d.gpus = c.workload.num_gpus;
  d.mtp_draft_tokens = c.workload.mtp_draft_tokens;
  r.concurrency = c.workload.concurrency;
  return r;
}

int smallest_kv_tp(const ModelArch& m, const Hardware& hw, const InferenceWorkload& w, int gpus) {
  const auto ok = valid_inference_tp(m, std::min(gpus, 64));
  for (int tp : ok) {
    if (gpus % tp) continue;
    InferenceMemoryInput mi;
    mi.weight_precision = w.weight_precision;
    mi.kv_bytes_per_element = w.kv_bytes_per_element;
    mi.tp = tp;
    mi.ep = 1;
    mi.context_tokens = w.isl + w.osl;
    mi.concurrency = 0;
    try {
      const auto r = inference_memory(m, mi);
      if (r.weights_bytes + r.reserve_bytes <= 0.7 * hw.accelerator.memory_bytes) return tp;
    } catch (const InputError&) {
    }
  }
  return ok.empty() ? 1 : std::min(gpus, ok.back());
}

bool choose_row_deployment(InferenceCase& c) {
  const RowScenario r = row_scenario(c);
  const int gpus = std::max(1, c.workload.num_gpus);
  const int pp = std::max(1, c.parallel.pp);
  const double margin = ChooserOptions{}.more_units_margin;
  SweepPoint best;
  bool met = false;
  int tried = 0;
  for (int tp : valid_inference_tp(c.model, gpus / pp)) {
    if (tp < c.parallel.tp || (gpus / pp) % tp) continue;
    ServingDeployment d = r.deployment;
    d.parallel.tp = tp;
    d.parallel.ep = c.model.is_moe() ? tp : 1;  // the row's EP convention: blank EP = TP
    d.parallel.attention_dp = false;
    ++tried;
    SweepPoint p;
    if (!solve_load(r.scenario, d, p)) continue;
    // A wider TP must give more than the chooser's margin more tokens/s per GPU than a narrower one.
    if (!met || p.result.tokens_per_s_per_gpu > best.result.tokens_per_s_per_gpu * (1 + margin)) {
      best = std::move(p);
      met = true;
    }
  }
  if (!met) {
    c.assumptions.push_back(fmt::format("no TP from {} to {} on {} GPUs meets mean TTFT <= {:.0f} ms and TPOT <= "
                                        "{:.0f} ms even at one sequence per instance: tp {}",
                                        c.parallel.tp, gpus / pp, gpus, c.ttft_limit_s * 1e3, c.tpot_limit_s * 1e3,
                                        c.parallel.tp));
    return false;
  }
  const int filled = c.parallel.tp;
  c.parallel.tp = best.parallel.tp;
  c.parallel.ep = best.parallel.ep;
  c.parallel.attention_dp = false;
  c.assumptions.push_back(fmt::format("tp blank under the scenario's limits: {} (of {} TPs from {}, the smallest "
                                      "holding the KV cache, the most tokens/s per GPU at the largest load meeting "
                                      "mean TTFT <= {:.0f} ms and TPOT <= {:.0f} ms)",
                                      c.parallel.tp, tried, filled, c.ttft_limit_s * 1e3, c.tpot_limit_s * 1e3));
  return true;
}

InferenceResult evaluate_case(const InferenceCase& c) {
  const RowScenario r = row_scenario(c);
  const ServingScenario& s = r.scenario;
  const ServingDeployment& d = r.deployment;
  switch (c.mode) {
    case InferenceMode::under_limits:
      return evaluate_under_limits(s.model, s.hw, d.parallel, scenario_workload(s, d, r.concurrency),
                                   s.traffic.ttft_limit_s, s.traffic.tpot_limit_s);
    case InferenceMode::rate:
      return evaluate_at_request_rate(s.model, s.hw, d.parallel, scenario_workload(s, d, r.concurrency),
                                      c.request_rate_qps, c.requests_in_run);
    case InferenceMode::disaggregated:
    case InferenceMode::fixed:
    default:
      return evaluate_scenario(s, d, r.concurrency);
  }
}

}  // namespace gpuplan
