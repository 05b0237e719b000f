#include "inference/disaggregated.h"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <mutex>
#include <optional>
#include <unordered_map>

#include "core/error.h"
#include "core/spin_lock.h"
#include "inference/closed_loop_replay.h"

namespace gpuplan {

namespace {

constexpr long long kMaxDecodeBatch = 1000000;  // sequences per decode rank (a cap, not a KV pool)
constexpr long long kMaxPrefillBatch = 1000000;  // requests per prefill rank
constexpr long long kMaxPrefillTokens = 16LL << 20;  // prompt tokens per prefill rank and step

// The wire time of one request's whole KV cache from its prefill worker and the link's latency:
// bytes (isl tokens of the model's KV layout) over the senders' links (one rank with attention-DP,
// every TP rank otherwise), NVLink inside one scale-up domain, else each sender's RDMA share.
struct KvWire {
  double wire_s = 0, latency_s = 0;
};

KvWire kv_wire(const ModelArch& m, const Hardware& hw, const DisaggregatedDeployment& d, const InferenceWorkload& w) {
  const double bytes = double(w.isl) * kv_cache_bytes_per_token(m, w.kv_bytes_per_element);
  // Attention-DP: one rank holds the whole sequence's cache and sends it; otherwise each TP rank
  // sends its own share (head shards, or for MLA's replicated latent its share of the layers).
  const double senders = d.prefill.attention_dp ? 1.0 : d.prefill.tp;
  const bool same_domain = d.prefill_gpus + d.decode_gpus <= hw.fabric.domain_gpus;
  // Each sender writes to one decode rank: in a direct mesh, over that one peer's links.
  const double link = same_domain ? hw.fabric.scaleup_group_bytes_per_s(2) * hw.efficiency.scaleup_eff
                                  : hw.fabric.scaleout_bytes_per_s * hw.efficiency.scaleout_eff;
  return {bytes / (senders * link), same_domain ? hw.fabric.scaleup_latency_s : hw.fabric.scaleout_latency_s};
}

void check_prefill_caps(const DisaggregatedDeployment& d) {
  if (d.prefill_max_batch < 0 || d.prefill_max_batch > kMaxPrefillBatch)
    throw InputError("--prefill-max-batch",
                     fmt::format("must be 0 (no cap) to {} requests per prefill rank, got {}", kMaxPrefillBatch,
                                 d.prefill_max_batch));
  if (d.prefill_max_tokens < 0 || d.prefill_max_tokens > kMaxPrefillTokens)
    throw InputError("--prefill-max-tokens",
                     fmt::format("must be 0 (the --max-num-tokens budget) to {} prompt tokens per prefill rank "
                                 "and step, got {}",
                                 kMaxPrefillTokens, d.prefill_max_tokens));
}

void check_pool(const ModelArch& m, const InferenceParallel& p, int gpus, const char* side) {
  if (p.pp != 1) throw InputError(fmt::format("--{}-pp", side), fmt::format("must be 1 in a disaggregated pool, got {}", p.pp));
  if (p.tp < 1 || p.tp > 1024)
    throw InputError(fmt::format("--{}-tp", side), fmt::format("must be 1 to 1024, got {}", p.tp));
  if (gpus < p.tp || gpus % p.tp != 0 || gpus > 100000)
    throw InputError(fmt::format("--{}-gpus", side), fmt::format("must be a positive multiple of the {} worker's {} GPUs (up to 100000), got {}",
                                      side, p.tp, gpus));
  (void)m;
}

// The prefill pool's workload: one prompt per worker, staggered, no drafts, no front end (the
// front end is paid before prefill, with the transfer after it).
InferenceWorkload prefill_pool_workload(const DisaggregatedDeployment& d, const InferenceWorkload& w) {
  InferenceWorkload wp = w;
  wp.num_gpus = d.prefill_gpus;
  wp.mtp_draft_tokens = 0;
  wp.arrival = Arrival::staggered;
  wp.requests_per_client = 0;
  wp.concurrency = d.prefill_gpus / d.prefill.tp;
  wp.request_overhead_s = 0;
  wp.fp8_block_gemm_triton = d.prefill_fp8_block_gemm_triton;
  wp.batch_wait_iters = 0;  // context workers run no decodes: TensorRT-LLM's batch waiting needs them
  wp.batch_wait_tokens_ratio = 0;
  return wp;
}

}  // namespace

namespace disaggregated_detail {

// The pools' evaluations kept (see DisaggregatedPools): a key of the fields a pool's evaluation reads
// of the deployment and of what varies in the workload (the clients, the MTP drafts).
struct PoolKey {
  int tp, ep, pp, attention_dp, two_batch_overlap, gpus, mtp;
  long long a, b;  // decode: the sequences; prefill: its caps (prefill_max_batch, prefill_max_tokens)
  int c, e;        // prefill: the Triton fallback, and both pools in one scale-up domain
  bool operator==(const PoolKey&) const = default;
};

struct PoolKeyHash {
  std::size_t operator()(const PoolKey& k) const {
    std::size_t h = 0;
    for (long long v : {(long long)k.tp, (long long)k.ep, (long long)k.pp, (long long)k.attention_dp,
                        (long long)k.two_batch_overlap, (long long)k.gpus, (long long)k.mtp, k.a, k.b, (long long)k.c,
                        (long long)k.e})
      h = (h ^ std::hash<long long>{}(v)) * 0x100000001b3ULL + 0x9e3779b97f4a7c15ULL;
    return h;
  }
};

PoolKey key_of(const InferenceParallel& p, int gpus, int mtp, long long a, long long b = 0, int c = 0, int e = 0) {
  return {p.tp, p.ep, p.pp, p.attention_dp ? 1 : 0, p.two_batch_overlap ? 1 : 0, gpus, mtp, a, b, c, e};
}

// The prefill pool's figures: one prompt alone, its capacity and the steps its batching law is made of.
struct PrefillPool {
  InferenceResult alone;
  double capacity_per_s = 0;  // prefill_capacity_per_s
  StepTime chunk_step;        // the full step the capacity is made of
  double budget_step_s = 0, knot_step_s = 0;
};

}  // namespace disaggregated_detail

namespace disaggregated_detail {

// One decode worker's steps (InferenceEvaluator::decode_only_step) by the batch per worker (its bits),
// whatever the pool's GPUs: the batches the split of the clients tries, shared by the pools of one
// worker whose batches coincide (c_d / workers). Many thousand steps, asked several times each and
// none erased: an open-addressed table of the keys over steps kept in chunks that never move (a step
// found stays where it is as the table grows). Its own lock, so that threads on other workers do not
// wait for it.
class DecodeSteps {
 public:
  SpinLock mutex;  // guards the table where threads share the pools

