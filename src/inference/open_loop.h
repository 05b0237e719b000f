#pragma once
// Open-loop serving: a deployment under Poisson arrivals at a request rate, as against the closed loop
// of a fixed number of clients that evaluate_scenario answers. The deployment's step-time model is
// tabulated once (TPOT against the decode batch, the prefill pool's capacity); each rate is then
// arithmetic, microseconds a point, so sizing can ask it thousands of times:
// - prefill: an M/G/c queue of the prefill servers (the engine's instances, or the prefill pool's
//   workers) with deterministic service (every prompt is ISL tokens long): Erlang C with Kingman's
//   (1 + cs^2) / 2, its mean and 50th / 99th percentile waits added to one prompt's prefill alone;
// - decode: each instance's batch is a birth-death chain. Output lengths are taken geometric (a
//   constant end-of-sequence chance per token, the maximum-entropy law for a known mean), so in a batch
//   of n every step ends each sequence with chance 1 / (OSL - 1): n leaves at n / ((OSL - 1) TPOT(n))
//   a second and grows at the instance's share of the arrivals. Its stationary law, the product of
//   those ratios, is the Poisson law of an infinite-server queue where TPOT is flat and widens by
//   1 / (1 - u) where a share u of the step grows with the batch (near the throughput plateau a small
//   excess of arrivals holds many more sequences). At the decode slots (KV cache or batch cap) the
//   chain goes on as a queue served at the slots' rate, its waits in TTFT. The batch a request decodes
//   in drifts over many request lifetimes, so its TPOT is the step time at the batch it joins
//   (arrivals see the time average), and TTFT the engine's at that batch plus any wait for a slot;
//   an aggregated engine admits prompts at step boundaries, so a prompt's TTFT also spreads uniformly
//   over the steps between admissions (the phase of the step under way when it arrives).
// See docs/sizing.md ("Open-loop traffic").
#include <functional>
#include <string>
#include <vector>

#include "inference/serving_scenario.h"

