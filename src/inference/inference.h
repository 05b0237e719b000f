#pragma once
// The inference performance model: prefill, decode steps and continuous batching of one serving
// deployment, as a pure function of (model, hardware, parallelism, workload). See
// docs/inference-model.md for the formulas and their sources.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/precision.h"
#include "inference/kv_pool.h"
#include "memory/inference_memory.h"
#include "memory/violation.h"
#include "model/model.h"
#include "physics/hardware.h"

namespace gpuplan {

// How one model instance is split over GPUs. An instance spans tp x pp GPUs; the deployment runs
// num_gpus / (tp x pp) instances side by side (data parallel).
struct InferenceParallel {
  int tp = 1;                 // tensor parallel (attention heads, dense MLPs; MoE experts split tp/ep ways)
  int ep = 1;                 // expert parallel inside the tp group (TRT-LLM moe_ep; moe_tp = tp/ep)
  int pp = 1;                 // pipeline stages (decode batch split into pp micro-batches)
  bool attention_dp = false;  // attention data-parallel over the tp ranks (each rank its own sequences)
  // Two micro-batches per step whose EP dispatch/combine overlaps the other's compute (SGLang
  // --enable-two-batch-overlap, TensorRT-LLM wide-EP): the step is the faster of with and without it
  // (with it, each micro-batch streams the weights again).
  bool two_batch_overlap = false;
};

// How requests arrive. Staggered: steady-state continuous batching, every step mixes decodes with
// chunks of new prompts (servers under load, offline runs). Synchronized: a closed loop of
// `concurrency` clients sending fixed-length requests together, so prompts arrive in waves (the
// benchmark_serving / genai-perf sweeps behind AIConfigurator's measurements).
// Closed loop: `concurrency` clients each sending its next request when the last one ends. The run
// opens with every client sending at once (the first of requests_per_client rounds prefills as one
// wave); the clients then drift apart into the staggered steady state.
enum class Arrival { staggered, synchronized, closed_loop };
const char* to_string(Arrival a);

// How the engine's scheduler admits a sequence against the paged KV pool. reserve_full: it reserves
// the sequence's whole isl + osl on admission (TensorRT-LLM's default GUARANTEED_NO_EVICT capacity
// scheduler). current_length: it admits while the pool holds the running sequences' current lengths
// and preempts when the pool fills (vLLM's and SGLang's schedulers, TensorRT-LLM's MAX_UTILIZATION).
enum class KvAdmission { reserve_full, current_length };
const char* to_string(KvAdmission a);
// "reserve_full" / "current_length"; nullopt for anything else.
std::optional<KvAdmission> parse_kv_admission(const std::string& s);

// How an engine moves the attention ranks' tokens to the routed experts under attention-DP.
// all_to_all: each rank sends its tokens' top-k copies to the ranks holding those experts and gets
// the results back (DeepEP, MoRI, TensorRT-LLM's MNNVL all-to-all). all_gather: every rank's tokens are
// gathered to every rank before the experts and the outputs reduce-scattered after (vLLM's default
// allgather_reducescatter backend). all_gather_unless_mnnvl: all_gather, but all_to_all where the
// NVLink domain spans hosts (Fabric::multi_node_nvlink) and the EP exceeds the top-k (TensorRT-LLM's
// select_alltoall_method_type without DeepEP).
enum class MoeExchange { all_to_all, all_gather, all_gather_unless_mnnvl };
// "all_to_all" / "all_gather" / "all_gather_unless_mnnvl"; nullopt for anything else.
std::optional<MoeExchange> parse_moe_exchange(const std::string& s);

struct InferenceWorkload {
  Precision weight_precision = Precision::fp8;  // GEMM format and weight bytes
  double kv_bytes_per_element = 1.0;            // bf16 2, fp8 1
  int num_gpus = 0;                             // 0: one instance (tp x pp)
  long long isl = 1024;                         // input tokens per request
  long long osl = 1024;                         // output tokens per request
  long long concurrency = 0;                    // sequences in flight, whole deployment; 0: as many as fit
  long long max_num_tokens = 8192;              // tokens per forward step (prefill chunk budget)
  long long max_batch_size = 2048;              // sequences per instance the scheduler admits
  int kv_block_tokens = 32;                     // paged KV block (TensorRT-LLM tokens_per_block)
  double kv_mem_fraction = 0.9;                 // share of free memory the KV pool may take
  // How the engine sizes the KV pool (inference/kv_pool.h): free_share, kv_mem_fraction of the memory
  // the weights, workspace and reserve leave (TensorRT-LLM); whole_share, kv_mem_fraction of the whole
  // memory less the weights and workspace (vLLM's gpu_memory_utilization); sglang, mem_fraction_static
  // of the whole memory less the weights, SGLang's default fraction where none is stated. Every rule's
  // pool is at most the memory free beside the weights, workspace and reserve.
  KvPoolRule kv_pool = KvPoolRule::free_share;
  // The engine's KV pool charges a sliding window's layers the whole context (TensorRT-LLM: its KV cache
  // manager counts the pool's blocks as if every layer attended the whole sequence, calculateMaxNumBlocks),
  // so a windowed model holds the sequences a windowless one would; false: the window's layers keep at most
  // the window (vLLM's hybrid KV cache manager). The attention still reads only the window.
  bool window_kv_whole = false;
  // SGLang's --mem-fraction-static: the share of each GPU's memory that the weights and the KV pool
  // take together (the rest is the engine's activations and CUDA graphs), so the pool is this share of
  // the capacity less the weights, whatever kv_pool says. 0: not stated (the kv_pool rule's).
  double mem_fraction_static = 0.0;
  Arrival arrival = Arrival::staggered;
  // Closed loop: requests each client sends in the measured run (benchmark_serving --num-prompts /
  // --max-concurrency). The run starts with every client sending at once, so the first of these
  // rounds prefills as one wave; 0 = steady state only.
  int requests_per_client = 0;
  // Closed loop: the clients' lengths vary uniformly over [length_low_fraction, 1] x the longest
  // (isl and osl above are the means; InferenceX's client 0.8); 1 = every request the same. Used where
  // the run is replayed request by request (src/inference/closed_loop_replay.h).
  double length_low_fraction = 1.0;
  // Closed loop (requests_per_client > 0), disaggregated: also the median request's TTFT
  // (InferenceResult::ttft_median_s), replaying the run where the clients exceed the decode slots,
  // which costs O(clients x requests_per_client x log clients); off, only the steady state's.
  bool ttft_median = false;
  // Multi-token prediction / speculative decoding: draft tokens proposed per decode step (0 = off)
  // and the conditional acceptance of each draft given the previous one was accepted, so a step
  // yields mtp_accepted_length() tokens per sequence (src/inference/speculative.h).
  int mtp_draft_tokens = 0;
  double mtp_accept = 0.0;  // 0: mtp_accept_default() (the built-in catalog's default engine), for callers without a
                            // catalog; the API fills its session catalog's (src/api/serving_engine.h)
  // The speculative worker's host work per MTP decode step: mtp_host_step_s plus mtp_host_per_seq_step_s
  // per sequence of the rank's batch (from the serving engine). Where the worker runs it in series with
  // the GPU (mtp_host_in_series: SGLang's EAGLE worker without its overlap scheduler, or with a draft
  // extend that cannot run as a CUDA graph) each step waits for it; otherwise the engine overlaps it with
  // the GPU's step and it is not modelled (src/inference/speculative.h, docs/inference-model.md
  // "SGLang's speculative step").
  double mtp_host_step_s = 0.0;
  double mtp_host_per_seq_step_s = 0.0;
  bool mtp_host_in_series = false;
  // With the host work in series, a draft extend the worker runs as eager kernels (no CUDA graph:
  // SGLang's EAGLEWorkerV2 with the FlashInfer attention backend, mtp_draft_extend_eager) adds
  // mtp_eager_draft_extend_s a step: one forward of the MTP module launched op by op from Python.
  double mtp_eager_draft_extend_s = 0.0;
  bool mtp_draft_extend_eager = false;
  // Expert load skew of real routing over the busiest EP rank, beyond the statistical spread of
  // uniform routing that the model computes itself (1 = uniform; EPLB-style balanced placement
  // brings real routing near it).
  double expert_skew = 1.0;
  // The serving front end's latency per request before its prefill (HTTP, tokenization, hand-off to
  // the scheduler; disaggregated: the router and the prefill/decode handshake), added to TTFT.
  double request_overhead_s = 0.0;
  // Disaggregated decode worker: steps carry no prefill chunks (prompts prefill on another pool). The
  // result's prefill figures (prefill_s, prefill_chunk) and TTFT are then not computed here:
  // evaluate_disaggregated sets them from its prefill pool.
  bool decode_only = false;
  // How often the scheduler takes in new requests: SGLang's --scheduler-recv-interval N polls its
  // request queue only once every N decode steps (a prefill step makes it poll at once), so a request
  // arriving while the batch decodes waits N/2 steps on average before its prefill (1: every step).
  // Disaggregated: the decode workers' (a prefill worker polls after every prefill forward): a
  // request waits (N - 1) / 2 decode steps more for its KV preallocation, which its prefill awaits.
  int scheduler_recv_interval = 1;
  // The engine's host work per sequence per step on each rank's process (building the batch,
  // sampling, per-request bookkeeping and responses), seconds. Engines with an overlap scheduler
  // (TensorRT-LLM's PyTorch executor) run it during the previous step's GPU work, so a step takes
  // the longer of the two; 0: negligible beside the GPU step (C++ runtimes). From the serving engine
  // (data/catalog/serving_engines.yaml, `host_per_seq_step_s`).
  double host_per_seq_step_s = 0.0;
  // The share of the generation's GEMM efficiency the engine's grouped MoE expert GEMMs reach, in
  // (0, 1]: 1 for kernels as fast as dense GEMMs (TensorRT-LLM's CUTLASS MoE); vLLM's Triton
  // fused_moe less. Matters where the experts' math shows: prefill's hundreds of rows per expert.
  // From the serving engine (data/catalog/serving_engines.yaml, `moe_gemm_eff`).
  double moe_gemm_eff = 1.0;
  // The engine release's MoE kernels (grouped expert GEMMs with their routing and permutation) as a share
  // of the newest release's rate, in (0, 1]: an expert GEMM of every step, decode and prefill alike,
  // takes 1 / share of its time. 1: the newest release (the default). From the serving engine's
  // `releases` (`infer --engine-release`, or a validated row's framework release).
  double moe_kernel_share = 1.0;
  // The FP8 weights' scaling block (0: per-tensor scales; -1: the model's published checkpoint,
  // ModelArch::fp8_weight_block) of the attention, dense and shared-expert GEMMs and of the routed
  // experts' (AIConfigurator's "gemm=fp8; moe=fp8_block" quantizes the two differently). Block-scaled
  // FP8 GEMMs run at the generation's infer_fp8_block_share of the FP8 rate.
  int fp8_weight_block = -1;
  int fp8_moe_weight_block = -1;
  // The dense block-scaled FP8 GEMMs (attention projections, dense MLPs, shared experts) run the
  // engine's Triton fallback kernel (SGLang's w8a8_block_fp8_matmul: on Blackwell where JIT DeepGEMM
  // is disabled and FlashInfer's FP8 GEMM is not enabled) at the generation's
  // infer_fp8_block_triton_share of the FP8 rate; the routed experts keep the engine's MoE kernels.
  // false: the generation's block-scaled kernels (DeepGEMM, FlashInfer / TensorRT-LLM, CUTLASS).
  bool fp8_block_gemm_triton = false;
  // TensorRT-LLM attention-DP balancing (attention_dp_config enable_balance, timeout_iters): context
  // requests are held until every attention-DP rank has one to schedule, or until this many
  // iterations have passed since the last release; 0: off (the engine's default).
  int adp_balance_timeout_iters = 0;
  // TensorRT-LLM batch waiting (batch_wait_timeout_iters, batch_wait_max_tokens_ratio; not with
  // attention-DP): while decodes run, context requests are held until the step's tokens (their
  // prompts plus the decodes' 1 + draft tokens each) reach ratio x max_num_tokens or this many
  // iterations have passed, then prefilled together. Waits only with both set (TensorRT-LLM's test is
  // count >= iters or tokens >= ratio x budget: either at 0 is always met); 0: off.
  int batch_wait_iters = 0;
  double batch_wait_tokens_ratio = 0.0;
  // The engine runs prompts in forwards of their own that every running sequence waits for (SGLang's
  // scheduler alternates prefill and decode batches unless --enable-mixed-chunk; ATOM likewise), instead
  // of riding them in the decodes' forward (TensorRT-LLM's inflight batching, the default false): each
  // prefill forward streams the weights again and pays its own step overhead.
  bool prefill_separate = false;
  // The prompts' attention (context FMHA) computes its QK^T and PV products in FP8 on the FP8 tensor
  // cores (TensorRT-LLM's use_fp8_context_fmha, FlashAttention-3's and FlashInfer's FP8 prefill) at the
  // generation's attention efficiency times its FP8 GEMM scale of the FP8 peak, against the BF16 peak
  // otherwise. A chip without FP8 tensor cores runs it in BF16 (executed_format); MLA prompts keep their
  // rate (infer_mla_prefill_eff where fitted: the engines' MLA kernels as they ran).
  bool fp8_context_attention = false;
  // Under attention-DP, the engine runs the dense MLPs, the shared experts and the output head
  // replicated on every attention rank over that rank's own tokens (TensorRT-LLM's PyTorch backend:
  // their TP size is 1 with enable_attention_dp; vLLM: each data-parallel rank is an engine of its own,
  // only the routed experts spanning the ranks), so each rank holds and streams their whole weights and
  // the dense layers gather nothing. false: tensor-parallel over the gathered tokens (SGLang's default).
  bool attention_dp_dense_replicated = false;
  // How the attention ranks' tokens reach the routed experts under attention-DP (MoeExchange).
  MoeExchange attention_dp_moe_exchange = MoeExchange::all_to_all;
  // The scheduler's KV admission (see KvAdmission): under current_length a running batch in steady
  // continuous batching holds, on average, isl + osl / 2 tokens of KV per sequence (ages uniform over
  // the output), so more sequences fit the pool than under reserve_full.
  KvAdmission kv_admission = KvAdmission::reserve_full;
  // Prefix caching (vLLM automatic prefix caching, SGLang RadixAttention, TensorRT-LLM KV cache reuse):
  // the share of each prompt's tokens whose KV the engine already holds from an earlier request with
  // the same prefix (a system prompt, a chat's history, a shared document). Those tokens skip the
  // prefill's compute; the request still attends over, and reserves KV for, its whole isl + osl (a
  // cached prefix shared by sequences in flight is counted once per sequence: the conservative
  // reading). 0: no reuse; below 1 (the last prompt token is always computed).
  double prefix_hit_fraction = 0.0;
  // Where the reused prefixes live: false, in the GPU's KV pool (free to reuse); true, offloaded to the
  // host's memory (TensorRT-LLM's host KV cache, LMCache, SGLang HiCache): a hit is copied back over
  // the GPU's host link before its request's prefill completes, overlapped layer by layer with the
  // prefill of the new tokens, so the prefill takes the longer of the two.
  bool kv_offload_host = false;