  const StepTime* find(std::uint64_t key) const {
    if (slots_.empty()) return nullptr;
    const std::size_t mask = slots_.size() - 1;
    for (std::size_t i = spread(key) & mask;; i = (i + 1) & mask) {
      const Slot& s = slots_[i];
      if (!s.step || s.key == key) return s.step;
    }
  }

  // The step kept for `key`: `st`, or the one kept first.
  const StepTime& insert(std::uint64_t key, const StepTime& st) {
    if (const StepTime* kept = find(key)) return *kept;
    if (2 * (used_ + 1) > slots_.size()) grow();
    // A chunk's room is reserved, not filled: each step is copied in as it comes.
    if (chunks_.empty() || chunks_.back().size() == kChunk) chunks_.emplace_back().reserve(kChunk);
    chunks_.back().push_back(st);
    const StepTime* step = &chunks_.back().back();
    place(key, step);
    ++used_;
    return *step;
  }

 private:
  struct Slot {
    std::uint64_t key = 0;
    const StepTime* step = nullptr;  // nullptr: empty
  };
  static constexpr std::size_t kChunk = 256;
  // The key's bits mixed (a batch's low mantissa bits are mostly zero): MurmurHash3's finaliser.
  static std::size_t spread(std::uint64_t k) {
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdULL;
    k ^= k >> 33;
    k *= 0xc4ceb9fe1a85ec53ULL;
    k ^= k >> 33;
    return static_cast<std::size_t>(k);
  }
  void place(std::uint64_t key, const StepTime* step) {
    const std::size_t mask = slots_.size() - 1;
    std::size_t i = spread(key) & mask;
    while (slots_[i].step) i = (i + 1) & mask;
    slots_[i] = {key, step};
  }
  void grow() {
    std::vector<Slot> old(std::max<std::size_t>(64, 2 * slots_.size()));
    old.swap(slots_);
    for (const Slot& s : old)
      if (s.step) place(s.key, s.step);
  }
  std::vector<Slot> slots_;  // a power of two, at most half full
  std::size_t used_ = 0;
  std::vector<std::vector<StepTime>> chunks_;  // each of kChunk reserved (its steps never move)
};

// A decode worker over one pool's GPUs: its evaluator (at any concurrency), the tokens a step yields
// per sequence, its steps (shared with the worker's other pools) and its results by the sequences the
// pool holds.
struct DecodeWorker {
  std::unique_ptr<const InferenceEvaluator> evaluator;
  double tokens_per_step = 1;
  DecodeSteps* steps = nullptr;
  SpinLock mutex;  // guards results
  std::unordered_map<long long, InferenceResult> results;
};

}  // namespace disaggregated_detail

struct DisaggregatedPools::Impl {
  explicit Impl(bool threads) : shared(threads) {}
  const bool shared;  // threads may share the pools: the mutexes guard the maps
  SpinLock mutex;     // guards the maps below (their elements stay where they are as they grow); held
                      // for a few map operations at a time (core/spin_lock.h)
  // A map's lock where threads share the pools; none for one thread's pools.
  std::unique_lock<SpinLock> lock(SpinLock& m) {
    return shared ? std::unique_lock<SpinLock>(m) : std::unique_lock<SpinLock>();
  }
  std::unique_lock<SpinLock> lock() { return lock(mutex); }
  using Key = disaggregated_detail::PoolKey;
  using Hash = disaggregated_detail::PoolKeyHash;
  using DecodeWorker = disaggregated_detail::DecodeWorker;
  using DecodeSteps = disaggregated_detail::DecodeSteps;
  std::unordered_map<Key, disaggregated_detail::PrefillPool, Hash> prefill;
  std::unique_ptr<const Hardware> serving_hw;  // serving_hardware of the pools' hardware, made once
  // The decode workers (key: the worker at no load, over its pool's GPUs) and their steps (key: the
  // worker at no load), over the pools' own copy of the model.
  std::unique_ptr<const ModelArch> model;
  std::unordered_map<Key, std::unique_ptr<DecodeWorker>, Hash> decode_workers;
  std::unordered_map<Key, std::unique_ptr<DecodeSteps>, Hash> decode_steps;
  // The decode workers' instances, shared by the workers of one parallelism whatever their GPUs and
  // drafts (the same figures, bit for bit); its own lock, held while a worker's evaluator is made.
  SpinLock instances_mutex;
  InferenceInstances instances;

