#pragma once
// Disaggregated serving: a prefill pool and a decode pool, each of its own workers and parallelism,
// with each request's KV cache handed from prefill to decode (NVIDIA Dynamo, SGLang PD
// disaggregation with Mooncake/NIXL/MoRI transfer). See docs/inference-model.md ("Disaggregated
// prefill and decode").
#include <memory>

#include "inference/inference.h"

namespace gpuplan {

class DisaggregatedPools;
namespace disaggregated_detail {
class PrefillSojourn;
}

struct DisaggregatedDeployment {
  InferenceParallel prefill;  // one prefill worker (pp = 1)
  int prefill_gpus = 0;       // whole prefill pool: a multiple of prefill.tp
  InferenceParallel decode;   // one decode worker (pp = 1)
  int decode_gpus = 0;        // whole decode pool: a multiple of decode.tp
  // The decode pool's batch cap: sequences each decode attention rank holds at most (a worker without
  // attention-DP is one rank), the recipe's max batch (TensorRT-LLM max_batch_size of a generation
  // worker, SGLang --max-running-requests per DP rank, AIConfigurator's decode `bs`). The pool's slots
  // are decode workers x ranks x this; clients beyond them wait before decode (their wait shows in
  // TTFT, Little's law in a closed loop; TPOT is that of the capped batch). 0 = no cap beyond the
  // workload's own limits (the KV cache, max_batch_size, the token budget).
  long long decode_max_batch = 0;
  // The prefill workers' limits, per attention rank (a worker without attention-DP is one rank):
  // - prefill_max_batch: requests a rank holds at once, each from the start of its prefill until its
  //   KV cache has reached the decode worker (SGLang's --max-running-requests / dp_size: the prefill
  //   scheduler's request slot is freed only when the KV transfer succeeds). 0 = no such cap.
  // - prefill_max_tokens: prompt tokens a rank prefills per step (SGLang: min(--chunked-prefill-size /
  //   dp_size, --max-prefill-tokens); TensorRT-LLM context workers: max_num_tokens, or the whole
  //   prompts max_batch_size admits). 0 = the workload's max_num_tokens.
  // The pool's capacity is the lower of its token rate (full steps of these tokens) and its slot rate
  // (slots / (the steps a prompt spans + the KV hand-off)); see docs/inference-model.md.
  long long prefill_max_batch = 0;
  long long prefill_max_tokens = 0;
  // The prefill workers run their dense block-scaled FP8 GEMMs on the engine's Triton fallback
  // (InferenceWorkload::fp8_block_gemm_triton, their own recipe environment's; the workload's flag is
  // the decode workers').
  bool prefill_fp8_block_gemm_triton = false;
};

// The decode pool's slots under its batch cap: decode_max_batch x attention ranks per worker (1
// without attention-DP) x decode workers; 0 when there is no cap (d.decode_max_batch == 0).
long long decode_cap_slots(const DisaggregatedDeployment& d);

// One request's KV cache sent from a prefill worker to a decode worker: its bytes (the model's KV
// layout at the KV precision, isl tokens) split over the sending worker's GPUs, each on its own
// link (NVLink when both pools sit in one scale-up domain, else its RDMA NIC share), sent layer by
// layer as prefill proceeds so that only the last layer's share and one latency are exposed when
// the transfer is faster than the prefill (`prefill_s`); what the prefill does not cover is added.
double kv_transfer_s(const ModelArch& m, const Hardware& hw, const DisaggregatedDeployment& d,
                     const InferenceWorkload& w, double prefill_s);

// The prefill pool's capacity in requests per second of w.isl-token prompts: per worker the lower of
// - the token rate: ranks x B / isl requests per step of ranks x B tokens, B = prefill_max_tokens per
//   rank (w.max_num_tokens when 0), at most prefill_max_batch x isl when that cap is set;
// - the slot rate: ranks x prefill_max_batch / (max(1, isl / B) steps + the KV hand-off after the
//   last chunk's forward: that chunk's share of the request's KV over the sender's link, and one
//   latency), when prefill_max_batch > 0;
// times the prefill workers. The step is prefill_step's for the whole worker. Throws InputError for
// caps out of range (--prefill-max-batch, --prefill-max-tokens). `step`, when given, receives the
// worker's full prefill step (the one the capacity is made of). `serving_hw`, when given, is
// serving_hardware(hw), which the caller already holds.
double prefill_capacity_per_s(const ModelArch& m, const Hardware& hw, const DisaggregatedDeployment& d,
                              const InferenceWorkload& w, StepTime* step = nullptr,
                              const Hardware* serving_hw = nullptr);

// Prompt tokens one prefill attention rank (a worker without attention-DP is one rank) takes in a
// step: d.prefill_max_tokens (w.max_num_tokens when 0), at most d.prefill_max_batch whole prompts.
double prefill_rank_step_tokens(const DisaggregatedDeployment& d, const InferenceWorkload& w);

// One prefill worker's batched steps (see prefill_pool_sojourn_s). Prompts are counted in prompts'
// worth of tokens (tokens / isl).
struct PrefillBatching {
  double alone_s = 0;           // one prompt alone (on one attention-DP rank), all its steps
  double steps_per_prompt = 1;  // steps one prompt spans on its rank (isl / the rank's step tokens, >= 1)
  double knot_prompts = 0;      // optional middle point of the step law (0: none): one prompt per
  double knot_step_s = 0;       //   attention-DP rank, whose attention runs side by side
  double budget_prompts = 0;    // a step of the worker's token budget (prefill_max_tokens per rank) ...
  double budget_step_s = 0;     //   ... and its time
  double max_prompts = 0;       // prompts a step may take (fewer than budget_prompts under prefill_max_batch)
  double capacity_per_s = 0;    // requests/s the worker completes (prefill_capacity_per_s / workers)
};

// Mean time from a prompt's arrival at a prefill worker to the end of its prefill (the worker's
// batched steps), prompts arriving at `arrivals_per_s` to that worker. Engines start a step with the
// prompts that wait (TensorRT-LLM's context worker: whole prompts within max_batch_size and
// max_num_tokens; SGLang's prefill server: its waiting queue within the chunked-prefill budget), and
// an attention-DP worker's ranks run each step together (the MoE all-to-all), so a prompt that
// arrives while a step runs waits for it to end, then rides steps holding the prompts that arrived
// meanwhile. The step S(n) of n prompts is piecewise linear through (1/k, alone_s/k) (one chunk of
// one prompt, k = steps_per_prompt), the knot and the budget's step; a busy worker's steps hold
// n = arrivals x S(n) (at most max_prompts); the sojourn is busy x S / 2 (the running step's rest,
// busy = arrivals x S / n) + k S (its own steps) + the M/D/1 wait at capacity_per_s (prompts the next
// step cannot take). Alone it is alone_s; it grows with the arrivals and is infinite at
// capacity_per_s. See docs/inference-model.md ("The prefill pool's batched steps").
double prefill_pool_sojourn_s(const PrefillBatching& b, double arrivals_per_s);

// Evaluates a disaggregated deployment at w.concurrency clients (0: as many as the decode pool's
// slots hold: its KV cache, or d.decode_max_batch per rank). The prefill pool serves prompts at its
// capacity (prefill_capacity_per_s: full steps of max_num_tokens per rank, or the recipe's
// prefill_max_tokens, within prefill_max_batch held slots); the decode pool's steps carry decodes
// only. The load splits so that the
// clients fill both: decode in-flight = rate x decode time, and a prompt spends
// prefill_pool_sojourn_s in the prefill pool (its batched steps, and the queue as the rate nears the
// capacity). TTFT = that sojourn + front end + KV transfer + one decode step;
// closed-loop runs (requests_per_client > 0) open with every prompt at once. Clients beyond the decode
// pool's slots wait for one: throughput is slots / decode time and the wait is in TTFT. Malformed
// input -> InputError naming the option (--prefill-tp, --decode-gpus, --decode-max-batch,
// --prefill-max-batch, --prefill-max-tokens, ...).
InferenceResult evaluate_disaggregated(const ModelArch& m, const Hardware& hw, const DisaggregatedDeployment& d,
                                       const InferenceWorkload& w);

// A bound on the requests/s disaggregated deployment `d` serves under `w` (any w.concurrency) at a
// mean TTFT (evaluate_disaggregated's ttft_s) within `ttft_limit_s`: a prompt's TTFT is at least its
// time in the prefill pool (prefill_pool_sojourn_s at the rate, which grows with it) and the KV
// transfer, so no rate beyond the one whose time reaches the limit meets it. INFINITY without a limit
// (<= 0) or where the limit holds up to the prefill pool's capacity; 0 where the prefill pool does not
// fit. The same InputErrors as evaluate_disaggregated. `pools`: as there (nullptr: none kept).
double disaggregated_rate_within_ttft_per_s(const ModelArch& m, const Hardware& hw, const DisaggregatedDeployment& d,
                                            const InferenceWorkload& w, double ttft_limit_s,
                                            DisaggregatedPools* pools = nullptr);

// The least time a prompt of disaggregated deployment `d` under `w` spends between its arrival at the
// prefill pool and its decode worker at `rate_per_s` requests/s, as evaluate_disaggregated adds it up:
// its sojourn in the prefill pool (prefill_pool_sojourn_s per worker, growing with the rate, INFINITY
// at the pool's capacity) and the KV hand-off with the front end; the decode worker's receive wait (not
// negative) is left out. INFINITY at every rate for a prefill pool that does not fit. The same
// InputErrors as evaluate_disaggregated; `pools` as there (nullptr: none kept).
class PrefillTimeFloor {
 public:
  PrefillTimeFloor(const ModelArch& m, const Hardware& hw, const DisaggregatedDeployment& d, const InferenceWorkload& w,
                   DisaggregatedPools* pools = nullptr);
  double at(double rate_per_s) const;
  // Its parts: the sojourn in the prefill pool alone, one prompt's prefill alone, the hand-off with the
  // front end, the pool's capacity (requests/s), and whether the pool fits.
  double sojourn_s(double rate_per_s) const;
  double alone_s() const { return batching_.alone_s; }
  double transfer_s() const { return transfer_s_; }
  double capacity_per_s() const { return capacity_per_s_; }
  bool fits() const { return fits_; }