  bool operator==(const InferenceWorkload&) const = default;
};

// Prompt tokens a request's prefill computes: isl less its prefix-cache hits, at least one token.
double prompt_compute_tokens(const InferenceWorkload& w);

// The KV tokens the pool holds per running sequence: isl + osl under reserve_full admission or a
// synchronized batch; isl + osl / 2 (the mean current length) under current_length.
long long kv_held_tokens(const InferenceWorkload& w);

// One forward step of one instance, split into named parts that add up to total_s.
struct StepTime {
  double gemm_s = 0;          // weight GEMMs: roofline max(FLOPs, weight + activation bytes)
  double attention_s = 0;     // attention core: roofline max(FLOPs, KV bytes read)
  double tp_comm_s = 0;       // TP all-reduces (2 per layer)
  double ep_comm_s = 0;       // EP dispatch + combine all-to-all (attention-DP) per MoE layer
  double pp_comm_s = 0;       // PP hand-offs between stages
  double overhead_s = 0;      // kernel launches/tails and the framework's per-step work
  double draft_s = 0;         // MTP draft head: k sequential passes of one layer and the output head
  double total_s = 0;
  double weight_bytes_read = 0;  // per GPU
  double kv_bytes_read = 0;      // per GPU
  double flops = 0;              // per GPU
  double parts_sum() const {
    return gemm_s + attention_s + tp_comm_s + ep_comm_s + pp_comm_s + overhead_s + draft_s;
  }
};

struct InferenceResult {
  std::vector<Violation> violations;
  bool valid() const { return violations.empty(); }

