// The serving evaluator: one instance's decode and prefill steps, KV-limited batching, TTFT, TPOT and
// throughput (evaluate_inference), and the engine's limits applied (evaluate_under_limits). The step
// physics is inference/step.cc, the input checks inference/input_check.cc, the hardware a step runs on
// serving_hardware.cc and the schedulers' waits engine_waits.cc.
#include "inference/inference.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <vector>

#include "core/error.h"
#include "inference/input_check.h"
#include "inference/speculative.h"
#include "inference/step.h"

namespace gpuplan {

namespace {
// The prompt-token budget's load in the M/D/1 wait of a chunked prompt (InferenceResult::
// prompt_queue_s) is held below 1: a closed loop's budget can be full, where the wait is that of
// the prompts ahead, a few services, not an unbounded queue (0.98: at most 24.5 services of wait).
constexpr double kPromptBudgetLoadMax = 0.98;
}  // namespace

using step::added;
using step::blend;
using step::check_input;
using step::draft_step;
using step::expose_host_work;
using step::kStepHostPerSeqS;
using step::memory_tp;
using step::rank_sequences;
using step::scaled;
using step::Shape;
using step::shape_of;
using step::stage_step;

const char* to_string(Arrival a) {
  switch (a) {
    case Arrival::staggered: return "staggered";
    case Arrival::synchronized: return "synchronized";
    case Arrival::closed_loop: return "closed_loop";
  }
  return "?";
}

const char* to_string(KvAdmission a) {
  switch (a) {
    case KvAdmission::reserve_full: return "reserve_full";
    case KvAdmission::current_length: return "current_length";
  }
  return "?";
}

long long kv_held_tokens(const InferenceWorkload& w) {
  if (w.kv_admission == KvAdmission::current_length && w.arrival != Arrival::synchronized)
    return w.isl + (w.osl + 1) / 2;
  return w.isl + w.osl;
}

std::optional<MoeExchange> parse_moe_exchange(const std::string& s) {
  if (s == "all_to_all") return MoeExchange::all_to_all;
  if (s == "all_gather") return MoeExchange::all_gather;
  if (s == "all_gather_unless_mnnvl") return MoeExchange::all_gather_unless_mnnvl;
  return std::nullopt;
}

std::optional<KvAdmission> parse_kv_admission(const std::string& s) {
  if (s == "reserve_full") return KvAdmission::reserve_full;
  if (s == "current_length") return KvAdmission::current_length;
  return std::nullopt;
}

namespace {

// What the serving engine holds outside weights, activation workspace and KV pool: the CUDA context
// and the engines' communication buffers (NCCL, custom all-reduce), about 1 GB on Hopper. The rest
// of the headroom is kv_mem_fraction: TensorRT-LLM sizes its KV pool as
// kv_cache_free_gpu_mem_fraction (0.9) of the memory free after loading the weights and
// allocating the activation buffers, so the 10% it leaves is the engine's reserve; a fixed 5 GB on
// top of it (the training default) left Llama 3.x 70B FP8 on one 80 GB H100 room for about one
// sequence where TensorRT-LLM runs some twenty (kServingEngineReserveBytes, one figure for every command).

// The shared inference-memory model's input for one instance (no sequences yet: the KV pool is sized
// from what the weights and workspace leave).
InferenceMemoryInput serving_memory_input(const ModelArch& m, const Hardware& hw, const InferenceParallel& par,
                                          const InferenceWorkload& w) {
  InferenceMemoryInput mi;
  mi.weight_precision = w.weight_precision;
  mi.kv_bytes_per_element = w.kv_bytes_per_element;
  mi.tp = memory_tp(m, par);
  mi.ep = par.ep;
  mi.pp = par.pp;
  mi.context_tokens = w.isl + w.osl;
  mi.concurrency = 0;
  mi.max_batch_tokens = w.max_num_tokens;
  mi.kv_block_tokens = w.kv_block_tokens;
  mi.capacity_bytes = hw.accelerator.memory_bytes;
  mi.reserve_bytes = kServingEngineReserveBytes;
  mi.window_kv_whole = w.window_kv_whole;
  return mi;
}

}  // namespace

double prompt_compute_tokens(const InferenceWorkload& w) {
  return std::max(1.0, std::round(double(w.isl) * (1.0 - w.prefix_hit_fraction)));
}

InferenceResult evaluate_inference(const ModelArch& m, const Hardware& hw, const InferenceParallel& par,
                                   const InferenceWorkload& w) {
  return evaluate_inference_serving(m, serving_hardware(hw), par, w);
}

namespace inference_detail {

// The memory figures at loads by their model and input: the instances of parallelisms whose memory
// input is the same (those that differ only in two-batch overlap, say) share them, the same figures.
// For one thread.
class MemoryAtLoadsKept {
 public:
  std::shared_ptr<const InferenceMemoryAtLoads> get(const ModelArch& m, const InferenceMemoryInput& mi) {
    const std::uint64_t widths = std::uint64_t(std::uint32_t(mi.tp)) << 32 ^
                                 std::uint64_t(std::uint16_t(mi.ep)) << 16 ^ std::uint16_t(mi.pp);
    for (std::size_t i = 0; i < widths_.size(); ++i)
      if (widths_[i] == widths && kept_[i].m == &m && kept_[i].mi == mi) return kept_[i].memory;
    auto made = std::make_shared<const InferenceMemoryAtLoads>(m, mi);
    kept_.push_back({&m, mi, made});
    widths_.push_back(widths);
    return made;
  }

