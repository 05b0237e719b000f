#include "validate/row_scenario.h"

#include <fmt/format.h>

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
