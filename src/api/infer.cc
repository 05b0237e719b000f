// gpuplan infer: serving performance of a model on a system: throughput per GPU and per user, TTFT,
// TPOT; or, with --sweep, the Pareto frontier over TP/EP/attention-DP and concurrency.
#include <fmt/format.h>

#include <iostream>
#include <limits>
#include <optional>
#include <tuple>

#include "api/api.h"
#include "api/band_json.h"
#include "api/infer.h"
#include "api/infer_chosen.h"
#include "api/infer_json.h"
#include "api/infer_open_loop_point.h"
#include "api/infer_recipe.h"
#include "api/mode_options.h"
#include "api/serving_engine.h"
#include "api/sorted_object.h"
#include "api/text.h"
#include "api/fabric_options.h"
#include "compare/operating_point.h"
#include "core/error.h"
#include "inference/chooser.h"
#include "inference/disaggregated.h"
#include "inference/engine.h"
#include "inference/inference.h"
#include "inference/request_rate.h"
#include "inference/serving_scenario.h"
#include "inference/speculative.h"
#include "inference/sweep.h"
#include "memory/inference_memory.h"
#include "model/model_registry.h"
#include "physics/compute.h"
#include "physics/hardware.h"

namespace gpuplan::api {

namespace {

// A disaggregated pool's TP and EP checked as the memory model checks an instance's, the error naming
// the pool's option (--prefill-tp, --decode-ep) rather than the aggregated --tp/--ep.
void check_pool_widths(const ModelArch& model, const InferenceParallel& p, const char* side) {
  InferenceMemoryInput in;
  in.tp = p.attention_dp ? 1 : p.tp;  // attention-DP: attention replicated, a worker wider than the heads is fine
  in.ep = p.ep;
  try {
    (void)inference_memory(model, in);
  } catch (const InputError& e) {
    if (e.field() != "--tp" && e.field() != "--ep") throw;
    const std::string what = e.what();
    throw InputError(fmt::format("--{}-{}", side, e.field().substr(2)), what.substr(e.field().size() + 2));
  }
}

}  // namespace

ServingScenario infer_scenario(const Catalog& catalog, const InferRequest& req, const ModelArch& model,
                               const Hardware& hw, const InferenceWorkload& w) {
  ServingScenario s;
  s.model = model;
  s.hw = hw;
  s.system = req.system;
  const System* sys = catalog.find_system(req.system);
  s.unit_gpus = sys ? sys->gpus_per_unit() : std::min(8, hw.fabric.domain_gpus);
  s.workload = w;
  s.engine = req.engine;
  s.traffic.isl = w.isl;
  s.traffic.osl = w.osl;
  s.traffic.ttft_limit_s = 0;
  s.traffic.ttft_basis = "none (stated)";
  s.provenance = "infer";
  return s;
}

int infer(const Catalog& catalog, InferRequest req, Output& output, const Session* session) {
  if (!req.recipe.empty()) return infer_recipe(catalog, std::move(req), output, session);
  if (!req.as_of.empty()) throw InputError("--as-of", "applies with --recipe NAME");
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
  // 0 is what these options hold when not given ("the default"); given, it is no count and no limit.
  for (const auto& [name, value] : {std::pair<const char*, double>{"--gpus", req.gpus}, {"--tp", req.tp}, {"--ep", req.ep},
                                    {"--concurrency", double(req.concurrency)}, {"--tpot-ms", req.tpot_ms},
                                    {"--tokens-per-user-per-s", req.tokens_per_user}})
    if (value == 0 && req.given(name))
      throw InputError(name, std::string(name) == "--tpot-ms" || std::string(name) == "--tokens-per-user-per-s"
                                 ? "must be more than 0, got 0 (leave it out for no target)"
                                 : "must be 1 or more, got 0 (leave it out for the default)");
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
  if (req.given("--requests-per-client") && w.arrival != Arrival::closed_loop)
    throw InputError("--requests-per-client", "applies to --arrival closed_loop (clients resending)");
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
  if (!req.engine.empty()) apply_serving_engine(catalog, req.engine, w);
  if (!req.engine_release.empty()) {
    if (req.engine.empty()) throw InputError("--engine-release", "applies with --engine");
    apply_engine_release(catalog, req.engine, req.engine_release, w);
  }
  if (req.host_per_seq_step_us) {
    if (!(*req.host_per_seq_step_us >= 0 && *req.host_per_seq_step_us <= 100000))
      throw InputError("--host-per-seq-step-us", fmt::format("must be 0 to 100000, got {}", *req.host_per_seq_step_us));
    w.host_per_seq_step_s = *req.host_per_seq_step_us / 1e6;
  }
  if (req.moe_gemm_share) {
    if (!(*req.moe_gemm_share > 0 && *req.moe_gemm_share <= 1))
      throw InputError("--moe-gemm-share", fmt::format("must be above 0 and at most 1, got {}", *req.moe_gemm_share));
    w.moe_gemm_eff = *req.moe_gemm_share;
  }
  if (!req.prefill_separate.empty()) {
    if (req.prefill_separate != "on" && req.prefill_separate != "off")
      throw InputError("--prefill-separate", fmt::format("must be on or off, got '{}'", req.prefill_separate));
    w.prefill_separate = req.prefill_separate == "on";
  }
  if (!req.kv_admission.empty()) {
    const auto a = parse_kv_admission(req.kv_admission);
    if (!a)
      throw InputError("--kv-admission",
                       fmt::format("must be reserve_full or current_length, got '{}'", req.kv_admission));
    w.kv_admission = *a;
  }
  if (!req.attention_dp_dense.empty()) {
    if (req.attention_dp_dense != "replicated" && req.attention_dp_dense != "tensor_parallel")
      throw InputError("--attention-dp-dense",
                       fmt::format("must be replicated or tensor_parallel, got '{}'", req.attention_dp_dense));
    w.attention_dp_dense_replicated = req.attention_dp_dense == "replicated";
  }
  if (!req.attention_dp_moe_exchange.empty()) {
    const auto x = parse_moe_exchange(req.attention_dp_moe_exchange);
    if (!x)
      throw InputError("--attention-dp-moe-exchange",
                       fmt::format("must be all_to_all, all_gather or all_gather_unless_mnnvl, got '{}'",
                                   req.attention_dp_moe_exchange));
    w.attention_dp_moe_exchange = *x;
  }
  if (!req.window_kv.empty()) {
    if (req.window_kv != "whole_context" && req.window_kv != "window")
      throw InputError("--window-kv", fmt::format("must be whole_context or window, got '{}'", req.window_kv));
    w.window_kv_whole = req.window_kv == "whole_context";
  }
  if (!req.kv_pool.empty()) {
    const auto r = parse_kv_pool_rule(req.kv_pool);
    if (!r)
      throw InputError("--kv-pool", fmt::format("must be free_share, whole_share or sglang, got '{}'", req.kv_pool));
    w.kv_pool = *r;
  }
  if (req.fp8_moe_weight_block) {
    if (*req.fp8_moe_weight_block < 0 || *req.fp8_moe_weight_block > 4096)
      throw InputError("--fp8-moe-weight-block",
                       fmt::format("must be 0 (per-tensor scales) to 4096, got {}", *req.fp8_moe_weight_block));
    w.fp8_moe_weight_block = *req.fp8_moe_weight_block;
  }
  double request_rate_qps = 0;
  if (!req.request_rate.empty()) {
    if (req.request_rate == "inf") {
      request_rate_qps = std::numeric_limits<double>::infinity();
    } else {
      try {
        size_t used = 0;
        request_rate_qps = std::stod(req.request_rate, &used);
        if (used != req.request_rate.size()) request_rate_qps = -1;
      } catch (const std::exception&) {
        request_rate_qps = -1;
      }
      if (!(request_rate_qps >= 0.001 && request_rate_qps <= 1e6))
        throw InputError("--request-rate", fmt::format("must be 0.001 to 1e6 requests/s or inf, got '{}'", req.request_rate));
    }
    if (req.concurrency > 0 || req.tpot_ms > 0 || req.tokens_per_user > 0 || req.ttft_ms > 0 || req.sweep || req.disagg)
      throw InputError("--request-rate", "sets the load itself: not with --concurrency, latency targets, --sweep or --disagg");
  }
  if (req.requests_in_run < 0 || req.requests_in_run > 10000000)
    throw InputError("--requests-in-run", fmt::format("must be 0 to 10000000, got {}", req.requests_in_run));
  if (req.requests_in_run > 0 && req.request_rate.empty())
    throw InputError("--requests-in-run", "applies with --request-rate");
  if (req.request_overhead_ms) {
    if (!(*req.request_overhead_ms >= 0 && *req.request_overhead_ms <= 60000))
      throw InputError("--request-overhead-ms", fmt::format("must be 0 to 60000, got {}", *req.request_overhead_ms));
    w.request_overhead_s = *req.request_overhead_ms / 1e3;
  }
  // Any pool option given (whatever its value, 0 included) needs --disagg; the error names it.
  for (const char* o : {"--prefill-gpus", "--prefill-tp", "--prefill-ep", "--prefill-attn-dp", "--decode-gpus",
                        "--decode-tp", "--decode-ep", "--decode-attn-dp", "--decode-max-batch",
                        "--prefill-max-batch", "--prefill-max-tokens", "--prefill-fp8-gemm-backend",
                        "--prefill-two-batch-overlap", "--decode-two-batch-overlap"})
    if (!req.disagg && req.given(o))
      throw InputError(o, "describes a disaggregated deployment (the --prefill-*/--decode-* options); add --disagg");
  w.max_num_tokens = req.max_num_tokens;
  w.max_batch_size = req.max_batch;
  w.mem_fraction_static = req.mem_fraction_static;  // range checked with the workload
  w.kv_mem_fraction = req.kv_mem_fraction;          // likewise
  apply_long_context(req.long_context, w);  // --prefix-hit, --kv-offload: as compare, recommend and size read them
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
  // The mean-TTFT limit: as given; else, where a load is chosen (a target speed, --sweep), the default
  // by ISL (default_ttft_limit_s: MLPerf's Server limits); else none (a stated plan and load).
  const double ttft_stated_s = req.given("--ttft-ms") ? req.ttft_ms / 1e3 : -1;
  const bool chooses_load = tpot_limit_s > 0 || req.sweep;
  const double ttft_limit_s = chooses_load ? resolve_ttft_limit_s(ttft_stated_s, req.isl) : req.ttft_ms / 1e3;

  ModelArch model = resolve_model(req.model_name, "--model");
  if (!model.is_moe())
    refuse_ignored_options(req, {"--expert-skew", "--moe-gemm-share", "--fp8-moe-weight-block", "--two-batch-overlap",
                                 "--attention-dp-dense", "--attention-dp-moe-exchange"},
                           fmt::format("applies to mixture-of-experts models ({} has no experts)", model.name));
  if (model.window_layers() == 0 || model.chunked_window)
    refuse_ignored_options(req, {"--window-kv"},
                           fmt::format("applies to models with a sliding window ({} has none)", model.name));
  if (model.window_layers() == 0)
    refuse_ignored_options(req, {"--full-attention-window"},
                           fmt::format("applies to models with a sliding or chunked window ({} has none)", model.name));
  // --aggregated-only narrows a search of deployments: the sweep's, or the chooser's (a target speed with the
  // deployment left open); a stated deployment searches nothing.
  const bool chooses_deployment =
      tpot_limit_s > 0 && !req.tp && !req.ep && !req.attention_dp && !req.given("--pp") && !req.tbo;
  if (req.aggregated_only && (req.disagg || (!req.sweep && !chooses_deployment)))
    throw InputError("--aggregated-only", "applies with --sweep, or with --tpot-ms/--tokens-per-user-per-s and the "
                                          "deployment left open (no --tp/--ep/--pp/--attention-dp/--disagg)");
  if (req.full_attention_window) {
    model.sliding_window = 0;
    model.sliding_window_layers = 0;
    model.chunked_window = false;
  }
  // The session's hardware as it is (a copy costs a tenth of a point's evaluation), unless the fabric
  // options reshape it or the session does not hold this spelling.
  const Hardware* resolved = session ? session->hardware(req.system) : nullptr;
  std::optional<Hardware> shaped;
  if (!resolved || reshapes_fabric(req.fabric_opts)) {
    shaped = resolved ? *resolved : resolve_hardware(catalog, req.system);
    apply_fabric_options(catalog, *shaped, req.gpus > 0 ? req.gpus : shaped->fabric.domain_gpus, req.fabric_opts);
  }
  const Hardware& hw = shaped ? *shaped : *resolved;
  if (const std::string why = engine_refusal(catalog, req.engine, hw); !why.empty()) throw InputError("--engine", why);
  // SGLang's speculative worker (SGLang, Dynamo + SGLang; not MoRI's AMD build): its host work in series
  // with the GPU where SGLang runs it so (Hopper's FlashInfer MLA), as validation applies it.
  if (w.mtp_draft_tokens > 0) {
    const std::string name = engine_params(catalog, req.engine).name;
    if (name == "sglang" || name == "dynamo+sglang")
      apply_sglang_mtp_host(catalog, hw.accelerator.generation, req.sglang_spec_v1, w);
    else if (req.sglang_spec_v1)
      throw InputError("--sglang-spec-v1", fmt::format("applies to --engine sglang or dynamo+sglang, got '{}'", req.engine));
  } else if (req.sglang_spec_v1) {
    throw InputError("--sglang-spec-v1", "applies with --mtp K (K >= 1 draft tokens)");
  }
  // The long-prompt options this model and system cannot take (as compare, recommend and size refuse them).
  check_long_context_model(req.long_context, model);
  if (const LongContextRefusal why = long_context_refusal(req.long_context, hw); !why.empty())
    throw InputError(why.option, why.message);
  // A format the chip lacks runs as the frameworks run it (weights stored narrow, math wider): said.
  const std::string fallback = serving_fallback_note(hw.accelerator, w.weight_precision);
  const std::string math = std::string(to_string(executed_format(hw.accelerator, gemm_format(w.weight_precision))));
  // The FP8 scaling blocks apply to GEMMs that run in FP8: elsewhere they would change nothing, so they are refused.
  if (math != "fp8")
    for (const char* option : {"--fp8-weight-block", "--fp8-moe-weight-block"})
      if (req.given(option))
        throw InputError(option, fmt::format("applies to FP8 GEMMs (--precision fp8 on a chip with FP8 math); got {} "
                                             "weights, {} math",
                                             to_string(w.weight_precision), math));
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
    if (tpot_limit_s > 0 || req.ttft_ms > 0)
      throw InputError("--disagg", "evaluates a given --concurrency; latency limits apply to aggregated runs");
    // A dense model's pools have no experts and no attention-DP: refused as --ep and --attention-dp are.
    for (const auto& [option, ep] :
         {std::pair{"--prefill-ep", req.prefill_ep}, std::pair{"--decode-ep", req.decode_ep}}) {
      if (!model.is_moe() && ep != 1 && (ep != 0 || req.given(option)))
        throw InputError(option, fmt::format("must be 1 for the dense model {}, got {}", model.name, ep));
      if (ep == 0 && req.given(option))
        throw InputError(option, "must be 1 or more, got 0 (leave it out for the default)");
    }
    for (const auto& [option, on] : {std::pair{"--prefill-attn-dp", req.prefill_attn_dp},
                                     std::pair{"--decode-attn-dp", req.decode_attn_dp},
                                     std::pair{"--prefill-two-batch-overlap", req.prefill_tbo},
                                     std::pair{"--decode-two-batch-overlap", req.decode_tbo}})
      if (on && !model.is_moe())
        throw InputError(option, fmt::format("applies to MoE models; {} is dense", model.name));
    DisaggregatedDeployment d;
    d.prefill = pool_parallel(model, req.prefill_tp, req.prefill_ep, req.prefill_attn_dp, req.tbo || req.prefill_tbo,
                              "prefill");
    d.decode = pool_parallel(model, req.decode_tp, req.decode_ep, req.decode_attn_dp, req.tbo || req.decode_tbo, "decode");
    check_pool_widths(model, d.prefill, "prefill");
    check_pool_widths(model, d.decode, "decode");
    // Not given: one worker. Given, any value is the pool's (0 and negatives refused with the allowed ones).
    d.prefill_gpus = req.prefill_gpus != 0 || req.given("--prefill-gpus") ? req.prefill_gpus : d.prefill.tp;
    d.decode_gpus = req.decode_gpus != 0 || req.given("--decode-gpus") ? req.decode_gpus : d.decode.tp;
    for (const auto& [side, gpus, tp] : {std::tuple{"prefill", d.prefill_gpus, d.prefill.tp},
                                         std::tuple{"decode", d.decode_gpus, d.decode.tp}})
      if (gpus < tp || gpus % tp != 0 || gpus > 100000)
        throw InputError(fmt::format("--{}-gpus", side),
                         fmt::format("must be a positive multiple of the {} worker's {} GPUs (up to 100000), got {}",
                                     side, tp, gpus));
    d.decode_max_batch = req.decode_max_batch;  // range-checked by evaluate_disaggregated (--decode-max-batch)
    d.prefill_max_batch = req.prefill_max_batch;    // likewise (--prefill-max-batch)
    d.prefill_max_tokens = req.prefill_max_tokens;  // likewise (--prefill-max-tokens)
    d.prefill_fp8_block_gemm_triton = req.prefill_fp8_gemm_backend.empty() ? w.fp8_block_gemm_triton
                                                                            : req.prefill_fp8_gemm_backend == "triton";
    w.concurrency = req.concurrency;
    ServingDeployment dep;
    dep.disaggregated = true;
    dep.disagg = d;
    dep.parallel = d.decode;
    dep.gpus = d.prefill_gpus + d.decode_gpus;
    dep.mtp_draft_tokens = w.mtp_draft_tokens;
    w.num_gpus = dep.gpus;
    if (req.open_loop)  // --requests-per-s on these pools: the open loop in place of the closed loop
      return infer_open_loop_point(catalog, *req.open_loop,
                                   {infer_scenario(catalog, req, model, hw, w), dep, "", fallback, "--decode-tp"},
                                   output);
    const InferenceResult r = evaluate_scenario(infer_scenario(catalog, req, model, hw, w), dep, w.concurrency);
    // The pool that does not fit names its width (a recipe's pools: infer_recipe names the recipe or the system).
    for (const auto& v : r.violations)
      if (v.code == "memory.exceeds_capacity")
        throw InputError(v.message.starts_with("prefill pool") ? "--prefill-tp" : "--decode-tp",
                         v.message + "; widen the pools or lower --precision");
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
      j["moe_kernel_share"] = w.moe_kernel_share;
      j["mtp_draft_tokens"] = w.mtp_draft_tokens;
      j["request_overhead_s"] = w.request_overhead_s;
      j["band"] = serving_bands_json(catalog, hw, r, true, serving_question(w, model, w.num_gpus, req.engine));
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
    output.os() << serving_bands_text(catalog, hw, r, true, serving_question(w, model, w.num_gpus, req.engine));
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
        : ttft_stated_s > 0 || tpot_limit_s > 0
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
        j["band"] = serving_bands_json(catalog, hw, p.result, p.disaggregated,
                                       serving_question(w, model, p.deployment().gpus, req.engine));
        pts.push_back(j);
      }
      output.emit("infer", {{"mode", "sweep"}, {"model", model.name}, {"system", hw.system_name},
                           {"gpus", w.num_gpus}, {"isl", req.isl}, {"osl", req.osl},
                           {"precision", std::string(to_string(w.weight_precision))},
                           {"ttft_limit_s", ttft_limit_s}, {"ttft_basis", ttft_limit_basis(ttft_stated_s, req.isl)},
                           {"tpot_limit_s", tpot_limit_s},
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
          return with_band(1.0, serving_band(catalog, hw, d, f, serving_question(w, model, w.num_gpus, req.engine)));
        };
        output.os() << fmt::format("Error bands at every {} point: tokens/s/GPU {}; TPOT {}; TTFT {}\n",
                                 d ? "disaggregated" : "aggregated", band_text(band(ServingFigure::throughput)),
                                 band_text(band(ServingFigure::tpot)), band_text(band(ServingFigure::ttft)));
      }
    }
    return kExitOk;
  }

  // A target speed with the deployment left open (no --tp/--ep/--attention-dp/--pp/--concurrency): the
  // operating-point chooser, as compare, cost, recommend and site ask it (on --gpus, or whole units).
  if (chooses_deployment)
    return infer_chosen(catalog, req, model, hw, w, {tpot_limit_s, ttft_stated_s, math, fallback}, output);

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
    if (best < 0) par.tp = req.gpus / req.pp, par.ep = dividing_expert_parallel(model, par.tp, par.tp);
    chosen = fmt::format("chosen: {} (most tokens/s per GPU of {} splits; fix it with --tp/--ep/--attention-dp)",
                         infer_plan_text(par), tried);
    req.ep = par.ep;
  } else if (req.gpus > 0) {
    par.tp = req.gpus / req.pp;
  } else {
    // The smallest valid TP whose weights leave room for the KV cache: within the scale-up domain
    // first, then over as many domains as the chooser spans (a model too large for one node is served
    // over several, as the target mode serves it).
    par.tp = 1;
    const int domain = std::max(1, hw.fabric.domain_gpus);
    const int widest = domain * ChooserOptions{}.max_units;
    for (int t : valid_inference_tp(model, widest)) {
      if (t > domain && t % domain) continue;  // beyond one domain, whole domains only
      par.tp = t;
      par.ep = dividing_expert_parallel(model, t, t);
      InferenceWorkload probe = w;
      probe.num_gpus = t * req.pp;
      probe.concurrency = 0;
      probed = evaluate_inference(model, hw, par, probe);
      if (probed->max_concurrency >= 8 * std::max(1, t)) break;
    }
    chosen = fmt::format("chosen: {} (the smallest TP whose KV cache holds 8 sequences per GPU; fix it with --tp, "
                         "or give --gpus for the best split)", infer_plan_text(par));
  }
  par.ep = req.ep > 0 ? req.ep : dividing_expert_parallel(model, par.tp, par.tp);
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
  if (req.open_loop)  // --requests-per-s on this deployment: the open loop in place of the closed loop
    return infer_open_loop_point(catalog, *req.open_loop,
                                 {infer_scenario(catalog, req, model, hw, w),
                                  {false, par, {}, w.num_gpus, w.mtp_draft_tokens}, chosen, fallback,
                                  req.tp > 0 ? "--tp" : "--gpus"},
                                 output);
  // The last probe evaluated this very point when nothing the probe left out was given (a load, a
  // latency limit, an EP): the same plan, GPUs and workload, so its result is the point's.
  const bool probed_this = probed && req.concurrency == 0 && request_rate_qps == 0 && req.ep == 0 && tpot_limit_s == 0 && ttft_limit_s == 0;
  const InferenceResult r = probed_this ? std::move(*probed)
                            : request_rate_qps > 0
                                ? evaluate_at_request_rate(model, hw, par, w, request_rate_qps, req.requests_in_run)
                            : (tpot_limit_s > 0 || ttft_limit_s > 0)
                                ? evaluate_under_limits(model, hw, par, w, ttft_limit_s, tpot_limit_s)
                                : evaluate_scenario(infer_scenario(catalog, req, model, hw, w),
                                                    {false, par, {}, w.num_gpus, w.mtp_draft_tokens}, w.concurrency);
  bool hard = false;
  for (const auto& v : r.violations) hard = hard || v.code == "memory.exceeds_capacity";
  // A memory share that leaves the weights no room (SGLang's): the share is the setting to raise.
  const std::string& why = hard ? r.violations.front().message : std::string();
  const bool share = why.find("mem_fraction_static") != std::string::npos ||
                     why.find("--mem-fraction-static") != std::string::npos;
  if (hard && share)
    throw InputError(req.mem_fraction_static > 0 ? "--mem-fraction-static" : "--kv-pool",
                     r.violations.front().message + "; raise --mem-fraction-static, --tp/--ep or lower --precision");
  if (hard)
    throw InputError(req.tp > 0 ? "--tp" : req.gpus > 0 ? "--gpus" : "--precision",
                     r.violations.front().message +
                         (req.tp > 0     ? std::string("; raise --tp/--ep or lower --precision")
                          : req.gpus > 0 ? std::string("; raise --gpus or lower --precision")
                                         : fmt::format(" at TP {}, the widest tried without --tp/--gpus; lower --precision",
                                                       par.tp)));
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
    o.emplace("moe_kernel_share", w.moe_kernel_share);
    o.emplace("arrival", to_string(w.arrival));
    o.emplace("parallel", infer_parallel_json(par));
    o.emplace("parallel_chosen", std::move(chosen));
    o.emplace("mtp_draft_tokens", w.mtp_draft_tokens);
    o.emplace("ttft_limit_s", ttft_limit_s);
    o.emplace("band", serving_bands_json(catalog, hw, r, false, serving_question(w, model, w.num_gpus, req.engine)));
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
  output.os() << fmt::format("  KV per user        {:>10.2f} GB per GPU ({} tokens of context)\n",
                             r.memory.kv_bytes_per_sequence / 1e9, kv_held_tokens(w));
  output.os() << fmt::format("  tokens/s total     {:>10.0f}\n", r.tokens_per_s_total);
  output.os() << fmt::format("  tokens/s per GPU   {:>10.1f}\n", r.tokens_per_s_per_gpu);
  output.os() << fmt::format("  tokens/s per user  {:>10.1f}\n", r.tokens_per_s_per_user);
  output.os() << fmt::format("  TTFT               {:>10.1f} ms{}{}\n", r.ttft_s * 1e3,
                             r.ttft_median_s > 0 ? " (mean, the opening wave included)" : "",
                             ttft_limit_s > 0 ? fmt::format(" (limit {:.3g} s)", ttft_limit_s) : "");
  if (w.max_num_tokens > 0 && req.isl > w.max_num_tokens)
    output.os() << fmt::format("    chunked prefill: the prompt in {} chunks of up to {} tokens, {:.1f} ms a chunk\n",
                               (req.isl + w.max_num_tokens - 1) / w.max_num_tokens, w.max_num_tokens,
                               r.prefill_chunk.total_s * 1e3);
  if (r.receive_wait_s > 0)
    output.os() << fmt::format("    of which receive interval {:.1f} ms (new requests taken in every {} decode steps)\n",
                               r.receive_wait_s * 1e3, w.scheduler_recv_interval);
  if (r.prompt_queue_s > 0)
    output.os() << fmt::format("    of which {:.1f} ms behind the prompts ahead (first come first served in the "
                               "token budget the decodes leave)\n",
                               r.prompt_queue_s * 1e3);
  if (r.batch_wait_s > 0)
    output.os() << fmt::format("    of which batch waiting {:.1f} ms (context requests held up to {} iterations or "
                               "{:g} x {} tokens a step, then prefilled together)\n",
                               r.batch_wait_s * 1e3, w.batch_wait_iters, w.batch_wait_tokens_ratio, w.max_num_tokens);
  if (w.prefix_hit_fraction > 0)
    output.os() << fmt::format("    prefill computes {:.0f} of {} prompt tokens (prefix-cache hits {:.0f} %){}\n",
                               prompt_compute_tokens(w), req.isl, w.prefix_hit_fraction * 100,
                               r.prefix_load_s > 0 ? fmt::format(", hits copied from host memory in {:.1f} ms",
                                                                 r.prefix_load_s * 1e3)
                                                   : std::string());
  if (r.queue_wait_s > 0)
    output.os() << fmt::format("    of which queueing{:>10.1f} ms (more requests than the KV cache holds)\n",
                             r.queue_wait_s * 1e3);
  if (r.ttft_median_s > 0)
    output.os() << fmt::format("  TTFT median        {:>10.1f} ms (the run's median request: a steady-state one)\n",
                               r.ttft_median_s * 1e3);
  output.os() << fmt::format("  TPOT               {:>10.2f} ms\n", r.tpot_s * 1e3);
  output.os() << fmt::format("  end-to-end         {:>10.2f} s\n", r.e2e_latency_s);
  output.os() << decode_step_text("Decode step", r.decode_step);
  if (w.moe_kernel_share != 1.0 && model.is_moe())
    output.os() << fmt::format("{} {}: MoE kernels at {:.2f} of the newest release's rate (serving_engines.yaml)\n",
                               req.engine, req.engine_release, w.moe_kernel_share);
  for (const auto& v : r.violations) output.os() << "Note: " << v.message << "\n";
  output.os() << serving_bands_text(catalog, hw, r, false, serving_question(w, model, w.num_gpus, req.engine));
  return kExitOk;
}


}  // namespace gpuplan::api