namespace gpuplan {

// One deployment's response, tabulated.
struct OpenLoopCurve {
  ServingDeployment deployment;
  long long osl = 1;
  int prefill_servers = 1;        // instances (aggregated) or prefill workers (disaggregated)
  int decode_instances = 1;       // schedulers that each hold a batch of their own (the arrivals spread over them)
  double prefill_alone_s = 0;     // one prompt's prefill alone
  double prefill_service_s = 0;   // a server's time per prompt at full load (1 / its capacity)
  double prefill_service_cv2 = 0; // squared coefficient of variation of that service (fixed ISL: 0)
  double fixed_ttft_s = 0;        // the KV hand-off and the receive interval's wait
  long long decode_slots = 0;     // sequences the decode side holds (KV cache, batch caps)
  std::vector<double> batch;      // tabulated decode batch (whole deployment), ascending
  std::vector<double> tpot_s;     // TPOT at each
  // An aggregated engine's TTFT at each batch with the queue of prompts left out (the closed-loop
  // evaluation at that many sequences: the prompt's prefill in the engine's mixed steps and the wait
  // for the step under way); empty (disaggregated, or not tabulated): prefill_alone_s.
  std::vector<double> ttft_engine_s;
  // An aggregated engine takes in new requests every this many decode steps (at step boundaries): a
  // prompt arriving at a uniform phase waits for the steps still to run, so its TTFT spreads over that
  // many steps about the engine's mean (0: no spread, disaggregated).
  int admit_interval_steps = 0;
  bool prefill_separate = false;  // the engine runs prompts in forwards of their own (InferenceWorkload)
  // Prompt lengths: fixed at the mean `isl` (prompt_isl_max 0), or varying as a dataset's do, on
  // [0, prompt_isl_max] (the dataset's longest) by the maximum-entropy law there for the mean `isl`: a
  // density exponential in the length, truncated at the longest. A prompt of x tokens takes x / isl of
  // the mean prompt's prefill.
  long long isl = 0;
  long long prompt_isl_max = 0;
  // Or lengths as a benchmark client draws them: uniform in [length_low, 1] x the longest, the ISL and
  // OSL their means (InferenceX's benchmark_serving: 0.8); 1: fixed. Not with prompt_isl_max.
  double length_low = 1;
  // Whether the lengths vary (either law).
  bool lengths_vary() const { return isl > 0 && (prompt_isl_max > 0 || length_low < 1); }
  // TPOT at a decode batch of `n` (linear between the tabulated points, linear extrapolation beyond).
  double tpot_at(double n) const;
  // tpot_at(max(1, n) x decode_instances) for n = 0 .. decode_slots / decode_instances, the batches one
  // instance holds, kept by index_tpot (tabulate_open_loop calls it) so that an evaluation reads the
  // same values without searching the table at every state; empty, or for other slots or instances than
  // it was kept for: computed at each use.
  std::vector<double> tpot_per_instance;
  int tpot_indexed_instances = 0;
  // With them, for the batch chain's log ratios: log_tpot_per_seq_sum[n] = sum over k = 1 .. n of
  // log(tpot_per_instance[k] / k) (0 at n = 0), and whether tpot_per_instance[n] / n never rises with n
  // (a step time that grows more slowly than its batch: the chain then has one mode, found by
  // bisection, and an evaluation visits only the states near it).
  std::vector<double> log_tpot_per_seq_sum;
  bool tpot_per_seq_falls = false;
  // And the engine's TTFT (ttft_engine_s, interpolated) at m = 0 .. that many sequences an instance;
  // empty where ttft_engine_s is.
  std::vector<double> ttft_engine_per_instance;
  void index_tpot();
};

// Tabulates `d` for the scenario's traffic (ISL/OSL). InputError as evaluate_scenario; a deployment
// that fits no sequence gives decode_slots 0.
OpenLoopCurve tabulate_open_loop(const ServingScenario& s, const ServingDeployment& d);

// Multipliers on the model's times (measured / predicted): the error draws of sizing's Monte Carlo.
struct OpenLoopScale {
  double tpot = 1;     // decode step times
  double prefill = 1;  // prefill times
};

struct OpenLoopResult {
  bool stable = false;          // both the prefill servers and the decode slots keep up
  std::string why_not;          // when not
  double requests_per_s = 0;
  double decode_batch = 0;      // mean sequences in decode (Little's law)
  double decode_batch_p99 = 0;
  double prefill_utilization = 0;
  double slot_utilization = 0;
  double ttft_mean_s = 0, ttft_p50_s = 0, ttft_p99_s = 0;
  double tpot_mean_s = 0, tpot_p50_s = 0, tpot_p99_s = 0;  // over requests (each its batch's step time)
  double tokens_per_s_per_user_p50 = 0;  // 1 / tpot_p50
  double tokens_per_s = 0;               // output tokens/s of the deployment (rate x OSL)
};

OpenLoopResult open_loop(const OpenLoopCurve& c, double requests_per_s, const OpenLoopScale& scale = {});

// Latency limits on one replica's open-loop figures; 0: no limit.
struct OpenLoopLimits {
  double ttft_p99_s = 0;
  double tpot_p50_s = 0;  // a speed per user S is TPOT p50 <= 1 / S
  double tpot_p99_s = 0;
};

// Whether open_loop(c, requests_per_s, scale) is stable and within `limits`: the same figures, each
// quantile asked as its distribution at the limit (one evaluation, not a bisection), so the answer is
// open_loop's up to the quantiles' solver tolerance. Sizing asks it for every draw and count.
bool open_loop_meets(const OpenLoopCurve& c, double requests_per_s, const OpenLoopLimits& limits,
                     const OpenLoopScale& scale = {});

// Whether `r` is stable and its TTFT p99, TPOT p50 and TPOT p99 are within `limits` (0: no limit).
bool open_loop_within(const OpenLoopResult& r, const OpenLoopLimits& limits);

// The largest rate at which `ok` holds (0 when it fails even at a vanishing rate): doubling from `from`,
// then 50 bisections; `ok` holds below some rate and fails above it.
double largest_rate_where(double from, const std::function<bool(double)>& ok);
// The largest rate the deployment keeps up with (open_loop stable): its capacity under Poisson arrivals.
double open_loop_capacity_per_s(const OpenLoopCurve& c, double from);
// The largest rate at which open_loop is stable and its TTFT p99, TPOT p50 and TPOT p99 are within
// `limits` (0 where even a vanishing rate is not).
double open_loop_max_rate_within(const OpenLoopCurve& c, const OpenLoopLimits& limits, double from);

}  // namespace gpuplan
