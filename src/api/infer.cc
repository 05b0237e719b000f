// gpuplan infer: serving performance of a model on a system: throughput per GPU and per user, TTFT,
// TPOT; or, with --sweep, the Pareto frontier over TP/EP/attention-DP and concurrency.
#include <fmt/format.h>

#include <iostream>
#include <optional>

#include "api/api.h"
#include "api/band_json.h"
#include "api/infer.h"
#include "api/serving_engine.h"
#include "api/sorted_object.h"
#include "api/text.h"
#include "api/fabric_options.h"
#include "compare/operating_point.h"
#include "core/error.h"
#include "inference/disaggregated.h"
#include "inference/engine.h"
#include "inference/inference.h"
#include "inference/speculative.h"
#include "inference/sweep.h"
#include "model/model_registry.h"
#include "physics/compute.h"
#include "physics/hardware.h"

namespace gpuplan::api {

namespace {

// The documents' objects are filled field by field in sorted key order (SortedObject): nlohmann's
// initializer lists build a two-element array per field before moving it in, and a map insertion
// out of order descends the tree; both cost more than the evaluation of a point.
nlohmann::json infer_step_json(const StepTime& s) {
  nlohmann::json j = nlohmann::json::object();
  SortedObject(j)
      .add("attention_s", s.attention_s)
      .add("draft_s", s.draft_s)
      .add("ep_comm_s", s.ep_comm_s)
      .add("flops", s.flops)
      .add("gemm_s", s.gemm_s)
      .add("kv_bytes_read", s.kv_bytes_read)
      .add("overhead_s", s.overhead_s)
      .add("pp_comm_s", s.pp_comm_s)
      .add("total_s", s.total_s)
      .add("tp_comm_s", s.tp_comm_s)
      .add("weight_bytes_read", s.weight_bytes_read);
  return j;
}

nlohmann::json infer_parallel_json(const InferenceParallel& p) {
  nlohmann::json j = nlohmann::json::object();
  SortedObject(j)
      .add("attention_dp", p.attention_dp)
      .add("ep", p.ep)
      .add("pp", p.pp)
      .add("tp", p.tp)
      .add("two_batch_overlap", p.two_batch_overlap);
  return j;
}

nlohmann::json infer_result_json(const InferenceResult& r) {
  nlohmann::json v = nlohmann::json::array();
  for (const auto& x : r.violations) v.push_back({{"code", x.code}, {"subject", x.subject}, {"message", x.message}});
  nlohmann::json mem = nlohmann::json::object();
  SortedObject(mem)
      .add("activations_bytes", r.memory.activations_bytes)
      .add("capacity_bytes", r.memory.capacity_bytes)
      .add("kv_cache_bytes", r.memory.kv_cache_bytes)
      .add("reserve_bytes", r.memory.reserve_bytes)
      .add("total_bytes", r.memory.total_bytes)
      .add("weights_bytes", r.memory.weights_bytes);
  nlohmann::json j = nlohmann::json::object();
  SortedObject(j)
      .add("batch_per_instance", r.batch_per_instance)
      .add("concurrency", r.concurrency)
      .add("decode_gpus", r.decode_gpus)
      .add("decode_step", infer_step_json(r.decode_step))
      .add("disaggregated", r.disaggregated)
      .add("e2e_latency_s", r.e2e_latency_s)
      .add("expected_active_experts", r.expected_active_experts)
      .add("gpus_per_instance", r.gpus_per_instance)
      .add("instances", r.instances)
      .add("kv_transfer_s", r.kv_transfer_s)
      .add("max_concurrency", r.max_concurrency)
      .add("memory", std::move(mem))
      .add("prefill_chunk", infer_step_json(r.prefill_chunk))
      .add("prefill_gpus", r.prefill_gpus)
      .add("prefill_s", r.prefill_s)
      .add("prefill_utilization", r.prefill_utilization)
      .add("queue_wait_s", r.queue_wait_s)
      .add("receive_wait_s", r.receive_wait_s)
      .add("requests_per_s", r.requests_per_s)
      .add("tokens_per_s_per_gpu", r.tokens_per_s_per_gpu)
      .add("tokens_per_s_per_user", r.tokens_per_s_per_user)
      .add("tokens_per_s_total", r.tokens_per_s_total)
      .add("tokens_per_step", r.tokens_per_step)
      .add("tpot_s", r.tpot_s)
      .add("ttft_median_s", r.ttft_median_s)
      .add("batch_wait_s", r.batch_wait_s)
      .add("ttft_p99_s", r.ttft_p99_s)
      .add("ttft_s", r.ttft_s)
      .add("valid", r.valid())
      .add("violations", std::move(v));
  return j;
}

// Where one decode step's time goes (the text form of infer_step_json).
std::string decode_step_text(const char* label, const StepTime& d) {
  return fmt::format("{} {:.2f} ms: GEMMs {:.2f}, attention {:.2f}, TP {:.2f}, EP {:.2f}, PP {:.2f}, "
                     "overhead {:.2f} ms; per GPU {:.1f} GB weights + {:.1f} GB KV read\n",
                     label, d.total_s * 1e3, d.gemm_s * 1e3, d.attention_s * 1e3, d.tp_comm_s * 1e3, d.ep_comm_s * 1e3,
                     d.pp_comm_s * 1e3, d.overhead_s * 1e3, d.weight_bytes_read / 1e9, d.kv_bytes_read / 1e9);
}

std::string infer_plan_text(const InferenceParallel& p) {
  return fmt::format("tp={} ep={} pp={}{}{}", p.tp, p.ep, p.pp, p.attention_dp ? " attention-dp" : "",
                     p.two_batch_overlap ? " tbo" : "");
}

// One pool's worker from its options: `ep` wider than `tp` makes the worker ep GPUs wide with
// attention data-parallel over them (SGLang --tp N --dp N --enable-dp-attention --ep N, TensorRT-LLM
// enable_attention_dp with moe_ep N).
InferenceParallel pool_parallel(const ModelArch& m, int tp, int ep, bool attention_dp, bool tbo, const char* side) {
  if (tp < 1 || tp > 1024) throw InputError(fmt::format("--{}-tp", side), fmt::format("must be 1 to 1024, got {}", tp));
  if (ep < 0 || ep > 1024) throw InputError(fmt::format("--{}-ep", side), fmt::format("must be 1 to 1024, got {}", ep));
  InferenceParallel p;
  p.tp = std::max(tp, ep);
  p.ep = m.is_moe() ? (ep > 0 ? ep : p.tp) : 1;
  p.attention_dp = m.is_moe() && (attention_dp || ep > tp);
  p.two_batch_overlap = tbo;
  return p;
}

// True when apply_fabric_options() would change the hardware (not the default 1:1 rail-optimized
// fabric); bad options: its InputErrors.
bool reshapes_fabric(const FabricOptions& opts) {
  const double r = parse_oversubscription(opts.oversubscription, "--fabric-oversubscription");
  return !(r == 1 && parse_fabric_topology(opts.topology) == fabric::Topology::rail_optimized);
}

}  // namespace

void add_infer_options(CLI::App& app, InferRequest& req) {
  app.description("Predict serving performance: prefill (GEMMs + causal attention), decode steps (weights and KV "
               "cache read against the FLOPs, TP/EP/PP communication on their link tiers), continuous batching "
               "limited by the KV cache. Prints tokens/s per GPU and total, tokens/s per user, TTFT, TPOT and "
               "end-to-end latency; --sweep prints the Pareto frontier of throughput per GPU against tokens/s "
               "per user over TP/EP/attention-DP and concurrency.");
  app.add_option("--model", req.model_name, kModelOptionHelp)
      ->capture_default_str();
  app.add_option("--system", req.system, "Catalog system (hgx-h200, gb200-nvl72, ...) or accelerator")
      ->capture_default_str();
  app.add_option("--gpus", req.gpus, "GPUs of the deployment (default: tp x pp, one instance; with --sweep the "
                                     "system's unit, one node or NVL72 rack, or the fewest units the model fits)");
  app.add_option("--isl", req.isl, "Input tokens per request")->capture_default_str();
  app.add_option("--osl", req.osl, "Output tokens per request")->capture_default_str();
  app.add_option("--precision", req.precision, "Weights and GEMMs: bf16, fp8, fp4 (nvfp4, mxfp4) or w4a16 "
                                                           "(4-bit weight-only INT4 with BF16 math; also int4_wo, awq, gptq)")->capture_default_str();
  app.add_option("--kv-precision", req.kv_precision, "KV cache: bf16 or fp8 (default fp8 with fp8/fp4 weights, bf16 with bf16/w4a16)");
  app.add_option("--tp", req.tp, "Tensor parallel (default: smallest that fits, or --gpus)");
  app.add_option("--ep", req.ep, "Expert parallel (MoE; default tp). Wider than --tp: the worker spans ep GPUs with "
                             "attention data-parallel over them (up to the NVLink domain, or across nodes)");
  app.add_option("--pp", req.pp, "Pipeline stages")->capture_default_str();
  app.add_flag("--attention-dp,--attn-dp", req.attention_dp, "Attention data-parallel over the TP ranks (MoE)");
  app.add_flag("--two-batch-overlap", req.tbo,
               "Overlap EP dispatch/combine with a second micro-batch's compute where it pays (SGLang TBO)");
  app.add_option("--mtp", req.mtp, fmt::format("Multi-token prediction / speculative decoding: draft tokens per step "
                                           "(0 = off; engines' DeepSeek recipes use {})", kMtpDraftTokensDefault))
      ->capture_default_str();
  app.add_option("--mtp-accept", req.mtp_accept,
                 fmt::format("Acceptance of each draft given the previous one was accepted (default {})",
                             mtp_accept_default()));
  app.add_option("--expert-skew", req.expert_skew,
                 "Busiest EP rank's load over uniform routing's (1 = uniform/balanced placement)")
      ->capture_default_str();
  app.add_option("--fp8-weight-block", req.fp8_weight_block,
                 "FP8 weights' scaling block: 128 for block-scaled weights (DeepSeek-V3/R1 and Kimi K2 checkpoints: "
                 "their FP8 GEMMs run at the generation's fitted block-scaled rate), 0 for per-tensor scales "
                 "(default: the model's checkpoint)");
  app.add_option("--fp8-gemm-backend", req.fp8_gemm_backend,
                 "Kernel of the dense block-scaled FP8 GEMMs (attention, dense MLP, shared experts): auto (the "
                 "generation's fitted block-scaled rate: DeepGEMM, FlashInfer / TensorRT-LLM, CUTLASS) or triton "
                 "(SGLang's Triton fallback, which Blackwell runs take with JIT DeepGEMM disabled and FlashInfer's "
                 "FP8 GEMM not enabled: the generation's fitted infer_fp8_block_triton_share); with --disagg, both "
                 "pools unless --prefill-fp8-gemm-backend")
      ->capture_default_str();
  app.add_option("--engine", req.engine,
                 "Serving engine whose parameters apply (data/catalog/serving_engines.yaml: front-end latency "
                 "per request, host work per sequence, MoE GEMM share, MTP acceptance, prompts in forwards of "
                 "their own): sglang, tensorrt-llm, atom, dynamo+sglang, dynamo+tensorrt-llm, sglang+mori, "
                 "tensorrt-llm-pytorch or vllm");
  app.add_option("--scheduler-recv-interval", req.scheduler_recv_interval,
                 "SGLang's --scheduler-recv-interval: new requests are received every N decode steps, and the "
                 "prompts gathered prefill together (InferenceX's B200/B300 SGLang scripts: 30 at 16+ clients); "
                 "with --disagg the decode workers', whose requests wait (N - 1) / 2 steps more for their KV "
                 "preallocation (Dynamo low-latency recipes: 10); 1 to 1000")
      ->capture_default_str();
  app.add_option("--adp-balance-timeout-iters", req.adp_balance_timeout_iters,
                 "TensorRT-LLM's attention-DP balancer (attention_dp_config enable_balance, timeout_iters; "
                 "InferenceX's attention-DP scripts: 60): context requests held until every attention-DP rank "
                 "has one, at most N steps, then prefilled together; 0: off")
      ->capture_default_str();
  app.add_option("--batch-wait-iters", req.batch_wait_iters,
                 "TensorRT-LLM batch waiting (batch_wait_timeout_iters; InferenceX's B200 FP8 script at 1K/1K "
                 "and 64+ clients: 40): while decodes run, context requests are held until the step's tokens "
                 "reach --batch-wait-tokens-ratio x --max-num-tokens or N iterations have passed, then "
                 "prefilled together; with the ratio, not with attention-DP or --disagg; 0: off")
      ->capture_default_str();
  app.add_option("--batch-wait-tokens-ratio", req.batch_wait_tokens_ratio,
                 "TensorRT-LLM batch waiting's token threshold (batch_wait_max_tokens_ratio, a share of "
                 "--max-num-tokens; InferenceX: 0.8), with --batch-wait-iters; 0: off")
      ->capture_default_str();
  app.add_option("--request-overhead-ms", req.request_overhead_ms,
                 "Front-end latency per request before prefill, ms (default: the --engine's, else 0)");
  app.add_flag("--disagg", req.disagg, "Disaggregated serving: a prefill pool and a decode pool (--prefill-*, --decode-*)");
  app.add_option("--prefill-gpus", req.prefill_gpus, "--disagg: GPUs of the prefill pool (default one worker)");
  app.add_option("--prefill-tp", req.prefill_tp, "--disagg: TP of a prefill worker")->capture_default_str();
  app.add_option("--prefill-ep", req.prefill_ep, "--disagg: EP of a prefill worker (default its width)");
  app.add_flag("--prefill-attn-dp", req.prefill_attn_dp, "--disagg: attention data-parallel in prefill workers");
  app.add_option("--decode-gpus", req.decode_gpus, "--disagg: GPUs of the decode pool (default one worker)");
  app.add_option("--decode-tp", req.decode_tp, "--disagg: TP of a decode worker")->capture_default_str();
  app.add_option("--decode-ep", req.decode_ep, "--disagg: EP of a decode worker (default its width)");
  app.add_flag("--decode-attn-dp", req.decode_attn_dp, "--disagg: attention data-parallel in decode workers");
  app.add_option("--decode-max-batch", req.decode_max_batch,
                 "--disagg: sequences each decode attention rank holds at most (the recipe's max batch; clients "
                 "beyond the pool's slots wait before decode); 0: only the KV cache limits it")
      ->capture_default_str();
  app.add_option("--prefill-max-batch", req.prefill_max_batch,
                 "--disagg: requests each prefill attention rank holds at once, from the start of their prefill "
                 "until their KV cache has reached decode (SGLang's --max-running-requests / dp); 0: no cap")
      ->capture_default_str();
  app.add_option("--prefill-max-tokens", req.prefill_max_tokens,
                 "--disagg: prompt tokens each prefill attention rank prefills per step (SGLang's chunked-prefill "
                 "size / dp, TensorRT-LLM's context max_num_tokens); 0: --max-num-tokens")
      ->capture_default_str();
  app.add_option("--prefill-fp8-gemm-backend", req.prefill_fp8_gemm_backend,
                 "--disagg: the prefill pool's --fp8-gemm-backend (auto or triton), where its workers' environment "
                 "differs from the decode workers' (default: --fp8-gemm-backend)");
  app.add_option("--concurrency", req.concurrency, "Sequences in flight, whole deployment (default: as many as fit)");
  app.add_option("--tpot-ms", req.tpot_ms, "Highest load whose mean TPOT stays at or under this (ms)");
  app.add_option("--tokens-per-user-per-s,--tokens-per-user", req.tokens_per_user, "Highest load giving each user at least this speed");
  app.add_option("--ttft-ms", req.ttft_ms, "Limit on the mean TTFT (ms), with the above or --sweep");
  app.add_option("--arrival", req.arrival, "staggered (continuous batching), closed_loop (clients resending) or synchronized (static batches)")
      ->capture_default_str();
  app.add_option("--requests-per-client", req.requests_per_client,
                 "closed_loop: requests each client sends in the measured run (the first round arrives as one "
                 "wave); 0: steady state only")
      ->capture_default_str();
  app.add_option("--length-low", req.length_low,
                 "closed_loop: the clients' lengths are uniform in [this, 1] x the longest, --isl/--osl their means "
                 "(InferenceX's client: 0.8); a disaggregated run with more clients than decode slots is "
                 "replayed request by request for its median TTFT")
      ->capture_default_str();
  app.add_option("--max-num-tokens", req.max_num_tokens, "Tokens per forward step (prefill chunk budget)")
      ->capture_default_str();
  app.add_option("--max-batch-size", req.max_batch, "Sequences per instance the scheduler admits")->capture_default_str();
  app.add_flag("--sweep", req.sweep, "Sweep TP/EP/attention-DP and concurrency; print the Pareto frontier");
  app.add_option("--max-pp", req.max_pp, "With --sweep: pipeline stages tried up to this")->capture_default_str();
  add_fabric_options(app, req.fabric_opts);
  app.add_flag("--aggregated-only", req.aggregated_only,
               "With --sweep: aggregated engines without MTP only (MoE sweeps otherwise add disaggregated "
               "pools, wide EP and MTP on/off)");
}

int infer(const Catalog& catalog, InferRequest req, Output& output, const Session* session) {
  auto prec = parse_precision(req.precision);
  if (!prec || *prec == Precision::mxfp8)
    throw InputError("--precision", fmt::format("must be bf16, fp8, fp4 (nvfp4, mxfp4) or w4a16 (int4_wo, awq, "
                                                "gptq), got '{}'", req.precision));
  InferenceWorkload w;
  w.weight_precision = *prec;
  if (req.kv_precision.empty()) {
    w.kv_bytes_per_element = default_kv_bytes(*prec);
  } else {
    auto kv = parse_precision(req.kv_precision);
    if (!kv || (*kv != Precision::bf16 && *kv != Precision::fp8))
      throw InputError("--kv-precision", fmt::format("must be bf16 or fp8, got '{}'", req.kv_precision));
    w.kv_bytes_per_element = weight_bytes(*kv);
  }
  if (req.isl < 1 || req.isl > 10000000) throw InputError("--isl", fmt::format("must be 1 to 10000000, got {}", req.isl));
  if (req.osl < 1 || req.osl > 10000000) throw InputError("--osl", fmt::format("must be 1 to 10000000, got {}", req.osl));
  if (req.gpus < 0 || req.gpus > 100000) throw InputError("--gpus", fmt::format("must be 1 to 100000, got {}", req.gpus));
  if (req.tp < 0) throw InputError("--tp", fmt::format("must be >= 1, got {}", req.tp));
  if (req.ep < 0) throw InputError("--ep", fmt::format("must be >= 1, got {}", req.ep));
  if (req.pp < 1) throw InputError("--pp", fmt::format("must be >= 1, got {}", req.pp));
  if (req.max_pp < 1 || req.max_pp > 64) throw InputError("--max-pp", fmt::format("must be 1 to 64, got {}", req.max_pp));
  if (req.concurrency < 0) throw InputError("--concurrency", fmt::format("must be >= 1, got {}", req.concurrency));
  if (req.tpot_ms < 0) throw InputError("--tpot-ms", fmt::format("must be > 0, got {}", req.tpot_ms));
  if (req.ttft_ms < 0) throw InputError("--ttft-ms", fmt::format("must be > 0, got {}", req.ttft_ms));
  if (req.tokens_per_user < 0)
    throw InputError("--tokens-per-user-per-s", fmt::format("must be > 0, got {}", req.tokens_per_user));
  if ((req.concurrency > 0) + (req.tpot_ms > 0) + (req.tokens_per_user > 0) > 1)
    throw InputError("--concurrency", "give at most one of --concurrency, --tpot-ms, --tokens-per-user-per-s");
  if (req.max_num_tokens < 1)
    throw InputError("--max-num-tokens", fmt::format("must be >= 1, got {}", req.max_num_tokens));
  if (req.max_batch < 1) throw InputError("--max-batch-size", fmt::format("must be >= 1, got {}", req.max_batch));
  if (req.arrival != "staggered" && req.arrival != "synchronized" && req.arrival != "closed_loop")
    throw InputError("--arrival",
                     fmt::format("must be staggered, synchronized or closed_loop, got '{}'", req.arrival));
  w.arrival = req.arrival == "staggered"      ? Arrival::staggered
              : req.arrival == "synchronized" ? Arrival::synchronized
                                          : Arrival::closed_loop;
  if (req.requests_per_client < 0 || req.requests_per_client > 1000000)
    throw InputError("--requests-per-client", fmt::format("must be 0 to 1000000, got {}", req.requests_per_client));
  w.requests_per_client = req.requests_per_client;
  if (!(req.length_low > 0 && req.length_low <= 1))
    throw InputError("--length-low", fmt::format("must be in (0, 1], got {}", req.length_low));
  if (req.length_low != 1.0 && (w.arrival != Arrival::closed_loop || req.requests_per_client < 1))
    throw InputError("--length-low", "applies to --arrival closed_loop with --requests-per-client >= 1");
  w.length_low_fraction = req.length_low;
  // The median request's TTFT, replayed where clients exceed the decode slots: affordable for one point,
  // and a sweep's points sit within their slots (they never pay it).
  w.ttft_median = w.arrival == Arrival::closed_loop && req.requests_per_client > 0;
  w.isl = req.isl;
  w.osl = req.osl;
  if (req.mtp < 0 || req.mtp > 16) throw InputError("--mtp", fmt::format("must be 0 to 16 draft tokens, got {}", req.mtp));
  if (!(req.mtp_accept >= 0 && req.mtp_accept < 1))
    throw InputError("--mtp-accept", fmt::format("must be in (0, 1), got {}", req.mtp_accept));
  if (req.mtp_accept > 0 && req.mtp == 0) throw InputError("--mtp-accept", "applies with --mtp K (K >= 1 draft tokens)");
  if (!(req.expert_skew >= 1 && req.expert_skew <= 8))
    throw InputError("--expert-skew", fmt::format("must be 1 to 8, got {}", req.expert_skew));
  w.mtp_draft_tokens = req.mtp;
  w.mtp_accept = req.mtp_accept > 0 ? req.mtp_accept : catalog_mtp_accept(catalog, req.engine);
  w.expert_skew = req.expert_skew;
  if (req.fp8_weight_block) {
    if (*req.fp8_weight_block < 0 || *req.fp8_weight_block > 4096)
      throw InputError("--fp8-weight-block",
                       fmt::format("must be 0 (per-tensor scales) to 4096, got {}", *req.fp8_weight_block));
    w.fp8_weight_block = w.fp8_moe_weight_block = *req.fp8_weight_block;
  }
  w.fp8_block_gemm_triton = req.fp8_gemm_backend == "triton";  // checked with the hardware below
  if (!req.engine.empty()) {
    const EngineParams e = engine_params(catalog, req.engine);
    if (e.name.empty())
      throw InputError("--engine", fmt::format("must be sglang, tensorrt-llm, atom, dynamo+sglang, "
                                               "dynamo+tensorrt-llm, sglang+mori, tensorrt-llm-pytorch or vllm, got '{}'", req.engine));
    w.request_overhead_s = e.request_overhead_s;
    w.host_per_seq_step_s = e.host_per_seq_step_s;
    w.moe_gemm_eff = e.moe_gemm_eff;
    w.prefill_separate = e.prefill_separate;
  }
  if (req.request_overhead_ms) {
    if (!(*req.request_overhead_ms >= 0 && *req.request_overhead_ms <= 60000))
      throw InputError("--request-overhead-ms", fmt::format("must be 0 to 60000, got {}", *req.request_overhead_ms));
    w.request_overhead_s = *req.request_overhead_ms / 1e3;
  }
  // Any pool option given (whatever its value, 0 included) needs --disagg; the error names it.
  for (const char* o : {"--prefill-gpus", "--prefill-tp", "--prefill-ep", "--prefill-attn-dp", "--decode-gpus",
                        "--decode-tp", "--decode-ep", "--decode-attn-dp", "--decode-max-batch",
                        "--prefill-max-batch", "--prefill-max-tokens", "--prefill-fp8-gemm-backend"})
    if (!req.disagg && req.given(o))
      throw InputError(o, "describes a disaggregated deployment (the --prefill-*/--decode-* options); add --disagg");
  w.max_num_tokens = req.max_num_tokens;
  w.max_batch_size = req.max_batch;
  w.scheduler_recv_interval = req.scheduler_recv_interval;  // ranges checked with the workload
  w.adp_balance_timeout_iters = req.adp_balance_timeout_iters;
  w.batch_wait_iters = req.batch_wait_iters;  // ranges checked with the workload
  w.batch_wait_tokens_ratio = req.batch_wait_tokens_ratio;
  // The engine schedulers' settings apply where the engine applies them; elsewhere they are refused,
  // not ignored (attention-DP or not: once the plan is known, below).
  if (req.adp_balance_timeout_iters != 0 && req.disagg)
    throw InputError("--adp-balance-timeout-iters", "applies to an aggregated deployment, not with --disagg");
  if (req.batch_wait_iters != 0 || req.batch_wait_tokens_ratio != 0) {
    const bool iters = req.batch_wait_iters != 0;
    const char* name = iters ? "--batch-wait-iters" : "--batch-wait-tokens-ratio";
    if (iters != (req.batch_wait_tokens_ratio != 0))
      throw InputError(name, fmt::format("needs {} too: TensorRT-LLM holds context requests only while both are set "
                                         "(either at 0 ends every hold at once)",
                                         iters ? "--batch-wait-tokens-ratio" : "--batch-wait-iters"));
    if (req.disagg) throw InputError(name, "applies to an aggregated deployment, not with --disagg");
    if (w.arrival == Arrival::synchronized)
      throw InputError(name, "holds arriving prompts: not with --arrival synchronized (its prompts start together)");
    if (w.prefill_separate)
      throw InputError(name, fmt::format("is TensorRT-LLM's inflight batching; --engine {} prefills in forwards of "
                                         "its own", req.engine));
  }
  const double tpot_limit_s = req.tpot_ms > 0 ? req.tpot_ms / 1e3 : (req.tokens_per_user > 0 ? 1.0 / req.tokens_per_user : 0.0);
  const double ttft_limit_s = req.ttft_ms / 1e3;

  const ModelArch model = resolve_model(req.model_name, "--model");
  // The session's hardware as it is (a copy costs a tenth of a point's evaluation), unless the fabric
  // options reshape it or the session does not hold this spelling.
  const Hardware* resolved = session ? session->hardware(req.system) : nullptr;
  std::optional<Hardware> shaped;
  if (!resolved || reshapes_fabric(req.fabric_opts)) {
    shaped = resolved ? *resolved : resolve_hardware(catalog, req.system);
    apply_fabric_options(catalog, *shaped, req.gpus > 0 ? req.gpus : shaped->fabric.domain_gpus, req.fabric_opts);
  }
  const Hardware& hw = shaped ? *shaped : *resolved;
  // SGLang's speculative worker (SGLang, Dynamo + SGLang; not MoRI's AMD build): its host work in series
  // with the GPU where SGLang runs it so (Hopper's FlashInfer MLA), as validation applies it.
  if (w.mtp_draft_tokens > 0) {
    const std::string name = engine_params(catalog, req.engine).name;
    if (name == "sglang" || name == "dynamo+sglang")
      apply_sglang_mtp_host(catalog, hw.accelerator.generation, /*spec_v1=*/false, w);
  }
  // A format the chip lacks runs as the frameworks run it (weights stored narrow, math wider): said.
  const std::string fallback = serving_fallback_note(hw.accelerator, w.weight_precision);
  const std::string math = std::string(to_string(executed_format(hw.accelerator, gemm_format(w.weight_precision))));
  // The Triton kernel is a path of block-scaled FP8 GEMMs only: asked for where none run (FP4 or BF16
  // weights, per-tensor FP8 scales, a chip without FP8 math) it would change nothing, so it is refused.
  for (const auto& [option, value] : {std::pair{"--fp8-gemm-backend", req.fp8_gemm_backend},
                                      std::pair{"--prefill-fp8-gemm-backend", req.prefill_fp8_gemm_backend}}) {
    if (value.empty() || value == "auto") continue;
    if (value != "triton") throw InputError(option, fmt::format("must be auto or triton, got '{}'", value));
    const int block = w.fp8_weight_block >= 0 ? w.fp8_weight_block : model.fp8_weight_block;
    if (w.weight_precision != Precision::fp8 || block <= 0 || math != "fp8")
      throw InputError(option, fmt::format("triton applies to block-scaled FP8 GEMMs (--precision fp8 with a "
                                           "block-scaled checkpoint such as DeepSeek-R1's, or --fp8-weight-block "
                                           "128, on a chip with FP8 math); got {} weights{}, {} math",
                                           to_string(w.weight_precision), block <= 0 ? " with per-tensor scales" : "",
                                           math));
  }

  if (req.disagg) {
    if (req.sweep || req.tp || req.ep || req.gpus || req.pp != 1 || req.attention_dp)
      throw InputError("--disagg", "describes its pools with --prefill-*/--decode-*; drop --sweep/--tp/--ep/--gpus/--pp/"
                                   "--attention-dp");
    if (tpot_limit_s > 0 || ttft_limit_s > 0)
      throw InputError("--disagg", "evaluates a given --concurrency; latency limits apply to aggregated runs");
    DisaggregatedDeployment d;
    d.prefill = pool_parallel(model, req.prefill_tp, req.prefill_ep, req.prefill_attn_dp, req.tbo, "prefill");
    d.decode = pool_parallel(model, req.decode_tp, req.decode_ep, req.decode_attn_dp, req.tbo, "decode");
    d.prefill_gpus = req.prefill_gpus > 0 ? req.prefill_gpus : d.prefill.tp;
    d.decode_gpus = req.decode_gpus > 0 ? req.decode_gpus : d.decode.tp;
    d.decode_max_batch = req.decode_max_batch;  // range-checked by evaluate_disaggregated (--decode-max-batch)
    d.prefill_max_batch = req.prefill_max_batch;    // likewise (--prefill-max-batch)
    d.prefill_max_tokens = req.prefill_max_tokens;  // likewise (--prefill-max-tokens)
    d.prefill_fp8_block_gemm_triton = req.prefill_fp8_gemm_backend.empty() ? w.fp8_block_gemm_triton
                                                                            : req.prefill_fp8_gemm_backend == "triton";
    w.concurrency = req.concurrency;
    const InferenceResult r = evaluate_disaggregated(model, hw, d, w);
    for (const auto& v : r.violations)
      if (v.code == "memory.exceeds_capacity")
        throw InputError("--decode-tp", v.message + "; widen the pools or lower --precision");
    if (output.json()) {
      auto j = infer_result_json(r);
      j["mode"] = "disaggregated";
      j["model"] = model.name;
      j["system"] = hw.system_name;
      j["accelerator"] = hw.accelerator.name;
      j["gpus"] = d.prefill_gpus + d.decode_gpus;
      j["isl"] = req.isl;
      j["osl"] = req.osl;
      j["precision"] = std::string(to_string(w.weight_precision));
      j["prefill_parallel"] = infer_parallel_json(d.prefill);
      j["decode_parallel"] = infer_parallel_json(d.decode);
      j["decode_max_batch"] = d.decode_max_batch;
      j["prefill_max_batch"] = d.prefill_max_batch;
      j["prefill_max_tokens"] = d.prefill_max_tokens;
      j["fp8_gemm_backend"] = w.fp8_block_gemm_triton ? "triton" : "auto";
      j["prefill_fp8_gemm_backend"] = d.prefill_fp8_block_gemm_triton ? "triton" : "auto";
      j["mtp_draft_tokens"] = w.mtp_draft_tokens;
      j["request_overhead_s"] = w.request_overhead_s;
      j["band"] = serving_bands_json(catalog, hw, r, true);  // the disaggregated kinds' held-out bands
      output.emit("infer", std::move(j));
      return kExitOk;
    }
    output.os() << fmt::format("{} on {} x {} ({}), disaggregated: prefill {} x ({}) on {} GPUs, decode {} x ({}) "
                             "on {} GPUs, ISL {} / OSL {}{}\n",
                             model.display_name.empty() ? model.name : model.display_name,
                             d.prefill_gpus + d.decode_gpus, hw.accelerator.name, hw.system_name,
                             d.prefill_gpus / d.prefill.tp, infer_plan_text(d.prefill), d.prefill_gpus,
                             d.decode_gpus / d.decode.tp, infer_plan_text(d.decode), d.decode_gpus, req.isl, req.osl,
                             w.mtp_draft_tokens ? fmt::format(", MTP {} drafts ({:.2f} tokens/step)",
                                                              w.mtp_draft_tokens, r.tokens_per_step)
                                                : std::string());
    if (d.prefill_fp8_block_gemm_triton || w.fp8_block_gemm_triton)
      output.os() << fmt::format("  dense block-FP8 GEMMs on SGLang's Triton kernel: {}\n",
                                 d.prefill_fp8_block_gemm_triton && w.fp8_block_gemm_triton ? "both pools"
                                 : d.prefill_fp8_block_gemm_triton                         ? "prefill pool"
                                                                                           : "decode pool");
    output.os() << fmt::format("  concurrency        {:>10}   (decode pool holds {}{})\n", r.concurrency,
                             r.max_concurrency,
                             d.decode_max_batch > 0 ? fmt::format(", at most {} per rank", d.decode_max_batch)
                                                    : std::string(": its KV cache"));
    output.os() << fmt::format("  tokens/s total     {:>10.0f}\n", r.tokens_per_s_total);
    output.os() << fmt::format("  tokens/s per GPU   {:>10.1f}   (all {} GPUs)\n", r.tokens_per_s_per_gpu,
                             d.prefill_gpus + d.decode_gpus);
    output.os() << fmt::format("  tokens/s per user  {:>10.1f}\n", r.tokens_per_s_per_user);
    output.os() << fmt::format(
        "  TTFT               {:>10.1f} ms (front end {:.1f}, prefill {:.1f}, KV transfer {:.2f}{}, first step {:.1f}, "
        "queue {:.1f} ms)\n",
        r.ttft_s * 1e3, w.request_overhead_s * 1e3, r.prefill_s * 1e3, r.kv_transfer_s * 1e3,
        r.receive_wait_s > 0 ? fmt::format(", decode receive interval {:.1f}", r.receive_wait_s * 1e3) : std::string(),
        r.decode_step.total_s * 1e3, r.queue_wait_s * 1e3);
    if (r.ttft_median_s > 0)
      output.os() << fmt::format("  TTFT median        {:>10.1f} ms (the run's median request{})\n", r.ttft_median_s * 1e3,
                                 r.concurrency > r.max_concurrency ? ": replayed, clients beyond the decode slots" : "");
    if (r.ttft_p99_s > 0)
      output.os() << fmt::format("  TTFT p99           {:>10.1f} ms (the opening wave: every client's first prompt at once)\n",
                                 r.ttft_p99_s * 1e3);
    output.os() << fmt::format("  TPOT               {:>10.2f} ms\n", r.tpot_s * 1e3);
    output.os() << fmt::format("  prefill pool load  {:>10.0f} %{}\n", r.prefill_utilization * 100,
                             d.prefill_max_batch > 0 || d.prefill_max_tokens > 0
                                 ? fmt::format("   ({}{}{} per prefill rank)",
                                               d.prefill_max_batch > 0
                                                   ? fmt::format("at most {} requests held through the KV hand-off",
                                                                 d.prefill_max_batch)
                                                   : std::string(),
                                               d.prefill_max_batch > 0 && d.prefill_max_tokens > 0 ? ", " : "",
                                               d.prefill_max_tokens > 0
                                                   ? fmt::format("{} prompt tokens a step", d.prefill_max_tokens)
                                                   : std::string())
                                 : std::string());
    output.os() << decode_step_text("Decode-pool step", r.decode_step);
    output.os() << serving_bands_text(catalog, hw, r, true);
    for (const auto& v : r.violations) output.os() << "Note: " << v.message << "\n";
    return kExitOk;
  }
  if (req.sweep) {
    if (req.tp || req.ep || req.concurrency)
      throw InputError("--sweep", "explores tp, ep and concurrency itself; drop --tp/--ep/--concurrency");
    // Without --gpus: the system's unit (one HGX node, one NVL72 rack), or the fewest units (2, 4, 8)
    // on which the model has a frontier, with pipeline stages up to 8 beyond one unit unless --max-pp
    // says otherwise: the serving setup of compare, cost, recommend and site (compare/operating_point.h).
    const System* unit_system = catalog.find_system(req.system);
    const int unit = req.gpus > 0 ? req.gpus
                                  : unit_system ? unit_system->gpus_per_unit() : std::min(8, hw.fabric.domain_gpus);
    SweepOptions so{ttft_limit_s, tpot_limit_s, req.max_pp};
    so.mtp = so.disaggregated = model.is_moe() && !req.aggregated_only;
    const compare::ScaledCurve sc = compare::serving_curve_scaled(
        model, hw, w, unit, 0, so, req.given("--max-pp") ? req.max_pp : 8, 1, req.gpus > 0 ? 1 : 8);
    const compare::ServingCurve& s = sc.curve;
    const int units = sc.gpus / unit;
    w.num_gpus = sc.gpus;
    const std::string where = req.gpus > 0 ? fmt::format("{} GPUs", w.num_gpus)
                                           : fmt::format("{} GPUs ({} units)", w.num_gpus, units);
    const std::string why_empty =
        !s.frontier.empty() ? std::string()
        : ttft_limit_s > 0 || tpot_limit_s > 0
            ? fmt::format("no plan on {} fits in memory and meets the TTFT/TPOT limits", where)
            : fmt::format("no plan fits in memory on {}{}", where, req.gpus > 0 ? " (give more --gpus)" : "");
    if (output.json()) {
      nlohmann::json pts = nlohmann::json::array();
      for (const auto& p : s.frontier) {
        auto j = infer_result_json(p.result);
        j["parallel"] = infer_parallel_json(p.parallel);
        j["kind"] = p.kind();
        j["plan"] = p.plan();
        j["mtp_draft_tokens"] = p.mtp_draft_tokens;
        if (p.disaggregated) {
          j["prefill_parallel"] = infer_parallel_json(p.disagg.prefill);
          j["prefill_gpus"] = p.disagg.prefill_gpus;
          j["decode_gpus"] = p.disagg.decode_gpus;
        }
        j["band"] = serving_bands_json(catalog, hw, p.result, p.disaggregated);
        pts.push_back(j);
      }
      output.emit("infer", {{"mode", "sweep"}, {"model", model.name}, {"system", hw.system_name},
                           {"gpus", w.num_gpus}, {"isl", req.isl}, {"osl", req.osl},
                           {"precision", std::string(to_string(w.weight_precision))},
                           {"ttft_limit_s", ttft_limit_s}, {"tpot_limit_s", tpot_limit_s},
                           {"math_format", math}, {"precision_note", fallback},
                           {"evaluated", s.evaluated}, {"feasible", s.feasible}, {"frontier", pts},
                           {"units", req.gpus > 0 ? nlohmann::json(nullptr) : nlohmann::json(units)},
                           {"why_empty", why_empty}});
      return kExitOk;
    }
    output.os() << fmt::format("{} on {} x {} ({}), ISL {} / OSL {}, {}: {} points evaluated, {} feasible\n",
                             model.display_name.empty() ? model.name : model.display_name, w.num_gpus,
                             hw.accelerator.name, hw.system_name, req.isl, req.osl, to_string(w.weight_precision),
                             s.evaluated, s.feasible);
    if (!fallback.empty()) output.os() << "Note: " << fallback << "\n";
    if (req.gpus <= 0 && units > 1 && !s.frontier.empty())
      output.os() << fmt::format("Note: the model has no plan on one {}-GPU unit of {}; swept on {} units\n", unit,
                                 hw.system_name, units);
    if (!why_empty.empty()) {
      output.os() << "No frontier: " << why_empty << "\n";
      return kExitOk;
    }
    output.os() << "Pareto frontier (throughput per GPU against tokens/s per user):\n";
    output.os() << fmt::format("  {:<24} {:<62} {:>11} {:>12} {:>12} {:>10} {:>10}\n", "kind", "plan", "concurrency",
                             "tok/s/user", "tok/s/GPU", "TTFT ms", "TPOT ms");
    for (const auto& p : s.frontier)
      output.os() << fmt::format("  {:<24} {:<62} {:>11} {:>12.1f} {:>12.1f} {:>10.1f} {:>10.2f}\n", p.kind(), p.plan(),
                               p.concurrency, p.result.tokens_per_s_per_user, p.result.tokens_per_s_per_gpu,
                               p.result.ttft_s * 1e3, p.result.tpot_s * 1e3);
    // Which kind of deployment wins where along the curve: runs of the frontier by kind.
    output.os() << "Along the curve (tokens/s per user, low to high):\n";
    for (size_t i = 0; i < s.frontier.size();) {
      size_t j = i;
      while (j + 1 < s.frontier.size() && s.frontier[j + 1].kind() == s.frontier[i].kind()) ++j;
      output.os() << fmt::format("  {:>8.1f} .. {:>8.1f} tok/s/user: {}\n", s.frontier[i].result.tokens_per_s_per_user,
                               s.frontier[j].result.tokens_per_s_per_user, s.frontier[i].kind());
      i = j + 1;
    }
    if (!s.frontier.empty()) {
      bool any_disagg = false;
      for (const auto& p : s.frontier) any_disagg |= p.disaggregated;
      for (bool d : {false, true}) {
        if (d && !any_disagg) continue;
        const auto band = [&](ServingFigure f) {
          return with_band(1.0, find_band(catalog.error_bands(), serving_band_kind(d, f), hw.accelerator.generation));
        };
        output.os() << fmt::format("Error bands at every {} point: tokens/s/GPU {}; TPOT {}; TTFT {}\n",
                                 d ? "disaggregated" : "aggregated", band_text(band(ServingFigure::throughput)),
                                 band_text(band(ServingFigure::tpot)), band_text(band(ServingFigure::ttft)));
      }
    }
    return kExitOk;
  }

  InferenceParallel par;
  par.pp = req.pp;
  par.attention_dp = req.attention_dp;
  par.two_batch_overlap = req.tbo;
  std::string chosen;
  std::optional<InferenceResult> probed;  // the last TP probe's result (below)
  if (req.tp > 0) {
    par.tp = req.tp;
  } else if (req.gpus > 0 && req.ep == 0 && !req.attention_dp) {
    // The split of the given GPUs with the most tokens/s per GPU at the requested load: TP over
    // the valid widths dividing the GPUs, EP 1 or the width, attention-DP off/on (MoE).
    w.num_gpus = req.gpus;
    w.concurrency = req.concurrency;
    double best = -1;
    int tried = 0;
    for (int t : valid_inference_tp(model, std::max(1, req.gpus / req.pp))) {
      if (req.gpus % (t * req.pp)) continue;
      for (int e : model.is_moe() ? std::vector<int>{t, 1} : std::vector<int>{1}) {
        if (model.is_moe() && model.moe.num_experts % e) continue;
        for (bool adp : model.is_moe() && t > 1 ? std::vector<bool>{false, true} : std::vector<bool>{false}) {
          InferenceParallel c = par;
          c.tp = t, c.ep = e, c.attention_dp = adp;
          try {
            const InferenceResult x = (tpot_limit_s > 0 || ttft_limit_s > 0)
                                          ? evaluate_under_limits(model, hw, c, w, ttft_limit_s, tpot_limit_s)
                                          : evaluate_inference(model, hw, c, w);
            ++tried;
            if (!x.valid() && !(x.violations.size() == 1 && x.violations[0].code == "memory.kv_full")) continue;
            if (x.tokens_per_s_per_gpu > best) best = x.tokens_per_s_per_gpu, par = c;
          } catch (const InputError&) {
          }
        }
      }
    }
    if (best < 0) par.tp = req.gpus / req.pp, par.ep = model.is_moe() ? par.tp : 1;
    chosen = fmt::format("chosen: {} (most tokens/s per GPU of {} splits; fix it with --tp/--ep/--attention-dp)",
                         infer_plan_text(par), tried);
    req.ep = par.ep;
  } else if (req.gpus > 0) {
    par.tp = req.gpus / req.pp;
  } else {
    // The smallest valid TP whose weights leave room for the KV cache.
    par.tp = 1;
    for (int t : valid_inference_tp(model, std::max(1, hw.fabric.domain_gpus))) {
      par.tp = t;
      par.ep = model.is_moe() ? t : 1;
      InferenceWorkload probe = w;
      probe.num_gpus = t * req.pp;
      probe.concurrency = 0;
      probed = evaluate_inference(model, hw, par, probe);
      if (probed->max_concurrency >= 8 * std::max(1, t)) break;
    }
    chosen = fmt::format("chosen: {} (the smallest TP whose KV cache holds 8 sequences per GPU; fix it with --tp, "
                         "or give --gpus for the best split)", infer_plan_text(par));
  }
  par.ep = req.ep > 0 ? req.ep : (model.is_moe() ? par.tp : 1);
  if (req.ep > par.tp && model.is_moe() && req.tp > 0) {
    // EP wider than TP: the worker spans ep GPUs, attention data-parallel over them.
    par.tp = req.ep;
    par.attention_dp = true;
  }
  // The plan's attention-DP (given, implied by an --ep wider than --tp, or chosen) decides which of
  // TensorRT-LLM's holds applies: the balancer with it, batch waiting without.
  const std::string plan_said = chosen.empty() ? "the plan" : chosen;
  if (w.batch_wait_iters > 0 && par.attention_dp)
    throw InputError("--batch-wait-iters", fmt::format("TensorRT-LLM waits only without attention-DP (its balancer is "
                                                       "--adp-balance-timeout-iters), and {} runs it; fix the plan "
                                                       "with --tp/--ep", plan_said));
  if (w.adp_balance_timeout_iters > 0 && !par.attention_dp)
    throw InputError("--adp-balance-timeout-iters",
                     fmt::format("balances attention-DP ranks, and {} runs none: add --attention-dp (or an --ep wider "
                                 "than --tp)", plan_said));
  w.num_gpus = req.gpus > 0 ? req.gpus : par.tp * par.pp;
  w.concurrency = req.concurrency;
  // The last probe evaluated this very point when nothing the probe left out was given (a load, a
  // latency limit, an EP): the same plan, GPUs and workload, so its result is the point's.
  const bool probed_this = probed && req.concurrency == 0 && req.ep == 0 && tpot_limit_s == 0 && ttft_limit_s == 0;
  const InferenceResult r = probed_this ? std::move(*probed)
                            : (tpot_limit_s > 0 || ttft_limit_s > 0)
                                ? evaluate_under_limits(model, hw, par, w, ttft_limit_s, tpot_limit_s)
                                : evaluate_inference(model, hw, par, w);
  bool hard = false;
  for (const auto& v : r.violations) hard = hard || v.code == "memory.exceeds_capacity";
  if (hard) throw InputError("--tp", r.violations.front().message + "; raise --tp/--ep or lower --precision");
  if (output.json()) {
    auto j = infer_result_json(r);
    auto& o = j.get_ref<nlohmann::json::object_t&>();
    o.emplace("mode", "point");
    o.emplace("model", model.name);
    o.emplace("system", hw.system_name);
    o.emplace("accelerator", hw.accelerator.name);
    o.emplace("gpus", w.num_gpus);
    o.emplace("isl", req.isl);
    o.emplace("osl", req.osl);
    o.emplace("precision", to_string(w.weight_precision));
    o.emplace("kv_bytes_per_element", w.kv_bytes_per_element);
    o.emplace("max_batch_size", w.max_batch_size);
    o.emplace("math_format", math);
    o.emplace("precision_note", fallback);
    o.emplace("fp8_gemm_backend", w.fp8_block_gemm_triton ? "triton" : "auto");
    o.emplace("arrival", to_string(w.arrival));
    o.emplace("parallel", infer_parallel_json(par));
    o.emplace("parallel_chosen", std::move(chosen));
    o.emplace("mtp_draft_tokens", w.mtp_draft_tokens);
    o.emplace("band", serving_bands_json(catalog, hw, r));
    output.emit("infer", std::move(j));
    return kExitOk;
  }
  output.os() << fmt::format("{} on {} x {} ({}), {}, {}, ISL {} / OSL {}, {} arrivals\n",
                           model.display_name.empty() ? model.name : model.display_name, w.num_gpus,
                           hw.accelerator.name, hw.system_name, infer_plan_text(par), to_string(w.weight_precision),
                           req.isl, req.osl, to_string(w.arrival));
  if (!fallback.empty()) output.os() << "Note: " << fallback << "\n";
  if (w.fp8_block_gemm_triton) output.os() << "  dense block-FP8 GEMMs on SGLang's Triton kernel\n";
  if (!chosen.empty()) output.os() << "  " << chosen << "\n";
  if (w.mtp_draft_tokens > 0)
    output.os() << fmt::format("  MTP: {} draft tokens, {:.2f} tokens per step\n", w.mtp_draft_tokens, r.tokens_per_step);
  output.os() << fmt::format("  concurrency        {:>10}   (KV cache holds {})\n", r.concurrency, r.max_concurrency);
  output.os() << fmt::format("  tokens/s total     {:>10.0f}\n", r.tokens_per_s_total);
  output.os() << fmt::format("  tokens/s per GPU   {:>10.1f}\n", r.tokens_per_s_per_gpu);
  output.os() << fmt::format("  tokens/s per user  {:>10.1f}\n", r.tokens_per_s_per_user);
  output.os() << fmt::format("  TTFT               {:>10.1f} ms{}\n", r.ttft_s * 1e3,
                             r.ttft_median_s > 0 ? " (mean, the opening wave included)" : "");
  if (r.receive_wait_s > 0)
    output.os() << fmt::format("    of which receive interval {:.1f} ms (new requests taken in every {} decode steps)\n",
                               r.receive_wait_s * 1e3, w.scheduler_recv_interval);
  if (r.batch_wait_s > 0)
    output.os() << fmt::format("    of which batch waiting {:.1f} ms (context requests held up to {} iterations or "
                               "{:g} x {} tokens a step, then prefilled together)\n",
                               r.batch_wait_s * 1e3, w.batch_wait_iters, w.batch_wait_tokens_ratio, w.max_num_tokens);
  if (r.queue_wait_s > 0)
    output.os() << fmt::format("    of which queueing{:>10.1f} ms (more requests than the KV cache holds)\n",
                             r.queue_wait_s * 1e3);
  if (r.ttft_median_s > 0)
    output.os() << fmt::format("  TTFT median        {:>10.1f} ms (the run's median request: a steady-state one)\n",
                               r.ttft_median_s * 1e3);
  output.os() << fmt::format("  TPOT               {:>10.2f} ms\n", r.tpot_s * 1e3);
  output.os() << fmt::format("  end-to-end         {:>10.2f} s\n", r.e2e_latency_s);
  output.os() << decode_step_text("Decode step", r.decode_step);
  for (const auto& v : r.violations) output.os() << "Note: " << v.message << "\n";
  output.os() << serving_bands_text(catalog, hw, r);
  return kExitOk;
}


}  // namespace gpuplan::api