  const Hardware& serving(const Hardware& hw) {
    const auto held = lock();
    if (!serving_hw) serving_hw = std::make_unique<const Hardware>(serving_hardware(hw));
    return *serving_hw;
  }

  // Decode worker `par` over `gpus` GPUs for workload `w` (at any concurrency), its evaluator on the
  // serving hardware made by serving(); made at its first use. Throws InputError where
  // evaluate_inference_serving would.
  DecodeWorker& decode_worker(const ModelArch& m, const InferenceParallel& par, int gpus, const InferenceWorkload& w) {
    const Key key = disaggregated_detail::key_of(par, gpus, w.mtp_draft_tokens, 0);
    {
      const auto held = lock();
      if (auto it = decode_workers.find(key); it != decode_workers.end()) return *it->second;
      if (!model) model = std::make_unique<const ModelArch>(m);
    }
    auto made = std::make_unique<DecodeWorker>();
    {
      const auto held = lock(instances_mutex);
      made->evaluator = std::make_unique<const InferenceEvaluator>(*model, *serving_hw, par, w, &instances);
    }
    made->tokens_per_step = made->evaluator->tokens_per_step();
    const Key steps_key = disaggregated_detail::key_of(par, 0, w.mtp_draft_tokens, 0);
    const auto held = lock();
    auto& steps = decode_steps[steps_key];
    if (!steps) steps = std::make_unique<DecodeSteps>();
    made->steps = steps.get();
    return *decode_workers.emplace(key, std::move(made)).first->second;
  }

  // Worker `dw`'s decode step at `batch` sequences per worker, made at its first use.
  const StepTime& decode_step(const DecodeWorker& dw, double batch) {
    DecodeSteps& steps = *dw.steps;
    const auto key = std::bit_cast<std::uint64_t>(batch);
    {
      const auto held = lock(steps.mutex);
      if (const StepTime* kept = steps.find(key)) return *kept;
    }
    const StepTime st = dw.evaluator->decode_only_step(batch);
    const auto held = lock(steps.mutex);
    return steps.insert(key, st);
  }
};

DisaggregatedPools::DisaggregatedPools(bool shared_between_threads)
    : impl_(std::make_unique<Impl>(shared_between_threads)) {}
DisaggregatedPools::~DisaggregatedPools() = default;

double prefill_rank_step_tokens(const DisaggregatedDeployment& d, const InferenceWorkload& w) {
  // Tokens each rank prefills per step: the recipe's per-step budget, no more than its held requests'
  // prompts (a rank with N slots has at most N prompts to work on).
  const double isl = prompt_compute_tokens(w);  // prompt tokens a request's prefill computes
  double per_rank = double(d.prefill_max_tokens > 0 ? d.prefill_max_tokens : w.max_num_tokens);
  if (d.prefill_max_batch > 0) per_rank = std::min(per_rank, double(d.prefill_max_batch) * isl);
  return std::max(1.0, per_rank);
}

namespace disaggregated_detail {

// prefill_pool_sojourn_s of one worker's batching at any arrival rate: the step law's points, which do
// not depend on the arrivals, made once (the bisections over the rate ask it many times).
class PrefillSojourn {
 public:
  explicit PrefillSojourn(const PrefillBatching& b) : b_(b) {
    two_capacity_per_s_ = 2.0 * b.capacity_per_s;
    alone_s_ = std::max(0.0, b.alone_s);
    k_ = std::max(1.0, b.steps_per_prompt);
    n_min_ = 1.0 / k_;  // one rank's chunk of one prompt
    law_ = b.budget_prompts > n_min_ && b.max_prompts > n_min_;
    if (!law_) return;
    // The step against the prompts it holds (in prompts' worth of tokens), piecewise linear through
    // one chunk alone, the knot (one prompt on every attention-DP rank) and the token budget's step.
    pts_n_[np_] = n_min_, pts_s_[np_++] = alone_s_ / k_;
    if (b.knot_prompts > n_min_ && b.knot_prompts < b.budget_prompts)
      pts_n_[np_] = b.knot_prompts, pts_s_[np_++] = b.knot_step_s;
    pts_n_[np_] = b.budget_prompts, pts_s_[np_] = b.budget_step_s;
    ++np_;
    for (int i = 1; i < np_; ++i) pts_s_[i] = std::max(pts_s_[i], pts_s_[i - 1]);
    n_cap_ = std::min(b.max_prompts, b.budget_prompts);
    // Each segment's rise, run, slope and intercept, for the many rates asked.
    for (int i = 1; i < np_; ++i) {
      ds_[i] = pts_s_[i] - pts_s_[i - 1];
      dn_[i] = pts_n_[i] - pts_n_[i - 1];
      slope_[i] = ds_[i] / dn_[i];
      intercept_[i] = pts_s_[i - 1] - slope_[i] * pts_n_[i - 1];
    }
  }

