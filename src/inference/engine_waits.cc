// What the engines' schedulers make a request wait for (inference/inference.h): the scheduler's receive
// interval, the attention-DP balancer's hold and TensorRT-LLM's batch waiting.
#include <algorithm>
#include <cmath>

#include "inference/inference.h"

namespace gpuplan {

namespace {

struct AdpHold {
  double cycle_steps = 0;  // steps between releases
  double all_busy = 0;     // share of the time every rank has a generation request (the balancer holds)
};

AdpHold adp_hold(double batch, int ranks, double arrivals_per_seq_step, int timeout_iters) {
  if (ranks <= 1 || timeout_iters <= 0 || batch <= 0 || arrivals_per_seq_step <= 0) return {};
  const double n = ranks;
  // New requests go to the ranks whose sequences finished, at random: every rank holds a context
  // request after n H_n arrivals (coupon collector), at batch x arrivals_per_seq_step per step.
  double harmonic = 0;
  for (int i = 1; i <= ranks; ++i) harmonic += 1.0 / i;
  const double fill_steps = n * harmonic / (batch * arrivals_per_seq_step);
  // The hold counter runs every iteration not all ranks have a context request and releases them at
  // the timeout, so the release comes every min(fill, timeout) steps. The balancer holds nothing
  // while a rank has no generation request (Poisson occupancy of batch / ranks sequences per rank).
  return {std::min(fill_steps, double(timeout_iters)), std::pow(1.0 - std::exp(-batch / n), n)};
}

}  // namespace

double receive_interval_wait_s(int interval, double decode_step_s) {
  return 0.5 * double(std::max(1, interval) - 1) * decode_step_s;
}

double adp_balance_wait_steps(double batch, int ranks, double arrivals_per_seq_step, int timeout_iters) {
  // A request arriving at a random phase of the cycle waits half of it.
  const AdpHold h = adp_hold(batch, ranks, arrivals_per_seq_step, timeout_iters);
  return 0.5 * h.cycle_steps * h.all_busy;
}

TrtllmBatchWait trtllm_batch_wait(double batch, double arrivals_per_seq_step, double isl, double tokens_per_decode,
                                  int timeout_iters, double threshold_tokens) {
  TrtllmBatchWait out;
  const double a = batch * std::max(0.0, arrivals_per_seq_step);  // prompts arriving per step
  if (timeout_iters <= 0 || threshold_tokens <= 0 || !(a > 0) || !(isl > 0)) return out;
  // The hold ends once the held prompts and the decodes reach the threshold (the first prompt and
  // m more) or after T = timeout_iters iterations. Prompts arrive as a Poisson stream of a per step;
  // with N the arrivals in T steps (Poisson, mean aT), integrating P(N(t) = j) over [0, T] gives
  // P(N >= j + 1) / a, so over a window:
  //   E[window] = sum_{j<m} P(N >= j+1) / a,  E[held behind the first] = sum_{j=1..m} P(N >= j),
  //   E[sum of the later prompts' holds] = sum_{j<m} j P(N >= j+1) / a,
  // and a prompt's mean hold is the window's total over the prompts it releases.
  const double need = threshold_tokens - batch * tokens_per_decode;
  const double m = std::max(0.0, std::ceil(need / isl) - 1.0);
  if (m < 1) return out;  // one prompt with the decodes meets the threshold: no hold
  const double lambda = a * double(timeout_iters);
  double cdf = 0, window = 0, later = 0, held = 0;
  for (double j = 0; j < m; ++j) {
    cdf += std::exp(-lambda + j * std::log(lambda) - std::lgamma(j + 1.0));  // P(N <= j)
    const double tail = std::max(0.0, 1.0 - cdf);                              // P(N >= j + 1)
    if (tail < 1e-15) break;  // the remaining terms vanish
    window += tail / a;
    later += j * tail / a;
    held += tail;
  }
  out.window_steps = window;
  out.released = 1.0 + held;
  out.mean_wait_steps = (window + later) / out.released;
  return out;
}

double adp_balance_released_prompts(double batch, int ranks, double arrivals_per_seq_step, int timeout_iters) {
  const AdpHold h = adp_hold(batch, ranks, arrivals_per_seq_step, timeout_iters);
  return std::max(1.0, h.all_busy * h.cycle_steps * batch * std::max(0.0, arrivals_per_seq_step));
}

}  // namespace gpuplan
