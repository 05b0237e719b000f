#include "inference/request_rate.h"

#include <algorithm>
#include <cmath>

namespace gpuplan {

InferenceResult evaluate_at_request_rate(const ModelArch& m, const Hardware& hw, const InferenceParallel& par,
                                         const InferenceWorkload& workload, double rate_qps,
                                         long long requests_in_run) {
  InferenceWorkload w = workload;
  // Capacity: requests/s at the largest load the KV cache admits (a run of N requests: at N in flight).
  w.concurrency = 0;
  InferenceResult top = evaluate_inference(m, hw, par, w);
  if (!top.valid()) return top;
  if (requests_in_run > 0 && requests_in_run < top.concurrency) {
    // A run of N requests never has more than N in flight: its capacity is that of N sequences.
    w.concurrency = requests_in_run;
    top = evaluate_inference(m, hw, par, w);
    w.concurrency = 0;
    if (!top.valid()) return top;
  }
  const double mu = top.tokens_per_s_total / double(w.osl);
  const double lambda = rate_qps;
  if (lambda >= mu) {
    // Overload: the system serves at capacity and the rest queue. Request k (arriving at k /
    // lambda) starts when a slot frees, at (k - M) / mu for the M slots; its TTFT adds that wait.
    // The mean over the run's N requests (unbounded run: the wait grows without limit, so the
    // run's own length is needed; without it, one run of 10 M requests is assumed).
    const long long n = requests_in_run > 0 ? requests_in_run : 10 * std::max(1LL, top.concurrency);
    const double m_slots = double(top.concurrency);
    double wait = 0;
    for (long long k = 0; k < n; ++k)
      wait += std::max(0.0, (double(k) - m_slots) / mu - (std::isfinite(lambda) ? double(k) / lambda : 0.0));
    top.queue_wait_s = wait / double(n);
    double last_e2e_s = -1;  // the last request's service latency when it is not the mean's
    if (!std::isfinite(lambda)) {
      // All requests at t = 0: the first min(N, M) prefill as one wave (chunk by chunk, each
      // request's first token when its chunk completes), as a synchronized batch does.
      InferenceWorkload ws = w;
      ws.arrival = Arrival::synchronized;
      ws.concurrency = std::min(n, std::max(1LL, top.concurrency));
      const InferenceResult wave = evaluate_inference(m, hw, par, ws);
      if (wave.valid()) {
        top.e2e_latency_s += wave.ttft_s - top.ttft_s;
        top.ttft_s = wave.ttft_s;
        // A run that is one wave (N within the slots) ends when the wave does: its prompts all
        // prefilled, then the decodes of all N together (the synchronized end-to-end latency).
        if (requests_in_run > 0 && n <= top.concurrency) last_e2e_s = wave.e2e_latency_s;
      }
    }
    // A finite run of N requests: the benchmark divides N x osl by the run's wall time, from the first
    // arrival until the last request completes, i.e. the last one's start (its arrival or a slot
    // freeing, whichever is later) plus its own service latency.
    if (requests_in_run > 0) {
      const double last = double(n - 1);
      const double arrival_last = std::isfinite(lambda) ? last / lambda : 0.0;
      const double start_last = std::max({0.0, (last - m_slots) / mu, arrival_last});
      const double makespan = start_last + (last_e2e_s > 0 ? last_e2e_s : top.e2e_latency_s);
      if (makespan > 0)
        top.tokens_per_s_total = std::min(top.tokens_per_s_total, double(n) * double(w.osl) / makespan);
      top.tokens_per_s_per_gpu = top.tokens_per_s_total / std::max(1, w.num_gpus);
    }
    top.ttft_s += top.queue_wait_s;
    top.e2e_latency_s += top.queue_wait_s;
    return top;
  }
  // Below capacity, Little's law: sequences in flight = arrival rate x end-to-end latency (fixed
  // point).
  w.concurrency = 1;
  InferenceResult r = evaluate_inference(m, hw, par, w);
  for (int it = 0; it < 30 && r.valid(); ++it) {
    const long long next = std::max(1LL, static_cast<long long>(std::ceil(lambda * r.e2e_latency_s)));
    if (next == w.concurrency) break;
    w.concurrency = std::min(next, std::max(1LL, r.max_concurrency));
    if (requests_in_run > 0) w.concurrency = std::min(w.concurrency, requests_in_run);
    r = evaluate_inference(m, hw, par, w);
  }
  // The throughput at a given rate is the rate itself while the system keeps up.
  r.tokens_per_s_total = std::min(r.tokens_per_s_total, lambda * double(w.osl));
  if (requests_in_run > 0) {
    // A finite run of N requests: N x osl over the run's wall time, the last arrival at (N - 1) / rate
    // plus its end-to-end latency (the ramp-down after the last arrival counts in the measured time).
    const double n = double(requests_in_run);
    r.tokens_per_s_total = std::min(r.tokens_per_s_total, n * double(w.osl) / ((n - 1.0) / lambda + r.e2e_latency_s));
  }
  r.tokens_per_s_per_gpu = r.tokens_per_s_total / std::max(1, w.num_gpus);
  return r;
}

}  // namespace gpuplan