  double at(double arrivals_per_s) const {
    const PrefillBatching& b = b_;
    const double lambda = std::max(0.0, arrivals_per_s);
    const double rho = b.capacity_per_s > 0 ? lambda / b.capacity_per_s : INFINITY;
    if (rho >= 1.0) return INFINITY;
    // Prompts beyond what the next step takes queue for later ones: M/D/1 at the worker's rate.
    const double overflow_s = rho / (two_capacity_per_s_ * (1.0 - rho));
    if (!law_) return alone_s_ + overflow_s;
    // The step on the first segment that reaches n, else on the last (the law has 2 or 3 points).
    auto step_at = [&](double n) {
      const int i = np_ == 3 && !(n <= pts_n_[1]) ? 2 : 1;
      return pts_s_[i - 1] + ds_[i] * (n - pts_n_[i - 1]) / dn_[i];
    };
    // A busy worker's step takes the prompts that arrived during the one before: n = lambda S(n),
    // solved on the segment where lambda S(n) crosses n (beyond the last: the largest step).
    double n = n_min_;
    if (lambda * pts_s_[0] > n_min_) {
      n = n_cap_;
      for (int i = 1; i < np_; ++i) {
        if (lambda * pts_s_[i] > pts_n_[i]) continue;
        n = lambda * intercept_[i] / (1.0 - lambda * slope_[i]);
        break;
      }
      n = std::clamp(n, n_min_, n_cap_);
    }
    const double step_s = step_at(n);
    const double busy = std::min(1.0, lambda * step_s / n);  // share of the time a step is running
    // An arriving prompt waits for the running step (half of it, when one runs), then rides its own
    // steps; alone (no arrivals) that is alone_s.
    return busy * step_s / 2.0 + k_ * step_s + overflow_s;
  }