  int instances = 1;                   // data-parallel copies of the model
  int gpus_per_instance = 1;
  long long concurrency = 0;           // sequences in flight, whole deployment
  long long batch_per_instance = 0;
  long long max_concurrency = 0;       // the KV cache's limit, whole deployment
  double expected_active_experts = 0;  // per MoE layer in one decode step (whole model)
  InferenceMemory memory;              // per GPU at the operating point

  StepTime decode_step;      // one decode step of the whole batch (staggered: mixed with prefill chunks)
  StepTime prefill_chunk;    // one prefill chunk (max_num_tokens tokens, or the whole wave if smaller)
  double prefill_s = 0;      // prefill of one request alone (isl tokens)
  double ttft_s = 0;         // time to first token, mean, at this load
  double tpot_s = 0;         // time per output token, mean, after the first
  double queue_wait_s = 0;   // waiting for a KV slot when the concurrency exceeds the KV limit (in ttft)
  double e2e_latency_s = 0;  // ttft + (osl - 1) tpot
  double tokens_per_s_total = 0;     // output tokens/s of the whole deployment
  double tokens_per_s_per_gpu = 0;
  double tokens_per_s_per_user = 0;  // 1 / tpot
  double requests_per_s = 0;
  double tokens_per_step = 1;        // output tokens per sequence per decode step (MTP: accepted length)
  // Disaggregated deployments (evaluate_disaggregated): the pools and the KV hand-off.
  bool disaggregated = false;
  int prefill_gpus = 0, decode_gpus = 0;
  double prefix_load_s = 0;          // prefix-cache hits copied back from host memory (kv_offload_host)
  double kv_transfer_s = 0;          // one request's KV cache from prefill to decode, exposed part
  // The receive interval (SGLang's --scheduler-recv-interval N): the worker takes in new requests
  // every N decode steps, so a request waits (N - 1) / 2 steps more than with one polling every step
  // (a disaggregated deployment's decode workers: for its KV preallocation; an aggregated worker
  // under load: before its prefill). In ttft_s, not in queue_wait_s; 0 when it polls every step.
  double receive_wait_s = 0;
  // TensorRT-LLM batch waiting (InferenceWorkload::batch_wait_iters): the mean hold of a context
  // request and the longer step of the prompts released together. In ttft_s; 0 when off.
  double batch_wait_s = 0;
  // A prompt longer than one step's token budget (what the decodes leave of max_num_tokens): its wait
  // behind the prompts ahead of it for that budget, first come first served (M/D/1 in steps). In
  // ttft_s; 0 when the prompt fits one step.
  double prompt_queue_s = 0;
  double prefill_utilization = 0;    // prefill pool's load (arrivals / capacity)
  // Closed-loop runs of a disaggregated deployment: the run's 99th-percentile TTFT where the opening
  // wave holds it (the wave's request with 1 - requests_per_client / 100 of the wave ahead of it:
  // the prefill pool's capacity shows in it), else the steady state's mean; 0 when not modelled.
  double ttft_p99_s = 0;
  // Closed-loop runs (requests_per_client > 0): the median request's TTFT. An aggregated run's, and
  // a disaggregated run's within the decode slots, is the steady state's (the opening wave is 1 in
  // requests_per_client requests: in ttft_s, the mean, not here); a disaggregated run with more
  // clients than slots is replayed (replay_closed_loop, when InferenceWorkload::ttft_median asks for
  // it; else the steady state's): which requests wait for a slot is set by the burst the run opens
  // with. 0 when not modelled (no run described).
  double ttft_median_s = 0;
};

// Evaluates one operating point. Malformed input (tp not dividing heads, gpus not a multiple of
// tp x pp, isl < 1, ...) -> InputError naming the option; infeasible (weights or one sequence's KV
// do not fit) -> result with violations.
InferenceResult evaluate_inference(const ModelArch& m, const Hardware& hw, const InferenceParallel& par,
                                   const InferenceWorkload& w);

// evaluate_inference on `serving_hw`, already serving_hardware(hw): the same result, for callers that
// evaluate many points on one hardware and make its serving form once.
InferenceResult evaluate_inference_serving(const ModelArch& m, const Hardware& serving_hw,
                                           const InferenceParallel& par, const InferenceWorkload& w);

// One deployment's evaluations at several loads: evaluate(c) is evaluate_inference_serving(m, serving_hw,
// par, w with concurrency c), bit for bit, with the parts that do not depend on the load (the memory at
// no load, the KV limit, one prompt's prefill step and chunk) computed once, on construction. Keeps
// references to `m` and `serving_hw` (already serving_hardware(hw)), which must outlive it. Throws
// InputError on construction where evaluate_inference_serving would for `w`.
class InferenceInstances;

class InferenceEvaluator {
 public:
  InferenceEvaluator(const ModelArch& m, const Hardware& serving_hw, const InferenceParallel& par,
                     const InferenceWorkload& w);
  // The same evaluator, its instance's parts (see InferenceInstances) taken from `instances` where an
  // evaluator made with it already computed them (nullptr: none kept).
  InferenceEvaluator(const ModelArch& m, const Hardware& serving_hw, const InferenceParallel& par,
                     const InferenceWorkload& w, InferenceInstances* instances);
  InferenceEvaluator(ModelArch&&, const Hardware&, const InferenceParallel&, const InferenceWorkload&,
                     InferenceInstances*) = delete;
  InferenceEvaluator(const ModelArch&, Hardware&&, const InferenceParallel&, const InferenceWorkload&,
                     InferenceInstances*) = delete;
  // Temporaries would dangle: the evaluator keeps references to the model and the hardware.
  InferenceEvaluator(ModelArch&&, const Hardware&, const InferenceParallel&, const InferenceWorkload&) = delete;
  InferenceEvaluator(const ModelArch&, Hardware&&, const InferenceParallel&, const InferenceWorkload&) = delete;
  ~InferenceEvaluator();
  InferenceEvaluator(InferenceEvaluator&&) noexcept;
  InferenceEvaluator(const InferenceEvaluator&) = delete;
  InferenceEvaluator& operator=(const InferenceEvaluator&) = delete;
  // The operating point at `concurrency` sequences in flight (0: as many as fit); InputError when < 0.
  InferenceResult evaluate(long long concurrency) const;