 private:
  bool fits_ = false;
  PrefillBatching batching_;
  std::shared_ptr<const disaggregated_detail::PrefillSojourn> sojourn_;  // batching_'s law, made once
  double workers_ = 1, transfer_s_ = 0, capacity_per_s_ = 0;
};

// The pools' evaluations of disaggregated deployments of one model, on one hardware, under one
// workload but for its clients and MTP drafts: the decode pool's result by its workers, GPUs, drafts
// and sequences, and the prefill pool's figures by its workers, GPUs and caps. Deployments that pair
// the same pool with others, and one deployment at several loads, evaluate it once. Threads may share
// one made with shared_between_threads (the default); one thread's own pools take no lock.
class DisaggregatedPools {
 public:
  explicit DisaggregatedPools(bool shared_between_threads = true);
  ~DisaggregatedPools();
  DisaggregatedPools(const DisaggregatedPools&) = delete;
  DisaggregatedPools& operator=(const DisaggregatedPools&) = delete;
  struct Impl;

 private:
  friend InferenceResult evaluate_disaggregated(const ModelArch&, const Hardware&, const DisaggregatedDeployment&,
                                                const InferenceWorkload&, DisaggregatedPools*);
  friend class PrefillTimeFloor;
  std::unique_ptr<Impl> impl_;
};

// evaluate_disaggregated with the pools' evaluations kept in `pools` (see DisaggregatedPools; the same
// model, hardware and workload but for w.concurrency and w.mtp_draft_tokens on every call): the same
// result.
InferenceResult evaluate_disaggregated(const ModelArch& m, const Hardware& hw, const DisaggregatedDeployment& d,
                                       const InferenceWorkload& w, DisaggregatedPools* pools);

}  // namespace gpuplan