 private:
  PrefillBatching b_;
  double alone_s_ = 0, k_ = 1, n_min_ = 1, n_cap_ = 0;
  bool law_ = false;  // the step law applies (else: alone_s and the queue)
  double pts_n_[3] = {}, pts_s_[3] = {};
  double ds_[3] = {}, dn_[3] = {}, slope_[3] = {}, intercept_[3] = {};  // of the segment ending at each point
  double two_capacity_per_s_ = 0;
  int np_ = 0;
};

}  // namespace disaggregated_detail

namespace {

using disaggregated_detail::PrefillSojourn;

// The prefill side of deployment `d` under `w`: the pool's figures (kept in `memo`) and, when its one
// prompt alone fits, one worker's batching law (see prefill_pool_sojourn_s) and the time from a
// prompt's prefill to its decode worker beyond the decode step (the KV transfer and the front end).
struct PrefillSide {
  const disaggregated_detail::PrefillPool* pool = nullptr;
  PrefillBatching batching;
  double prefill_instances = 1;  // prefill workers
  double transfer_s = 0;
};

PrefillSide prefill_side(DisaggregatedPools::Impl& memo, const ModelArch& m, const Hardware& hw,
                         const DisaggregatedDeployment& d, const InferenceWorkload& w) {
  const InferenceWorkload wp = prefill_pool_workload(d, w);
  const double isl = prompt_compute_tokens(w);  // prompt tokens a request's prefill computes
  const double ranks = d.prefill.attention_dp ? d.prefill.tp : 1.0;
  DisaggregatedDeployment uncapped = d;
  uncapped.prefill_max_batch = 0;
  const double budget_tokens = prefill_rank_step_tokens(uncapped, w) * ranks;
  const double rank_tokens = prefill_rank_step_tokens(d, w);
  const double budget_prompts = budget_tokens / isl;
  const bool knot = d.prefill.attention_dp && ranks > 1 && rank_tokens >= isl && budget_prompts > ranks;
  const bool one_domain = d.prefill_gpus + d.decode_gpus <= hw.fabric.domain_gpus;
  const auto prefill_key =
      disaggregated_detail::key_of(d.prefill, d.prefill_gpus, 0, d.prefill_max_batch, d.prefill_max_tokens,
                                   d.prefill_fp8_block_gemm_triton ? 1 : 0, one_domain ? 1 : 0);
  PrefillSide side;
  {
    const auto held = memo.lock();
    if (auto it = memo.prefill.find(prefill_key); it != memo.prefill.end()) side.pool = &it->second;
  }
  if (!side.pool) {
    disaggregated_detail::PrefillPool pp;
    const Hardware& serving_hw = memo.serving(hw);
    pp.alone = evaluate_inference_serving(m, serving_hw, d.prefill, wp);
    if (pp.alone.valid()) {
      pp.capacity_per_s = prefill_capacity_per_s(m, hw, d, w, &pp.chunk_step, &serving_hw);
      pp.budget_step_s = d.prefill_max_batch > 0
                             ? prefill_step_serving(m, serving_hw, d.prefill, wp, budget_tokens).total_s
                             : pp.chunk_step.total_s;
      if (knot) pp.knot_step_s = prefill_step_serving(m, serving_hw, d.prefill, wp, ranks * isl).total_s;
    }
    const auto held = memo.lock();
    side.pool = &memo.prefill.emplace(prefill_key, std::move(pp)).first->second;
  }
  const disaggregated_detail::PrefillPool& pool = *side.pool;
  if (!pool.alone.valid()) return side;
  const double prefill_alone_s = pool.alone.prefill_s;  // without the front end's overhead
  side.prefill_instances = double(d.prefill_gpus / d.prefill.tp);
  // The step's length against the prompts it holds is the worker's, from its one-prompt step (on
  // one rank), a step of one prompt on every attention-DP rank and a step of its token budget (the
  // recipe's per-step tokens); the request cap only bounds the prompts a step takes.
  PrefillBatching& batching = side.batching;
  batching.alone_s = prefill_alone_s;
  batching.steps_per_prompt = std::max(1.0, isl / rank_tokens);
  batching.budget_prompts = budget_prompts;
  batching.budget_step_s = pool.budget_step_s;
  if (knot) {
    batching.knot_prompts = ranks;
    batching.knot_step_s = pool.knot_step_s;
  }
  batching.max_prompts = rank_tokens * ranks / isl;
  batching.capacity_per_s = pool.capacity_per_s / side.prefill_instances;  // requests/s one worker completes
  // The front end's per-request latency is paid before prefill, like the transfer after it.
  side.transfer_s = kv_transfer_s(m, hw, d, w, prefill_alone_s) + w.request_overhead_s;
  return side;
}

}  // namespace

double prefill_pool_sojourn_s(const PrefillBatching& b, double arrivals_per_s) {
  return PrefillSojourn(b).at(arrivals_per_s);
}

long long decode_cap_slots(const DisaggregatedDeployment& d) {
  if (d.decode_max_batch <= 0 || d.decode.tp < 1) return 0;
  const long long ranks = d.decode.attention_dp ? d.decode.tp : 1;
  return d.decode_max_batch * ranks * (d.decode_gpus / d.decode.tp);
}

double kv_transfer_s(const ModelArch& m, const Hardware& hw, const DisaggregatedDeployment& d,
                     const InferenceWorkload& w, double prefill_s) {
  const KvWire k = kv_wire(m, hw, d, w);
  const double layers = std::max(1, m.layers);
  return std::max(k.wire_s / layers, k.wire_s - prefill_s) + k.latency_s + hw.efficiency.kernel_overhead_s;
}

double prefill_capacity_per_s(const ModelArch& m, const Hardware& hw, const DisaggregatedDeployment& d,
                              const InferenceWorkload& w, StepTime* step, const Hardware* serving_hw) {
  check_prefill_caps(d);
  const double isl = prompt_compute_tokens(w);  // prompt tokens a request's prefill computes
  const double ranks = d.prefill.attention_dp ? d.prefill.tp : 1.0;
  const double per_rank = prefill_rank_step_tokens(d, w);
  const double chunk = per_rank * ranks;
  const InferenceWorkload wp = prefill_pool_workload(d, w);
  const StepTime st = serving_hw ? prefill_step_serving(m, *serving_hw, d.prefill, wp, chunk)
                                 : prefill_step(m, hw, d.prefill, wp, chunk);
  const double chunk_s = st.total_s;
  if (step) *step = st;
  double per_worker = chunk / chunk_s / isl;  // the token rate: requests per second of one worker
  if (d.prefill_max_batch > 0) {
    // Each slot is held for the steps its prompt spans and then until its KV has left: SGLang sends a
    // request's KV after each chunk's forward (the last chunk's after the last), and frees the slot
    // when the transfer succeeds (disaggregation/prefill.py: process_disagg_prefill_inflight_queue).
    const KvWire k = kv_wire(m, hw, d, w);
    const double steps = std::max(1.0, isl / per_rank);
    const double hold_s = steps * chunk_s + k.wire_s * std::min(1.0, per_rank / isl) + k.latency_s;
    per_worker = std::min(per_worker, ranks * double(d.prefill_max_batch) / hold_s);
  }
  return per_worker * double(d.prefill_gpus / d.prefill.tp);
}

InferenceResult evaluate_disaggregated(const ModelArch& m, const Hardware& hw, const DisaggregatedDeployment& d,
                                       const InferenceWorkload& w) {
  DisaggregatedPools pools;
  return evaluate_disaggregated(m, hw, d, w, &pools);
}

PrefillTimeFloor::PrefillTimeFloor(const ModelArch& m, const Hardware& hw, const DisaggregatedDeployment& d,
                                   const InferenceWorkload& w, DisaggregatedPools* pools) {
  check_pool(m, d.prefill, d.prefill_gpus, "prefill");
  check_pool(m, d.decode, d.decode_gpus, "decode");
  check_prefill_caps(d);
  std::optional<DisaggregatedPools> local;
  DisaggregatedPools::Impl& memo = *(pools ? pools : &local.emplace(false))->impl_;
  const PrefillSide side = prefill_side(memo, m, hw, d, w);
  fits_ = side.pool->alone.valid();
  batching_ = side.batching;
  sojourn_ = std::make_shared<const PrefillSojourn>(batching_);
  workers_ = side.prefill_instances;
  transfer_s_ = side.transfer_s;
  capacity_per_s_ = side.pool->capacity_per_s;
}

double PrefillTimeFloor::sojourn_s(double rate_per_s) const {
  if (!fits_) return INFINITY;
  return sojourn_->at(rate_per_s / workers_);
}

double PrefillTimeFloor::at(double rate_per_s) const {
  if (!fits_) return INFINITY;
  return sojourn_s(rate_per_s) + transfer_s_;
}

double disaggregated_rate_within_ttft_per_s(const ModelArch& m, const Hardware& hw, const DisaggregatedDeployment& d,
                                            const InferenceWorkload& w, double ttft_limit_s,
                                            DisaggregatedPools* pools) {
  const PrefillTimeFloor prefill(m, hw, d, w, pools);
  if (!(ttft_limit_s > 0)) return INFINITY;
  if (!prefill.fits()) return 0.0;  // every load's result is invalid
  const double alone_s = prefill.alone_s(), transfer_s = prefill.transfer_s();
  // evaluate_disaggregated's TTFT at rate x is at least the steady state's sojourn(x) + transfer_s
  // (its other terms, the receive wait and the decode step, are not negative); a closed-loop run of
  // R requests per client averages it with the opening wave's, itself at least alone_s + transfer_s:
  // (alone_s + (R - 1) sojourn(x)) / R + transfer_s. The floor below is the lower of the two, and
  // grows with x as the sojourn does (PrefillSojourn: its step n = x S(n) and the queue grow with x).
  const double R = w.arrival == Arrival::closed_loop && w.requests_per_client > 0 ? double(w.requests_per_client) : 0;
  auto floor_s = [&](double x) {
    const double q = prefill.sojourn_s(x);
    if (R <= 0) return transfer_s + q;
    return transfer_s + std::min(q, R > 1 ? (alone_s + (R - 1) * q) / R : alone_s);
  };
  // A margin far above the rounding of both computations: the rate returned is beyond every rate whose
  // TTFT, computed either way, is within the limit.
  const double limit_s = ttft_limit_s * (1 + 1e-6);
  const double mu_p = prefill.capacity_per_s();
  if (floor_s(0.0) > limit_s) return 0.0;
  if (!(mu_p > 0) || floor_s(mu_p) <= limit_s) return INFINITY;
  double lo = 0.0, hi = mu_p;  // the floor within the limit at lo, beyond it at hi
  for (int it = 0; it < 200; ++it) {
    const double mid = 0.5 * (lo + hi);
    if (mid <= lo || mid >= hi) break;
    (floor_s(mid) <= limit_s ? lo : hi) = mid;
  }
  return hi;
}

InferenceResult evaluate_disaggregated(const ModelArch& m, const Hardware& hw, const DisaggregatedDeployment& d,
                                       const InferenceWorkload& w, DisaggregatedPools* pools) {
  check_pool(m, d.prefill, d.prefill_gpus, "prefill");
  check_pool(m, d.decode, d.decode_gpus, "decode");
  if (d.decode_max_batch < 0 || d.decode_max_batch > kMaxDecodeBatch)
    throw InputError("--decode-max-batch",
                     fmt::format("must be 0 (no cap) to {} sequences per decode rank, got {}", kMaxDecodeBatch,
                                 d.decode_max_batch));
  check_prefill_caps(d);
  std::optional<DisaggregatedPools> local;  // pools of this call alone, when none are given
  DisaggregatedPools::Impl& memo = *(pools ? pools : &local.emplace(false))->impl_;
  const double osl = double(w.osl);
  const int gpus = d.prefill_gpus + d.decode_gpus;

  // Decode pool: steps of decodes only; its KV cache bounds the sequences it holds (c_d = 0: as many
  // as it holds).
  InferenceWorkload wd = w;
  wd.decode_only = true;
  wd.num_gpus = d.decode_gpus;
  wd.arrival = Arrival::staggered;
  wd.requests_per_client = 0;
  wd.concurrency = 0;
  const Hardware& serving_hw = memo.serving(hw);
  // The decode worker's (found at its first use here) and, without pools, this call's results by c_d.
  DisaggregatedPools::Impl::DecodeWorker* worker = nullptr;
  std::unordered_map<long long, InferenceResult> fresh_results;
  // What the split of the clients reads of the decode pool at c_d sequences: the sequences it holds,
  // its step and TPOT (with pools: the step kept by the worker's batch, shared with its other pools).
  struct DecodeAt {
    long long concurrency = 0;
    const StepTime* step = nullptr;
    double step_s = 0, tpot_s = 0;
  };
  StepTime fresh_step;  // without pools: the last result's step
  auto figures_at = [&](long long c_d) -> DecodeAt {
    if (!pools) {
      wd.concurrency = c_d;
      const InferenceResult r = evaluate_inference_serving(m, serving_hw, d.decode, wd);
      fresh_step = r.decode_step;
      return {r.concurrency, &fresh_step, r.decode_step.total_s, r.tpot_s};
    }
    if (!worker) {
      wd.concurrency = c_d;
      worker = &memo.decode_worker(m, d.decode, d.decode_gpus, wd);
    }
    const InferenceEvaluator::DecodeLoad load = worker->evaluator->decode_load(c_d);
    const StepTime& step = memo.decode_step(*worker, load.batch);
    return {load.concurrency, &step, step.total_s, step.total_s / worker->tokens_per_step};
  };
  auto decode_at = [&](long long c_d) -> const InferenceResult& {
    wd.concurrency = c_d;
    if (!pools) {
      // A shape refused throws: not kept.
      if (auto it = fresh_results.find(c_d); it != fresh_results.end()) return it->second;
      return fresh_results.emplace(c_d, evaluate_inference_serving(m, serving_hw, d.decode, wd)).first->second;
    }
    if (!worker) worker = &memo.decode_worker(m, d.decode, d.decode_gpus, wd);
    {
      const auto held = memo.lock(worker->mutex);
      if (auto it = worker->results.find(c_d); it != worker->results.end()) return it->second;
    }
    const InferenceEvaluator& ev = *worker->evaluator;
    InferenceResult r = ev.decode_only_ready() ? ev.evaluate(c_d, *figures_at(c_d).step) : ev.evaluate(c_d);
    const auto held = memo.lock(worker->mutex);
    return worker->results.emplace(c_d, std::move(r)).first->second;
  };
  const InferenceResult& top = decode_at(0);
  auto mark = [&](InferenceResult& r) {
    r.disaggregated = true;
    r.prefill_gpus = d.prefill_gpus;
    r.decode_gpus = d.decode_gpus;
  };
  if (!top.valid()) {
    InferenceResult r = top;
    mark(r);
    return r;
  }

  // Prefill pool: one request alone (its latency), and the pool's capacity in requests/s
  // (prefill_capacity_per_s: full steps of the per-rank token budget, within the held slots).
  const PrefillSide side = prefill_side(memo, m, hw, d, w);
  const disaggregated_detail::PrefillPool& pool = *side.pool;
  const InferenceResult& alone = pool.alone;
  if (!alone.valid()) {
    InferenceResult r = alone;
    for (auto& v : r.violations) v.message = "prefill pool: " + v.message;
    mark(r);
    return r;
  }
  const double prefill_alone_s = alone.prefill_s;  // without the front end's overhead
  const StepTime& chunk_step = pool.chunk_step;
  const double prefill_instances = side.prefill_instances;
  const double mu_p = pool.capacity_per_s;
  const PrefillSojourn sojourn(side.batching);
  const double transfer_s = side.transfer_s;

  // The decode pool's slots: what its KV cache holds, or the recipe's batch cap per attention rank
  // when that is lower. Clients beyond the slots wait for one (below: Little's law over the loop).
  const long long cap_slots = decode_cap_slots(d);
  const long long slots = cap_slots > 0 ? std::min(top.max_concurrency, cap_slots) : top.max_concurrency;

  // Split the clients between the pools: decode holds c_d sequences (rate X = c_d / decode time);
  // the rest are in prefill (prefill_pool_sojourn_s: its batched steps, queueing as X nears the
  // prefill capacity). The largest c_d whose
  // total X (T_prefill + T_decode) stays within the clients is the operating point.
  const long long clients = w.concurrency > 0 ? w.concurrency : slots;
  struct Point {
    long long c_d = 0;              // the decode batch
    double step_s = 0, tpot_s = 0;  // the decode pool's there
    double rate = 0, prefill_time_s = 0, in_system = 0;
  };
  // A decode worker with a receive interval of N steps (SGLang's --scheduler-recv-interval) takes in
  // new requests every N decode steps, and the prefill waits for its KV preallocation (the bootstrap
  // hand-shake): (N - 1) / 2 steps more than a worker that polls every step.
  auto recv_wait_s = [&](double decode_step_s) {
    return receive_interval_wait_s(w.scheduler_recv_interval, decode_step_s);
  };
  auto at = [&](long long c_d) {
    Point p;
    p.c_d = c_d;
    const DecodeAt f = figures_at(c_d);
    p.step_s = f.step_s;
    p.tpot_s = f.tpot_s;
    const double t_dec = std::max(0.0, osl - 1) * f.tpot_s + f.step_s;
    p.rate = double(f.concurrency) / t_dec;
    const double sojourn_s = sojourn.at(p.rate / prefill_instances);
    if (!std::isfinite(sojourn_s)) {
      p.in_system = INFINITY;
      return p;
    }
    p.prefill_time_s = sojourn_s + transfer_s + recv_wait_s(f.step_s);
    p.in_system = p.rate * (p.prefill_time_s + t_dec);
    return p;
  };
  long long lo = 1, hi = std::min(clients, slots);
  Point best = at(lo);
  bool kv_bound = false;
  if (best.in_system <= double(clients)) {
    Point h = at(hi);
    if (h.in_system <= double(clients)) {
      best = h;
      kv_bound = true;
    } else {
      while (hi - lo > 1) {
        const long long mid = lo + (hi - lo) / 2;
        const Point p = at(mid);
        if (p.in_system <= double(clients)) {
          lo = mid;
          best = p;
        } else {
          hi = mid;
        }
      }
    }
  }
  // Between two whole decode batches the clients split continuously: with the decode time per
  // request of the batch found, solve rate x (T_prefill(rate) + T_decode) = clients for the rate
  // (T_prefill grows with the rate through the queue, so the left side rises monotonically).
  const double t_dec_best = std::max(0.0, osl - 1) * best.tpot_s + best.step_s;
  if (!kv_bound) {
    const double recv_s = recv_wait_s(best.step_s);
    auto prefill_time = [&](double x) {
      return sojourn.at(x / prefill_instances) + transfer_s + recv_s;
    };
    // Bisection, 60 steps at most: a step that leaves the bracket as it was would leave it so at every
    // later step (each depends on the bracket alone), so the loop ends there with the same answer.
    // Each round takes two steps: the middle and both middles the next step may take are asked together
    // (independent, so their divisions overlap), and the step taken is the bisection's own.
    auto holds = [&](double x) { return x * (prefill_time(x) + t_dec_best) <= double(clients); };
    double a = 0.0, b = mu_p * (1.0 - 1e-9);
    for (int it = 0; it < 60;) {
      const double x = 0.5 * (a + b);
      const double x_low = 0.5 * (a + x), x_high = 0.5 * (x + b);  // the next middle either way
      const bool at_x = holds(x), at_low = holds(x_low), at_high = holds(x_high);
      const double a1 = at_x ? x : a, b1 = at_x ? b : x;
      ++it;
      if (a1 == a && b1 == b) break;
      a = a1, b = b1;
      if (it == 60) break;
      const double x2 = at_x ? x_high : x_low;  // 0.5 * (a + b) of the bracket now
      const bool at_x2 = at_x ? at_high : at_low;
      const double a2 = at_x2 ? x2 : a, b2 = at_x2 ? b : x2;
      ++it;
      if (a2 == a && b2 == b) break;
      a = a2, b = b2;
    }
    best.rate = a;
    best.prefill_time_s = prefill_time(a);
  }
  InferenceResult r = decode_at(best.c_d);
  mark(r);
  r.violations.clear();
  // Beyond a batch cap the queue is the recipe's intent; beyond the KV cache it is a full cache.
  if (w.concurrency > slots && slots == top.max_concurrency)
    r.violations.push_back({"memory.kv_full", "concurrency",
                            fmt::format("concurrency {} exceeds the {} sequences whose KV cache fits in the decode pool",
                                        w.concurrency, top.max_concurrency)});
  r.concurrency = clients;
  r.max_concurrency = slots;
  r.prefill_s = prefill_alone_s;
  r.prefill_chunk = chunk_step;
  r.kv_transfer_s = transfer_s - w.request_overhead_s;
  r.receive_wait_s = recv_wait_s(r.decode_step.total_s);
  r.prefill_utilization = std::min(1.0, best.rate / mu_p);
  // Little's law over the whole loop: clients beyond what both pools hold wait before prefill.
  const double rate = best.rate;
  const double cycle_s = double(clients) / rate;
  const double t_dec = std::max(0.0, osl - 1) * r.tpot_s;
  const double recv_s = r.receive_wait_s;
  double ttft = std::max(best.prefill_time_s, cycle_s - t_dec - r.decode_step.total_s) + r.decode_step.total_s;
  r.queue_wait_s = std::max(0.0, ttft - (prefill_alone_s + transfer_s + recv_s + r.decode_step.total_s));
  // The median request (closed loop): within the slots a steady-state one (the opening wave is 1 in
  // requests_per_client requests); with more clients than slots, the run replayed (below).
  if (w.arrival == Arrival::closed_loop && w.requests_per_client > 0) r.ttft_median_s = ttft;
  if (w.arrival == Arrival::closed_loop && w.requests_per_client > 0 && clients > 1) {
    // The run opens with every client's prompt at once: the prefill pool works through them at its
    // capacity, the k-th first token at k / mu (mean: half the wave), then the staggered state. With
    // more clients than decode slots, the k-th also waits for a slot: floor(k / slots) decode
    // lifetimes (the mean over the wave of whichever wait is longer, taken as the longer mean).
    const double n = double(clients), sl = double(std::max(1LL, slots));
    const double q = std::floor(n / sl), rem = n - q * sl;
    const double slot_wait = clients > slots ? t_dec_best * (sl * q * (q - 1.0) / 2.0 + rem * q) / n : 0.0;
    const double own_s = prefill_alone_s + transfer_s + recv_s + r.decode_step.total_s;  // its prefill to its first token
    const double wave = std::max(n / mu_p / 2.0, slot_wait) + own_s;
    // With more clients than slots, which requests wait depends on when the slots free.
    if (w.ttft_median && clients > slots && mu_p > 0) {
      ClosedLoopReplayInput rin;
      rin.clients = clients;
      rin.requests_per_client = w.requests_per_client;
      rin.decode_workers = std::max(1, d.decode_gpus / d.decode.tp);
      rin.slots_per_worker = std::max(1LL, slots / rin.decode_workers);
      rin.prefill_per_prompt_s = 1.0 / mu_p;
      rin.first_token_s = own_s;
      rin.decode_step_s = r.decode_step.total_s;
      rin.decode_life_s = t_dec;
      rin.length_low_fraction = w.length_low_fraction;
      const ClosedLoopReplay rep = replay_closed_loop(rin);
      if (rep.requests > 0) r.ttft_median_s = rep.ttft_median_s;
    }
    const double R = w.requests_per_client;
    // The slowest 1% of the run's R x n requests: the wave's last n R / 100 (R <= 100), the one
    // with k = n (1 - R / 100) ahead of it waiting k / mu for the pool, or its slot.
    if (R <= 100) {
      const double k = n * (1.0 - R / 100.0);
      const double k_slot_wait = clients > slots ? std::floor(k / sl) * t_dec_best : 0.0;
      r.ttft_p99_s = std::max(ttft, std::max(k / mu_p, k_slot_wait) + own_s);
    }
    ttft = (wave + (R - 1) * ttft) / R;
  }
  r.ttft_s = ttft;
  r.e2e_latency_s = r.ttft_s + t_dec;
  r.tokens_per_s_total = rate * osl;
  r.tokens_per_s_per_gpu = r.tokens_per_s_total / gpus;
  r.tokens_per_s_per_user = 1.0 / r.tpot_s;
  r.requests_per_s = rate;
  r.instances = d.decode_gpus / d.decode.tp;
  return r;
}

}  // namespace gpuplan