  // For an evaluator of a decode-only staggered workload (a disaggregated decode worker's) with room
  // for a sequence (decode_only_ready):
  // - decode_load: evaluate(concurrency)'s sequences in flight and batch per instance;
  // - decode_only_step: evaluate's decode step at `batch` sequences per instance, which reads nothing
  //   of the GPU count: the same for every pool of this worker at that batch;
  // - tokens_per_step: the tokens a decode step yields per sequence (TPOT = step / it);
  // - evaluate(concurrency, step) with step = decode_only_step(its batch): evaluate(concurrency), bit
  //   for bit.
  bool decode_only_ready() const;
  struct DecodeLoad {
    long long concurrency = 0;
    double batch = 0;
  };
  DecodeLoad decode_load(long long concurrency) const;
  StepTime decode_only_step(double batch) const;
  double tokens_per_step() const;
  InferenceResult evaluate(long long concurrency, const StepTime& decode_step) const;

 private:
  friend class InferenceInstances;
  struct Instance;
  struct Fixed;
  // The decode step of one instance of `batch` sequences from one stage's step `st` (see evaluate).
  StepTime decode_step_of(StepTime st, double batch) const;
  InferenceResult evaluate_with(long long concurrency, const StepTime* decode_step) const;
  std::unique_ptr<Fixed> fixed_;
};

// The parts of InferenceEvaluators that depend neither on their GPU count, their MTP drafts nor the
// load: one instance's memory at no load and KV limit, its step's shapes and GEMMs and one prompt's
// prefill. Evaluators of one parallelism made with the same InferenceInstances compute them once (the
// same figures, bit for bit). For one thread; it must outlive the evaluators' construction only.
class InferenceInstances {
 public:
  // `drafts`: the instances also carry the MTP draft head's pass, for evaluators with and without
  // drafts to share them.
  explicit InferenceInstances(bool drafts = false);
  ~InferenceInstances();
  InferenceInstances(const InferenceInstances&) = delete;
  InferenceInstances& operator=(const InferenceInstances&) = delete;

