#include "inference/serving_scenario.h"

#include <fmt/format.h>

#include <algorithm>

namespace gpuplan {

namespace {

std::string parallel_text(const InferenceParallel& p) {
  return fmt::format("tp={} ep={} pp={}{}{}", p.tp, p.ep, p.pp, p.attention_dp ? " attention-dp" : "",
                     p.two_batch_overlap ? " tbo" : "");
}

// MLPerf Inference Server-scenario TTFT limits (p99) and the longest prompts they apply to
// (models/mlperf-datasets.md): 2 s for Llama2-70B, Llama3.1-8B and DeepSeek-R1 (prompts of at most
// 1,024 to 3,136 tokens), 6 s for Llama3.1-405B (prompts of up to 20,000 tokens).
constexpr double kShortPromptTokens = 2048, kShortPromptTtftS = 2.0;
constexpr double kLongPromptTokens = 20000, kLongPromptTtftS = 6.0;

}  // namespace

double ServingTraffic::min_tokens_per_s_per_user() const {
  return std::max(tokens_per_s_per_user, tpot_limit_s > 0 ? 1.0 / tpot_limit_s : 0.0);
}

double default_ttft_limit_s(long long isl) {
  const double slope = (kLongPromptTtftS - kShortPromptTtftS) / (kLongPromptTokens - kShortPromptTokens);
  return kShortPromptTtftS + slope * std::max(0.0, double(isl) - kShortPromptTokens);
}

std::string default_ttft_basis(long long isl) {
  return fmt::format("MLPerf Server TTFT limits by prompt length (2 s up to 2K input tokens, 6 s at 20K, linear): "
                     "{:.3g} s at {} input tokens",
                     default_ttft_limit_s(isl), isl);
}

double resolve_ttft_limit_s(double stated_s, long long isl) {
  return stated_s < 0 ? default_ttft_limit_s(isl) : stated_s;
}

std::string ttft_limit_basis(double stated_s, long long isl) {
  return stated_s < 0 ? default_ttft_basis(isl) : stated_s == 0 ? "none (stated)" : "stated";
}

std::string ServingDeployment::kind() const {
  return std::string(disaggregated ? "disaggregated" : "aggregated") + (mtp_draft_tokens > 0 ? " + MTP" : "");
}

std::string ServingDeployment::plan() const {
  std::string s = disaggregated ? fmt::format("prefill {}x({}) + decode {}x({})", disagg.prefill_gpus / disagg.prefill.tp,
                                              parallel_text(disagg.prefill), disagg.decode_gpus / disagg.decode.tp,
                                              parallel_text(disagg.decode))
                                : parallel_text(parallel);
  if (mtp_draft_tokens > 0) s += fmt::format(" mtp={}", mtp_draft_tokens);
  return s;
}

InferenceWorkload scenario_workload(const ServingScenario& s, const ServingDeployment& d, long long concurrency) {
  InferenceWorkload w = s.workload;
  w.isl = s.traffic.isl;
  w.osl = s.traffic.osl;
  w.num_gpus = d.gpus;
  w.concurrency = concurrency;
  w.mtp_draft_tokens = d.mtp_draft_tokens;
  return w;
}

InferenceResult evaluate_scenario(const ServingScenario& s, const ServingDeployment& d, long long concurrency) {
  const InferenceWorkload w = scenario_workload(s, d, concurrency);
  return d.disaggregated ? evaluate_disaggregated(s.model, s.hw, d.disagg, w)
                         : evaluate_inference(s.model, s.hw, d.parallel, w);
}

bool meets_traffic(const ServingTraffic& t, const InferenceResult& r) {
  if (!r.valid()) return false;
  const double need = t.min_tokens_per_s_per_user();
  // A relative tolerance of 1e-9: a target stated as 1 / TPOT is met by the point at that TPOT.
  if (need > 0 && r.tokens_per_s_per_user < need * (1 - 1e-9)) return false;
  return !(t.ttft_limit_s > 0 && r.ttft_s > t.ttft_limit_s);
}

}  // namespace gpuplan