 private:
  struct Entry {
    const ModelArch* m;
    InferenceMemoryInput mi;
    std::shared_ptr<const InferenceMemoryAtLoads> memory;
  };
  std::vector<Entry> kept_;
  std::vector<std::uint64_t> widths_;  // kept_'s inputs' tp, ep and pp, packed: most entries ruled out by it
};

}  // namespace inference_detail

using inference_detail::MemoryAtLoadsKept;

// What an InferenceEvaluator's instance is, whatever its GPU count, MTP drafts and load: the memory at
// no load, the per-stage shape and its steps, the KV limit before the step's token budget, one
// prompt's prefill.
struct InferenceEvaluator::Instance {
  Instance(const ModelArch& m, const Hardware& hw, const InferenceParallel& par, const InferenceWorkload& w,
           bool with_draft, MemoryAtLoadsKept* memories = nullptr);
  InferenceMemoryInput mi;  // the instance's memory input (no sequences yet)
  InferenceMemory base;     // the memory figures at no load
  // The memory figures at a load, on the GPU's capacity (shared with other instances of the same
  // memory input where `memories` keeps them).
  std::shared_ptr<const InferenceMemoryAtLoads> memory;
  Shape shape;
  std::optional<step::Stage> stage;  // the steps of `shape`
  std::optional<step::Stage> draft;  // the MTP draft head's pass (draft_shape)
  double weights_bytes = 0;          // per GPU
  double kv_bytes_per_sequence = 0;  // per sequence of the instance, per GPU
  double free_bytes = 0;             // per GPU, beyond the weights, workspace and reserve
  long long ranks = 1;               // the scheduler's ranks (attention-DP: its attention ranks)
  long long max_batch = 0;           // sequences the KV pool and the scheduler admit, before the token budget
  double prefill_s = 0, prefix_load_s = 0;
  StepTime prefill_chunk;  // continuous batching: one prefill chunk
  // With no room for one sequence (free_bytes <= 0 or max_batch < 1): its evaluators' result's
  // violations and memory, the same for every one of them.
  std::vector<Violation> no_room_violations;
  InferenceMemory no_room_memory;
};

InferenceEvaluator::Instance::Instance(const ModelArch& m, const Hardware& hw, const InferenceParallel& par,
                                       const InferenceWorkload& w, bool with_draft, MemoryAtLoadsKept* memories) {
  // Memory: weights and workspace from the shared inference-memory model; the KV pool takes
  // kv_mem_fraction of what is left (TensorRT-LLM kv_cache_free_gpu_mem_fraction). Under reserve_full
  // admission each sequence reserves its whole isl + osl (guaranteed-no-evict scheduling); under
  // current_length the running batch of a continuous stream holds, per sequence, its current length:
  // isl + osl / 2 on average (ages uniform over the output; whole blocks each). A synchronized batch
  // grows together to isl + osl, so it is sized on the full length under either admission.
  mi = serving_memory_input(m, hw, par, w);
  mi.context_tokens = kv_held_tokens(w);
  // The figures at no load (of them, only the stages' are read here: weights, a sequence's KV,
  // workspace, reserve, the KV split, which do not depend on the capacity; so no violation is made).
  memory = memories ? memories->get(m, mi) : std::make_shared<const InferenceMemoryAtLoads>(m, mi);
  base = memory->figures_at(0);
  const Shape& s = shape = shape_of(m, par, w.kv_bytes_per_element);
  const step::Stage& st = stage.emplace(m, hw, par, w, s);
  if (with_draft) draft.emplace(st, step::draft_shape(m, s));
  double& weights = weights_bytes = base.weights_bytes;
  double& kv_seq_gpu = kv_bytes_per_sequence = base.kv_bytes_per_sequence;  // per sequence of the instance, per GPU
  if (par.attention_dp) {
    // The memory model splits the attention (and dense layers) by mi.tp; each attention rank holds
    // the attention's whole weights, and, where the engine replicates them, the dense MLPs', the
    // shared experts' and the output head's.
    const double unsplit = 1.0 - 1.0 / mi.tp;
    const double wb = weight_bytes(w.weight_precision);
    weights += wb * s.dense.attention * unsplit * s.layers;
    if (w.attention_dp_dense_replicated) {
      weights += wb * unsplit *
                 (s.dense_layers * (s.dense.mlp_dense + s.dense.moe_shared) +
                  s.moe_layers * (s.moe.mlp_dense + s.moe.moe_shared));
      if (s.has_head) weights += kTableBytes * unsplit * double(m.vocab) * m.hidden;
    }
    // A sequence's KV and recurrent state live on its one attention rank: per GPU, on average 1/tp.
    kv_seq_gpu = (base.kv_bytes_per_sequence - base.state_bytes_per_sequence) * base.kv_split / par.tp +
                 base.state_bytes_per_sequence * std::min(par.tp, std::max(1, m.linear.value_heads)) / par.tp;
  }
  free_bytes = hw.accelerator.memory_bytes - weights - base.activations_bytes - base.reserve_bytes;
  // The engine's rule (inference/kv_pool.h); the pool cannot take more than what is free beside the
  // weights, workspace and reserve.
  const double capacity = hw.accelerator.memory_bytes;
  const double static_share =
      w.mem_fraction_static > 0    ? w.mem_fraction_static
      : w.kv_pool == KvPoolRule::sglang ? sglang_default_mem_fraction(capacity, par.tp, par.pp, par.attention_dp,
                                                                      w.mtp_draft_tokens > 0)
                                   : 0.0;
  const double pool = static_share > 0 ? std::min(free_bytes, static_share * capacity - weights)
                      : w.kv_pool == KvPoolRule::whole_share
                          ? std::min(free_bytes, w.kv_mem_fraction * capacity - weights - base.activations_bytes)
                          : w.kv_mem_fraction * free_bytes;
  max_batch = kv_seq_gpu > 0 ? static_cast<long long>(std::floor(pool / kv_seq_gpu)) : 0;
  if (par.attention_dp) max_batch = max_batch / par.tp * par.tp;
  // The scheduler admits at most max_batch_size sequences and max_num_tokens tokens per step per
  // rank (attention-DP: per attention rank).
  ranks = par.attention_dp ? par.tp : 1;
  max_batch = std::min({max_batch, w.max_batch_size * ranks, w.max_num_tokens * ranks});
  // The step's token budget (InferenceEvaluator's constructor) keeps at least `ranks` >= 1 sequences:
  // room for one sequence here is room for one there.
  if (free_bytes <= 0 || max_batch < 1) {
    no_room_violations.push_back(
        {"memory.exceeds_capacity", "gpu",
         static_share > 0 && free_bytes > 0
             ? fmt::format("{} {:g} of {:.1f} GB per GPU ({:.1f} GB) leaves no room beyond the weights' {:.1f} GB "
                           "for the KV cache of one {}-token sequence",
                           w.mem_fraction_static > 0 ? "--mem-fraction-static" : "SGLang's default mem_fraction_static",
                           static_share, capacity / 1e9, static_share * capacity / 1e9, weights_bytes / 1e9,
                           w.isl + w.osl)
             : fmt::format("weights {:.1f} GB + workspace leave no room for the KV cache of one "
                           "{}-token sequence in {:.1f} GB per GPU",
                           weights_bytes / 1e9, w.isl + w.osl, hw.accelerator.memory_bytes / 1e9)});
    no_room_memory = memory->at(mi.concurrency);
    return;
  }
  const double pp = par.pp;
  const double isl = double(w.isl);
  const double isl_new = prompt_compute_tokens(w);  // of them, computed (the rest: prefix-cache hits)
  const double host = hw.efficiency.infer_step_overhead_s;
  // Prefill of one request alone, in chunks of max_num_tokens (on one attention-DP rank); a decode
  // pool's is its prefill pool's (evaluate_disaggregated), not computed here.
  // Without attention-DP (or on one rank) a prompt's chunk spreads over the ranks as one rank's does:
  // that step is also continuous batching's chunk (below).
  std::optional<StepTime> alone_chunk;
  {
    if (!w.decode_only) {
      const double chunk = std::min(isl_new, double(w.max_num_tokens));
      const double nch = std::ceil(isl_new / chunk);
      const StepTime c = st.step(base.kv_split, 0, 0, chunk, isl, 1.0, true, 1.0);
      prefill_s = (nch + pp - 1) * c.total_s + nch * host;
      if (!par.attention_dp || par.tp == 1) alone_chunk = c;
    }
    if (w.kv_offload_host && isl_new < isl) {
      // The hits' KV comes back from host memory over each GPU's host link, layer by layer beside the
      // new tokens' prefill: the longer of the two.
      prefix_load_s = (isl - isl_new) * kv_seq_gpu / double(mi.context_tokens) / hw.accelerator.host_link_bytes_per_s;
      prefill_s = std::max(prefill_s, prefix_load_s + host);
    }
  }
  if (w.arrival != Arrival::synchronized && !w.decode_only)
    prefill_chunk =
        alone_chunk ? *alone_chunk : st.step(base.kv_split, 0, 0, std::min(isl_new, double(w.max_num_tokens)), isl);
}

// The instances kept, by parallelism, with the model, hardware and workload (but for its GPU count,
// load and MTP drafts) they were made for.
struct InferenceInstances::Impl {
  bool drafts = false;
  struct Entry {
    const ModelArch* m;
    const Hardware* hw;
    InferenceWorkload w;
    std::shared_ptr<const InferenceEvaluator::Instance> instance;
  };
  std::map<std::array<int, 5>, std::vector<Entry>> kept;
  MemoryAtLoadsKept memories;  // the instances' memory figures