 private:
  friend class InferenceEvaluator;
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// The largest concurrency (whole deployment) whose mean TTFT and TPOT stay within the limits
// (0 = no limit), searched by bisection up to the KV limit; the result at that point. When even
// concurrency = instances misses the limits, the result at that concurrency with a violation.
InferenceResult evaluate_under_limits(const ModelArch& m, const Hardware& hw, const InferenceParallel& par,
                                      InferenceWorkload w, double ttft_limit_s, double tpot_limit_s);

// One forward step of one instance prefilling `prompt_tokens` prompt tokens (of prompts `isl` long,
// whole instance) and nothing else: the prefill pool's unit of work (pp = 1).
StepTime prefill_step(const ModelArch& m, const Hardware& hw, const InferenceParallel& par,
                      const InferenceWorkload& w, double prompt_tokens);
// prefill_step on `serving_hw`, already serving_hardware(hw): the same step, for callers that hold it.
StepTime prefill_step_serving(const ModelArch& m, const Hardware& serving_hw, const InferenceParallel& par,
                              const InferenceWorkload& w, double prompt_tokens);

// The hardware an inference step runs on: the serving efficiencies (infer_*) in place of the
// training ones and tensor rates bounded by board power.
Hardware serving_hardware(const Hardware& hw);

// The widest expert parallelism of at most `at_most` ranks that divides both an MoE's experts and a
// worker of `width` GPUs (1 for a dense model): what an engine runs where a stated EP does not divide
// them, and what a plan naming none runs (at_most = width: gcd(width, experts)).
int dividing_expert_parallel(const ModelArch& m, int width, int at_most);

// Expected distinct experts a batch of `tokens` routes to, each picking top_k of `experts`
// uniformly: E (1 - (1 - k/E)^tokens).
double expected_active_experts(int experts, int top_k, double tokens);

// What a receive interval of N decode steps (SGLang's --scheduler-recv-interval) adds to a request's
// wait beyond a worker's that polls every step: (N - 1) / 2 steps on average (aggregated workers
// under load, before the prefill; disaggregated decode workers, before the KV preallocation).
double receive_interval_wait_s(int interval, double decode_step_s);

// Mean decode steps a context request waits in TensorRT-LLM's attention-DP balancer (enable_balance
// with timeout_iters) at `batch` sequences over `ranks` attention-DP ranks, new requests arriving at
// `arrivals_per_seq_step` per sequence per step (accepted tokens / osl).
double adp_balance_wait_steps(double batch, int ranks, double arrivals_per_seq_step, int timeout_iters);
// The context requests the balancer releases at once: those arriving over one hold cycle (the ranks
// fill, or the timeout), at least 1; 1 when nothing is held (no balancer, or a rank with no generation
// request holds nothing back).
double adp_balance_released_prompts(double batch, int ranks, double arrivals_per_seq_step, int timeout_iters);

// TensorRT-LLM's batch waiting (InferenceWorkload::batch_wait_iters) in the steady state: `batch`
// sequences decoding `tokens_per_decode` tokens a step each (1 + MTP drafts), prompts `isl` long
// arriving as a Poisson stream of `arrivals_per_seq_step` per sequence per step. The first held prompt
// opens a window that ends when the held prompts and the decodes reach `threshold_tokens` (ratio x
// max_num_tokens) or after `timeout_iters` iterations; the window's prompts are released together.
struct TrtllmBatchWait {
  double window_steps = 0;     // expected hold of the window's first prompt (0: the threshold is met at once)
  double released = 1;         // expected prompts released together (the first and those arriving in the window)
  double mean_wait_steps = 0;  // a prompt's mean hold over the prompts released
};
TrtllmBatchWait trtllm_batch_wait(double batch, double arrivals_per_seq_step, double isl, double tokens_per_decode,
                                  int timeout_iters, double threshold_tokens);

}  // namespace gpuplan
