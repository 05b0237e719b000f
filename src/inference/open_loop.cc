// Open-loop serving under Poisson arrivals (see open_loop.h).
#include "inference/open_loop.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "inference/disaggregated.h"
#include "inference/queueing.h"

namespace gpuplan {

double OpenLoopCurve::tpot_at(double n) const {
  if (batch.empty()) return std::numeric_limits<double>::infinity();
  if (batch.size() == 1 || n <= batch[0]) return tpot_s[0];
  const auto it = std::upper_bound(batch.begin(), batch.end(), n);
  std::size_t i = it == batch.begin() ? 1 : std::min<std::size_t>(it - batch.begin(), batch.size() - 1);
  const double x0 = batch[i - 1], x1 = batch[i], y0 = tpot_s[i - 1], y1 = tpot_s[i];
  return y0 + (y1 - y0) * (n - x0) / (x1 - x0);
}

OpenLoopCurve tabulate_open_loop(const ServingScenario& s, const ServingDeployment& d) {
  OpenLoopCurve c;
  c.deployment = d;
  c.osl = s.traffic.osl;
  InferenceResult first = evaluate_scenario(s, d, 0);  // as many as fit: the slots
  if (!first.valid() || first.max_concurrency < 1) return c;
  c.decode_slots = first.max_concurrency;
  const InferenceResult one = evaluate_scenario(s, d, first.instances);
  c.prefill_alone_s = one.prefill_s;
  c.fixed_ttft_s = one.kv_transfer_s + one.receive_wait_s;
  // Prefill: the pool's capacity in full steps (prefill_capacity_per_s); its servers are the attention
  // ranks that each take a prompt (the workers' tp ranks under attention-DP, else each worker). An
  // aggregated engine's instances prefill between their decode steps: their capacity is that of the
  // same GPUs as a prefill pool, and the decode steps' share is in the tabulated TPOT (the staggered
  // steps mix prefill chunks in).
  DisaggregatedDeployment pool = d.disagg;
  if (!d.disaggregated) {
    pool.prefill = d.parallel;
    pool.prefill.pp = 1;
    pool.prefill_gpus = d.gpus;
    pool.decode = pool.prefill;
    pool.decode_gpus = d.gpus;
  }
  const int tp = std::max(1, pool.prefill.tp);
  const int workers = std::max(1, pool.prefill_gpus / tp);
  const int ranks = pool.prefill.attention_dp ? tp : 1;
  c.prefill_servers = workers * ranks;
  const double mu = prefill_capacity_per_s(s.model, s.hw, pool, scenario_workload(s, d, first.instances));
  c.prefill_service_s = mu > 0 ? double(c.prefill_servers) / mu : one.prefill_s;
  // Decode batches from one sequence per instance to the slots, geometric (16 points and the ends).
  const double lo = std::max(1, one.instances), hi = double(c.decode_slots);
  const int points = hi > lo ? 16 : 1;
  long long last = 0;
  for (int i = 0; i < points; ++i) {
    const long long n = i + 1 == points ? (long long)hi
                                         : std::llround(lo * std::pow(hi / lo, double(i) / std::max(1, points - 1)));
    if (n <= last) continue;
    const InferenceResult r = evaluate_scenario(s, d, n);
    if (!r.valid()) break;
    c.batch.push_back(double(n));
    c.tpot_s.push_back(r.tpot_s);
    if (!d.disaggregated) c.ttft_engine_s.push_back(std::max(r.ttft_s - r.queue_wait_s, one.prefill_s));
    last = n;
  }
  if (!c.batch.empty()) c.decode_slots = std::min<long long>(c.decode_slots, (long long)c.batch.back());
  return c;
}

OpenLoopResult open_loop(const OpenLoopCurve& c, double rate, const OpenLoopScale& scale) {
  OpenLoopResult r;
  r.requests_per_s = rate;
  r.tokens_per_s = rate * double(c.osl);
  if (c.batch.empty() || c.decode_slots < 1) {
    r.why_not = "the deployment holds no sequence";
    return r;
  }
  const auto tpot = [&](double n) { return scale.tpot * c.tpot_at(n); };
  // Prefill: M/G/c of the prefill servers.
  const double service_s = scale.prefill * c.prefill_service_s;
  r.prefill_utilization = rate * service_s / c.prefill_servers;
  if (r.prefill_utilization >= 1) {
    r.why_not = "the prefill servers cannot keep up with the arrivals";
    return r;
  }
  // Decode: n = rate x (OSL - 1) x TPOT(n), by bisection on the slots.
  const double dec_tokens = std::max(1.0, double(c.osl) - 1);
  const double slots = double(c.decode_slots);
  const auto g = [&](double n) { return rate * dec_tokens * tpot(n) - n; };
  if (g(slots) >= 0) {
    r.slot_utilization = 1;
    r.why_not = "the decode slots cannot keep up with the arrivals";
    return r;
  }
  double a = 0, b = slots;
  for (int it = 0; it < 48; ++it) {
    const double m = 0.5 * (a + b);
    (g(m) > 0 ? a : b) = m;
  }
  const double n = b;
  r.decode_batch = n;
  r.slot_utilization = n / slots;
  r.decode_batch_p99 = std::min(slots, poisson_quantile(n, 0.99));
  r.tpot_p50_s = tpot(n);
  r.tpot_p99_s = tpot(std::max(n, r.decode_batch_p99));
  r.tokens_per_s_per_user_p50 = 1.0 / r.tpot_p50_s;
  // Waiting for a decode slot: M/G/c of the slots, each held for the decode of one request.
  const int slot_servers = int(std::min(slots, 1e9));
  const double hold_s = dec_tokens * r.tpot_p50_s;
  const double slot_mean = mgc_wait_mean_s(slot_servers, rate, hold_s, 1.0);
  const double slot_p50 = mgc_wait_quantile_s(slot_servers, rate, hold_s, 1.0, 0.5);
  const double slot_p99 = mgc_wait_quantile_s(slot_servers, rate, hold_s, 1.0, 0.99);
  // One prompt's own time to its first token: an aggregated engine's TTFT at the mean batch (its mixed
  // steps), else the prefill alone; the queue of prompts is the M/G/c wait added below.
  double own_engine_s = c.prefill_alone_s;
  if (c.ttft_engine_s.size() == c.batch.size() && !c.batch.empty()) {
    const auto it = std::upper_bound(c.batch.begin(), c.batch.end(), n);
    const std::size_t i = it == c.batch.begin() ? 0 : std::size_t(it - c.batch.begin()) - 1;
    const std::size_t j = std::min(i + 1, c.batch.size() - 1);
    const double f = j == i ? 0.0 : std::clamp((n - c.batch[i]) / (c.batch[j] - c.batch[i]), 0.0, 1.0);
    own_engine_s = c.ttft_engine_s[i] + f * (c.ttft_engine_s[j] - c.ttft_engine_s[i]);
  }
  const double own_s = scale.prefill * own_engine_s + c.fixed_ttft_s;
  const double cv2 = c.prefill_service_cv2;
  r.ttft_mean_s = own_s + mgc_wait_mean_s(c.prefill_servers, rate, service_s, cv2) + slot_mean;
  r.ttft_p50_s = own_s + mgc_wait_quantile_s(c.prefill_servers, rate, service_s, cv2, 0.5) + slot_p50;
  r.ttft_p99_s = own_s + mgc_wait_quantile_s(c.prefill_servers, rate, service_s, cv2, 0.99) + slot_p99;
  r.stable = std::isfinite(r.ttft_p99_s);
  if (!r.stable) r.why_not = "the queue grows without bound";
  return r;
}

}  // namespace gpuplan