  static InferenceWorkload common(InferenceWorkload w) {
    w.num_gpus = 0;
    w.concurrency = 0;
    w.mtp_draft_tokens = 0;
    return w;
  }

  std::shared_ptr<const InferenceEvaluator::Instance> get(const ModelArch& m, const Hardware& hw,
                                                          const InferenceParallel& par, const InferenceWorkload& w) {
    const bool need_draft = w.mtp_draft_tokens > 0;
    const InferenceWorkload c = common(w);
    std::vector<Entry>& at = kept[{par.tp, par.ep, par.pp, par.attention_dp ? 1 : 0, par.two_batch_overlap ? 1 : 0}];
    for (Entry& e : at) {
      if (e.m != &m || e.hw != &hw || !(e.w == c)) continue;
      if (need_draft && !e.instance->draft)
        e.instance = std::make_shared<const InferenceEvaluator::Instance>(m, hw, par, w, true, &memories);
      return e.instance;
    }
    auto made = std::make_shared<const InferenceEvaluator::Instance>(m, hw, par, w, drafts || need_draft, &memories);
    at.push_back({&m, &hw, c, made});
    return made;
  }
};

InferenceInstances::InferenceInstances(bool drafts) : impl_(std::make_unique<Impl>()) { impl_->drafts = drafts; }
InferenceInstances::~InferenceInstances() = default;

// What an InferenceEvaluator keeps of its deployment: its inputs, its instance's parts, and the figures
// that do not depend on the load.
struct InferenceEvaluator::Fixed {
  Fixed(const ModelArch& model, const Hardware& serving_hw, const InferenceParallel& parallel,
        const InferenceWorkload& workload)
      : m(model), hw(serving_hw), par(parallel), w(workload) {}
  const ModelArch& m;
  const Hardware& hw;
  const InferenceParallel par;
  const InferenceWorkload w;
  int gpus = 0;
  std::shared_ptr<const Instance> instance;
  // The result's load-independent fields: instances, max_concurrency, prefill_s, prefix_load_s; with
  // no room for one sequence, the whole result.
  InferenceResult fixed;
  bool no_room = false;
};

InferenceEvaluator::~InferenceEvaluator() = default;
InferenceEvaluator::InferenceEvaluator(InferenceEvaluator&&) noexcept = default;

InferenceEvaluator::InferenceEvaluator(const ModelArch& m, const Hardware& hw, const InferenceParallel& par,
                                       const InferenceWorkload& w)
    : InferenceEvaluator(m, hw, par, w, nullptr) {}

InferenceEvaluator::InferenceEvaluator(const ModelArch& m, const Hardware& hw, const InferenceParallel& par,
                                       const InferenceWorkload& w, InferenceInstances* instances)
    : fixed_(std::make_unique<Fixed>(m, hw, par, w)) {
  Fixed& f = *fixed_;
  const int gpus = f.gpus = w.num_gpus > 0 ? w.num_gpus : par.tp * par.pp;
  check_input(m, par, w, gpus);
  if (w.kv_offload_host && !(hw.accelerator.host_link_bytes_per_s > 0))
    throw InputError("--kv-offload", fmt::format("host: the catalog gives {} no host link to copy the KV back over",
                                                 hw.accelerator.name));
  InferenceResult& r = f.fixed;
  r.gpus_per_instance = par.tp * par.pp;
  r.instances = gpus / r.gpus_per_instance;

  f.instance = instances ? instances->impl_->get(m, hw, par, w)
                         : std::make_shared<const Instance>(m, hw, par, w, w.mtp_draft_tokens > 0);
  const Instance& in = *f.instance;
  const long long ranks = in.ranks;
  long long max_batch = in.max_batch;
  // In continuous batching every step carries its decodes (k + 1 tokens each with MTP) and the
  // prompts of the requests that replace the finished ones (isl x accepted / osl tokens per
  // sequence), all within the max_num_tokens budget: a larger batch cannot be sustained, and the
  // requests beyond it wait for admission (TTFT grows, TPOT does not), as the KV-full ones do.
  // Engines that prefill in forwards of their own (prefill_separate: SGLang, ATOM) spend the budget
  // on those forwards, not on the decodes' step: their running batch is bounded by the KV cache and
  // the request limit only (SGLang's max-running-requests), and the prompts' forwards slow its steps.
  {
    const double acc = mtp_accepted_length(w.mtp_draft_tokens, w.mtp_accept > 0 ? w.mtp_accept : mtp_accept_default());
    const double per_seq = 1.0 + w.mtp_draft_tokens + (w.decode_only ? 0.0 : prompt_compute_tokens(w) * acc / double(w.osl));
    if (w.arrival != Arrival::synchronized && !w.prefill_separate) {
      long long budget_batch =
          static_cast<long long>(std::floor(double(w.max_num_tokens) * double(ranks) / per_seq));
      if (par.attention_dp) budget_batch = budget_batch / par.tp * par.tp;
      max_batch = std::min(max_batch, std::max(budget_batch, ranks));
    }
  }
  r.max_concurrency = std::max(0LL, max_batch) * r.instances;
  if (in.free_bytes <= 0 || max_batch < 1) {  // the instance's no room (see Instance)
    r.violations = in.no_room_violations;
    r.memory = in.no_room_memory;
    f.no_room = true;
    return;
  }
  r.prefill_s = in.prefill_s;
  r.prefix_load_s = in.prefix_load_s;
}

StepTime InferenceEvaluator::decode_step_of(StepTime st, double B) const {
  const Fixed& f = *fixed_;
  const InferenceWorkload& w = f.w;
  const InferenceParallel& par = f.par;
  const int k = w.mtp_draft_tokens;
  const double pp = par.pp;
  const double isl = double(w.isl), osl = double(w.osl);
  const double host = f.hw.efficiency.infer_step_overhead_s;
  if (k > 0) st.draft_s = draft_step(*f.instance->draft, f.instance->base.kv_split, B / pp, isl + osl / 2, k).draft_s;
  st.total_s = st.parts_sum();
  StepTime d = scaled(st, pp);
  d.overhead_s += host + kStepHostPerSeqS * B;
  d.total_s = d.parts_sum();
  expose_host_work(d, w.host_per_seq_step_s * rank_sequences(par, B));
  if (k > 0 && w.mtp_host_in_series) {
    d.overhead_s +=
        mtp_exposed_host_s(w.mtp_host_step_s + (w.mtp_draft_extend_eager ? w.mtp_eager_draft_extend_s : 0.0),
                           w.mtp_host_per_seq_step_s, rank_sequences(par, B));
    d.total_s = d.parts_sum();
  }
  return d;
}

bool InferenceEvaluator::decode_only_ready() const {
  const Fixed& f = *fixed_;
  return !f.no_room && f.w.decode_only && f.w.arrival != Arrival::synchronized;
}

InferenceEvaluator::DecodeLoad InferenceEvaluator::decode_load(long long concurrency) const {
  const Fixed& f = *fixed_;
  if (concurrency < 0) throw InputError("--concurrency", fmt::format("must be >= 0, got {}", concurrency));
  DecodeLoad l;
  l.concurrency = std::min(concurrency > 0 ? concurrency : f.fixed.max_concurrency, f.fixed.max_concurrency);
  l.batch = std::max(1.0, double(l.concurrency) / f.fixed.instances);
  return l;
}

StepTime InferenceEvaluator::decode_only_step(double B) const {
  const Fixed& f = *fixed_;
  const InferenceWorkload& w = f.w;
  // evaluate()'s decode-only staggered step, in its order of operations.
  const double pp = f.par.pp;
  const double isl = double(w.isl), osl = double(w.osl);
  const double verify = 1.0 + w.mtp_draft_tokens;
  const double ptok = 0.0;  // a decode-only step carries no prompts
  const Instance& in = *f.instance;
  return decode_step_of(in.stage->step(in.base.kv_split, B / pp, isl + osl / 2, ptok / pp, isl, verify), B);
}

double InferenceEvaluator::tokens_per_step() const {
  const InferenceWorkload& w = fixed_->w;
  return mtp_accepted_length(w.mtp_draft_tokens, w.mtp_accept > 0 ? w.mtp_accept : mtp_accept_default());
}

InferenceResult InferenceEvaluator::evaluate(long long concurrency) const { return evaluate_with(concurrency, nullptr); }

InferenceResult InferenceEvaluator::evaluate(long long concurrency, const StepTime& decode_step) const {
  return evaluate_with(concurrency, decode_only_ready() ? &decode_step : nullptr);
}

InferenceResult InferenceEvaluator::evaluate_with(long long concurrency, const StepTime* decode_step) const {
  const Fixed& f = *fixed_;
  if (concurrency < 0) throw InputError("--concurrency", fmt::format("must be >= 0, got {}", concurrency));
  InferenceResult r = f.fixed;
  if (f.no_room) return r;
  const ModelArch& m = f.m;
  const Hardware& hw = f.hw;
  const InferenceParallel& par = f.par;
  const InferenceWorkload& w = f.w;
  const int gpus = f.gpus;
  const Instance& in = *f.instance;
  const InferenceMemory& base = in.base;
  const step::Stage& stage = *in.stage;
  const double weights = in.weights_bytes;
  const double kv_seq_gpu = in.kv_bytes_per_sequence;
  double steady_ttft_s = -1;  // an aggregated closed loop's steady-state TTFT, before its opening wave
  long long conc = concurrency > 0 ? concurrency : r.max_concurrency;
  if (conc > r.max_concurrency) {
    r.violations.push_back({"memory.kv_full", "concurrency",
                            fmt::format("concurrency {} exceeds the {} sequences whose KV cache fits", conc,
                                        r.max_concurrency)});
    conc = r.max_concurrency;
  }
  r.concurrency = conc;
  const double B = std::max(1.0, double(conc) / r.instances);
  r.batch_per_instance = static_cast<long long>(std::ceil(B));
  // Attention-DP: the instance's figures split per GPU below (the same split the capacity above was
  // computed with) and their fit judged on the split totals.
  r.memory = par.attention_dp ? in.memory->figures_at(r.batch_per_instance) : in.memory->at(r.batch_per_instance);
  if (par.attention_dp) {
    r.memory.weights_bytes = weights;
    r.memory.kv_cache_bytes = r.memory.kv_cache_bytes * base.kv_split / par.tp;
    r.memory.kv_bytes_per_sequence = kv_seq_gpu;
    r.memory.total_bytes = r.memory.weights_bytes + r.memory.kv_cache_bytes + r.memory.activations_bytes +
                           r.memory.reserve_bytes;
    r.memory.headroom_bytes = r.memory.capacity_bytes - r.memory.total_bytes;
    r.memory.fits = r.memory.total_bytes <= r.memory.capacity_bytes;
  }
  r.expected_active_experts = expected_active_experts(m.moe.num_experts, m.moe.top_k, B);

  const double pp = par.pp;
  const double isl = double(w.isl), osl = double(w.osl);
  const double isl_new = prompt_compute_tokens(w);  // of them, computed (the rest: prefix-cache hits)
  // MTP: each decode step verifies k + 1 tokens per sequence and yields `accepted` of them.
  const int k = w.mtp_draft_tokens;
  const double verify = 1.0 + k;
  const double accepted = mtp_accepted_length(k, w.mtp_accept > 0 ? w.mtp_accept : mtp_accept_default());
  r.tokens_per_step = accepted;
  const double host = hw.efficiency.infer_step_overhead_s;
  // The decode step of one instance from one stage's step: the MTP draft, the pipeline, the
  // framework's host time per step and per sequence, and the MTP worker's host work where it runs in
  // series with the GPU.
  auto set_decode_step = [&](StepTime st) { r.decode_step = decode_step_of(st, B); };
  if (w.arrival == Arrival::synchronized) {
    // Waves: all B prompts prefill together (chunked), then B sequences decode together.
    const double ptok = B * isl_new;
    const double chunk = std::min(ptok, double(w.max_num_tokens));
    const double nch = std::ceil(ptok / chunk);
    r.prefill_chunk = stage.step(base.kv_split, 0, 0, chunk, isl);
    const double chunk_s = r.prefill_chunk.total_s + host;
    const double wave_prefill_s = (nch + pp - 1) * chunk_s;
    set_decode_step(stage.step(base.kv_split, B / pp, isl + osl / 2, 0, 0, verify));
    // Requests get their first token as their chunk completes: mean over the wave.
    r.ttft_s = (pp - 1) * chunk_s + chunk_s * (nch + 1) / 2;
    const double rest = std::max(0.0, wave_prefill_s - r.ttft_s);
    r.tpot_s = r.decode_step.total_s / accepted + (osl > 1 ? rest / (osl - 1) : 0);
    const double cycle = wave_prefill_s + std::max(0.0, osl - 1) * r.decode_step.total_s / accepted;
    r.tokens_per_s_total = r.instances * B * osl / cycle;
  } else {
    // Continuous batching, steady state: each step decodes B tokens and prefills the prompts of the
    // B/osl requests that replace the finishing ones (B isl/osl tokens), in one mixed forward.
    // A disaggregated decode worker's steps carry no prompts. With MTP each step yields `accepted`
    // tokens per sequence, so requests finish (and prompts arrive) that much faster per step.
    // Engines prefill a prompt in chunks of the token budget (the whole prompt when shorter), not a
    // few tokens in every step: when the prompts arriving per step are fewer than one chunk, a share
    // ptok / chunk of the steps carry a chunk beside their decodes and the rest decode alone. For a
    // dense model that differs from spreading them only in GEMM tiles; for an MoE a chunk activates
    // (nearly) every expert in one step, where spread prompt tokens would activate more of them in
    // every step.
    const double ptok = w.decode_only ? 0.0 : B * isl_new * accepted / osl;
    const double chunk_tok = std::min(isl_new, double(w.max_num_tokens));
    StepTime st;
    double received_prefill_s = 0.0;  // prefill_separate: a prompt's share of its received batch's forwards
    if (decode_step) {
      // Given (decode_only_step at this batch): the step the last branch below makes.
    } else if (ptok > 0 && w.prefill_separate) {
      // Prompts in forwards of their own: the prompts that arrived over the receive interval (at least
      // one chunk of one prompt, at most the token budget) run as one prefill forward, which the
      // decodes wait for; per decode step, ptok / forward_tokens of those forwards.
      const double budget = double(w.max_num_tokens) * (par.attention_dp ? par.tp : 1);
      const double fwd_tok = std::min(budget, std::max(chunk_tok, ptok * w.scheduler_recv_interval));
      const StepTime dec = stage.step(base.kv_split, B / pp, isl + osl / 2, 0, isl, verify);
      StepTime pre = stage.step(base.kv_split, 0, 0, fwd_tok / pp, isl);
      pre.overhead_s += host / pp;
      pre.total_s = pre.parts_sum();
      st = added(dec, pre, ptok / fwd_tok);
      // The prompts received together (one receive interval's) prefill as forwards of fwd_tok tokens,
      // first come first: a prompt's first token comes with its last chunk, on average after
      // (n + 1) / 2 of the n prompts' tokens (one prompt alone: its own prefill, as before).
      const double n = std::max(1.0, ptok * double(w.scheduler_recv_interval) / isl_new);
      received_prefill_s = pp * pre.total_s * (n * isl_new / fwd_tok) * (n + 1.0) / (2.0 * n);
    } else if (ptok > 0 && ptok < chunk_tok) {
      const StepTime dec = stage.step(base.kv_split, B / pp, isl + osl / 2, 0, isl, verify);
      const StepTime mixed = stage.step(base.kv_split, B / pp, isl + osl / 2, chunk_tok / pp, isl, verify);
      st = blend(dec, mixed, ptok / chunk_tok);
    } else {
      st = stage.step(base.kv_split, B / pp, isl + osl / 2, ptok / pp, isl, verify);
    }
    if (decode_step)
      r.decode_step = *decode_step;
    else
      set_decode_step(st);
    if (!w.decode_only)
      r.prefill_chunk = in.prefill_chunk;
    r.tpot_s = r.decode_step.total_s / accepted;
    // A new prompt waits for the running step to end (half a step on average; with a receive
    // interval of N decode steps, N/2 of them), then rides in the next step(s), whose decodes it
    // shares, chunked within the token budget the decodes leave. One that fits the budget: its own
    // prefill plus one decode step. One longer than the budget: its chunks take whole steps of the
    // budget (each step its chunk beside the decodes), after the chunks of the prompts ahead of it:
    // the budget is a server of prompt tokens at ptok / budget load, a prompt's service isl / budget
    // steps, first come first served (M/D/1, Pollaczek-Khinchine: wait = load x service / (2 (1 -
    // load)) steps). Its compute is inside those steps, not added again.
    const double budget = std::max(1.0, double(w.max_num_tokens) * (par.attention_dp ? par.tp : 1) - B);
    const double steps = std::ceil(isl_new / budget);
    const double recv_wait_steps = 0.5 * double(w.scheduler_recv_interval);
    if (B > 1 && steps >= 2 && !w.prefill_separate && !w.decode_only) {
      const double load = std::min(kPromptBudgetLoadMax, ptok / budget);
      const double wait_steps = load * (isl_new / budget) / (2.0 * (1.0 - load));
      const double chunk_step_s = std::max(
          r.decode_step.total_s,
          decode_step_of(stage.step(base.kv_split, B / pp, isl + osl / 2, isl_new / steps / pp, isl, verify), B).total_s);
      r.prompt_queue_s = wait_steps * chunk_step_s;
      r.ttft_s = recv_wait_steps * r.decode_step.total_s + r.prompt_queue_s + steps * chunk_step_s;
    } else {
      r.ttft_s = B > 1 ? std::max(r.prefill_s, received_prefill_s) + (recv_wait_steps + steps) * r.decode_step.total_s
                       : r.prefill_s;
    }
    // Of that wait, what the receive interval adds to the half step any prompt waits for.
    r.receive_wait_s = B > 1 ? receive_interval_wait_s(w.scheduler_recv_interval, r.decode_step.total_s) : 0.0;
    if (!par.attention_dp && !w.prefill_separate && B > 1 && w.batch_wait_iters > 0 &&
        w.batch_wait_tokens_ratio > 0 && !w.decode_only) {
      const TrtllmBatchWait bw = trtllm_batch_wait(B, accepted / osl, isl_new, 1.0 + w.mtp_draft_tokens,
                                                   w.batch_wait_iters, w.batch_wait_tokens_ratio * double(w.max_num_tokens));
      if (bw.window_steps > 0) {
        // The released prompts ride one step together (within the token budget the decodes leave):
        // that step carries their tokens where it carried one prompt's.
        const StepTime one = stage.step(base.kv_split, 0, 0, chunk_tok / pp, isl);
        const StepTime all =
            stage.step(base.kv_split, 0, 0, std::min(budget, bw.released * isl_new) / pp, isl);
        r.batch_wait_s = bw.mean_wait_steps * r.decode_step.total_s + pp * std::max(0.0, all.total_s - one.total_s);
        r.ttft_s += r.batch_wait_s;
      }
    }
    if (par.attention_dp && par.tp > 1 && w.adp_balance_timeout_iters > 0 && B > 1 && !w.decode_only) {
      r.ttft_s += adp_balance_wait_steps(B, par.tp, accepted / osl, w.adp_balance_timeout_iters) *
                  r.decode_step.total_s;
      // The released requests prefill together, one per rank a round (the balancer's purpose): each
      // rank's attention is its own prompt's, but the expert GEMMs and the dispatch/combine of a
      // round carry its k = min(released, ranks) prompts' tokens; a request waits on average for
      // (rounds + 1) / 2 of the rounds its release needs (one prompt alone: its own prefill).
      const double released =
          adp_balance_released_prompts(B, par.tp, accepted / osl, w.adp_balance_timeout_iters);
      if (released > 1.0) {
        const double together = std::min(released, double(par.tp));
        const double rounds = released / double(par.tp);
        const StepTime one = stage.step(base.kv_split, 0, 0, chunk_tok / pp, isl);
        const StepTime all = stage.step(base.kv_split, 0, 0, together * chunk_tok / pp, isl);
        const double shared_s = std::max(0.0, (all.gemm_s + all.ep_comm_s) - (one.gemm_s + one.ep_comm_s));
        const double round_s = r.prefill_s + pp * shared_s * std::ceil(isl_new / chunk_tok);
        r.ttft_s += round_s * std::max(1.0, (rounds + 1.0) / 2.0) - r.prefill_s;
      }
    }
    steady_ttft_s = r.ttft_s;
    if (w.arrival == Arrival::closed_loop && B > 1 && w.requests_per_client > 0) {
      // The run opens with all B clients sending at once: that first round prefills as one wave in
      // chunks of the token budget, each request getting its first token as its chunk completes
      // (the synchronized mean); the clients then drift apart into the staggered steady state
      // above. The measured mean weighs the wave by 1 / requests_per_client.
      const double wave_tok = B * isl_new;
      const double chunk = std::min(wave_tok, double(w.max_num_tokens) * (par.attention_dp ? par.tp : 1));
      const double nch = std::ceil(wave_tok / chunk);
      const StepTime c = stage.step(base.kv_split, 0, 0, chunk, isl);
      const double chunk_s = c.total_s + host;
      const double wave_ttft = (pp - 1) * chunk_s + chunk_s * (nch + 1) / 2;
      const double R = w.requests_per_client;
      r.ttft_s = (wave_ttft + (R - 1) * r.ttft_s) / R;
    }
    r.tokens_per_s_total = r.instances * B / r.tpot_s;
  }
  r.ttft_s += w.request_overhead_s;
  r.e2e_latency_s = r.ttft_s + std::max(0.0, osl - 1) * r.tpot_s;
  // More requests in flight than the KV cache holds: the rest queue for a slot. Little's law:
  // requests leave at concurrency / e2e, so each spends requested / served times as long in the
  // system; the difference is waited before the first token.
  const double queue_factor =
      concurrency > r.concurrency && r.concurrency > 0 ? double(concurrency) / double(r.concurrency) - 1.0 : 0.0;
  if (queue_factor > 0) {
    r.queue_wait_s = r.e2e_latency_s * queue_factor;
    r.ttft_s += r.queue_wait_s;
    r.e2e_latency_s += r.queue_wait_s;
  }
  if (w.arrival == Arrival::closed_loop && w.requests_per_client > 0 && steady_ttft_s >= 0) {
    // The median request of a closed-loop run is a steady-state one: the opening wave (every
    // client's first prompt at once) is 1 in requests_per_client requests, in the mean above only.
    const double ttft = steady_ttft_s + w.request_overhead_s;
    r.ttft_median_s = ttft + (ttft + std::max(0.0, osl - 1) * r.tpot_s) * queue_factor;
  }
  if (w.arrival == Arrival::closed_loop && !w.decode_only) {
    // Closed loop: each client's request cycle is its whole end-to-end latency, first token
    // included, so the deployment completes clients / e2e requests per second (Little's law); the
    // decode steps above hold fewer than all clients at a time.
    r.tokens_per_s_total = std::min(r.tokens_per_s_total, double(r.concurrency) * osl / r.e2e_latency_s);
  }
  r.tokens_per_s_per_gpu = r.tokens_per_s_total / gpus;
  r.tokens_per_s_per_user = 1.0 / r.tpot_s;
  r.requests_per_s = r.tokens_per_s_total / osl;
  return r;
}

InferenceResult evaluate_inference_serving(const ModelArch& m, const Hardware& hw, const InferenceParallel& par,
                                           const InferenceWorkload& w) {
  return InferenceEvaluator(m, hw, par, w).evaluate(w.concurrency);
}

StepTime prefill_step(const ModelArch& m, const Hardware& hw, const InferenceParallel& par,
                      const InferenceWorkload& w, double prompt_tokens) {
  return prefill_step_serving(m, serving_hardware(hw), par, w, prompt_tokens);
}

StepTime prefill_step_serving(const ModelArch& m, const Hardware& hw, const InferenceParallel& par,
                              const InferenceWorkload& w, double prompt_tokens) {
  check_input(m, par, w, w.num_gpus > 0 ? w.num_gpus : par.tp * par.pp);
  InferenceMemoryInput mi = serving_memory_input(m, hw, par, w);
  mi.capacity_bytes = 0;  // only the KV split is read: no capacity check
  const InferenceMemory base = inference_memory(m, mi);
  const Shape s = shape_of(m, par, w.kv_bytes_per_element);
  StepTime st = stage_step(m, hw, par, w, s, base.kv_split, 0, 0, prompt_tokens, double(w.isl));
  st.overhead_s += hw.efficiency.infer_step_overhead_s;
  st.total_s = st.parts_sum();
  return st;
}

InferenceResult evaluate_under_limits(const ModelArch& m, const Hardware& hw, const InferenceParallel& par,
                                      InferenceWorkload w, double ttft_limit_s, double tpot_limit_s) {
  w.concurrency = 0;
  InferenceResult top = evaluate_inference(m, hw, par, w);
  if (!top.valid()) return top;
  auto ok = [&](const InferenceResult& r) {
    return (ttft_limit_s <= 0 || r.ttft_s <= ttft_limit_s) && (tpot_limit_s <= 0 || r.tpot_s <= tpot_limit_s);
  };
  if (ok(top)) return top;
  long long lo = top.instances, hi = top.max_concurrency;
  w.concurrency = lo;
  InferenceResult best = evaluate_inference(m, hw, par, w);
  if (!ok(best)) {
    best.violations.push_back({"latency.limit", "concurrency",
                               fmt::format("even one sequence per instance misses the limits (TTFT {:.1f} ms, "
                                           "TPOT {:.2f} ms)",
                                           best.ttft_s * 1e3, best.tpot_s * 1e3)});
    return best;
  }
  while (hi - lo > 1) {
    const long long mid = lo + (hi - lo) / 2;
    w.concurrency = mid;
    InferenceResult r = evaluate_inference(m, hw, par, w);
    if (ok(r)) {
      lo = mid;
      best = std::move(r);
    } else {
      hi = mid;
    }
  }
  return best;
}

}  // namespace gpuplan
