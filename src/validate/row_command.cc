#include "validate/row_command.h"

#include <fmt/format.h>

#include <cmath>

#include "inference/engine.h"

namespace gpuplan {

namespace {

// A word as the shell reads it: quoted when it holds anything beyond [A-Za-z0-9._+:/=-].
std::string shell_word(const std::string& s) {
  bool plain = !s.empty();
  for (char ch : s)
    plain = plain && (std::isalnum(static_cast<unsigned char>(ch)) || std::string("._+:/=-,").find(ch) != std::string::npos);
  if (plain) return s;
  std::string q = "'";
  for (char ch : s) q += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
  return q + "'";
}

// A number as the option reads it back: the shortest text that parses to the same double.
std::string num(double v) { return fmt::format("{}", v); }

struct Line {
  std::string s;
  void opt(const char* name, const std::string& value) { s += fmt::format(" {} {}", name, shell_word(value)); }
  void opt(const char* name, double value) { opt(name, num(value)); }
  void opt(const char* name, long long value) { opt(name, std::to_string(value)); }
  void opt(const char* name, int value) { opt(name, std::to_string(value)); }
  void flag(const char* name) { s += std::string(" ") + name; }
};

const char* kv_precision_name(double bytes) { return bytes >= 2.0 ? "bf16" : "fp8"; }

}  // namespace

std::string serving_row_command(const Catalog& catalog, const InferenceCase& c) {
  const InferenceWorkload& w = c.workload;
  Line l;
  l.s = "gpuplan infer";
  l.opt("--model", c.model.name);
  l.opt("--system", c.system);
  l.opt("--precision", std::string(to_string(w.weight_precision)));
  l.opt("--kv-precision", std::string(kv_precision_name(w.kv_bytes_per_element)));
  l.opt("--isl", w.isl);
  l.opt("--osl", w.osl);
  if (c.mode == InferenceMode::disaggregated) {
    const DisaggregatedDeployment& d = c.disagg;
    l.flag("--disagg");
    l.opt("--prefill-gpus", d.prefill_gpus);
    l.opt("--prefill-tp", d.prefill.tp);
    l.opt("--prefill-ep", d.prefill.ep);
    if (d.prefill.attention_dp) l.flag("--prefill-attn-dp");
    l.opt("--decode-gpus", d.decode_gpus);
    l.opt("--decode-tp", d.decode.tp);
    l.opt("--decode-ep", d.decode.ep);
    if (d.decode.attention_dp) l.flag("--decode-attn-dp");
    if (d.decode.two_batch_overlap || d.prefill.two_batch_overlap) l.flag("--two-batch-overlap");
    if (d.decode_max_batch) l.opt("--decode-max-batch", d.decode_max_batch);
    if (d.prefill_max_batch) l.opt("--prefill-max-batch", d.prefill_max_batch);
    if (d.prefill_max_tokens) l.opt("--prefill-max-tokens", d.prefill_max_tokens);
    if (d.prefill_fp8_block_gemm_triton != w.fp8_block_gemm_triton)
      l.opt("--prefill-fp8-gemm-backend", std::string(d.prefill_fp8_block_gemm_triton ? "triton" : "auto"));
  } else {
    l.opt("--gpus", w.num_gpus);
    l.opt("--tp", c.parallel.tp);
    l.opt("--ep", c.parallel.ep);
    if (c.parallel.pp != 1) l.opt("--pp", c.parallel.pp);
    if (c.parallel.attention_dp) l.flag("--attention-dp");
    if (c.parallel.two_batch_overlap) l.flag("--two-batch-overlap");
  }
  if (w.concurrency > 0) l.opt("--concurrency", w.concurrency);
  if (c.mode == InferenceMode::rate) {
    l.opt("--request-rate", std::isfinite(c.request_rate_qps) ? num(c.request_rate_qps) : std::string("inf"));
    if (c.requests_in_run > 0) l.opt("--requests-in-run", c.requests_in_run);
  }
  if (c.mode == InferenceMode::under_limits) {
    l.opt("--ttft-ms", c.ttft_limit_s * 1e3);
    l.opt("--tpot-ms", c.tpot_limit_s * 1e3);
  }
  if (w.max_num_tokens != InferenceWorkload{}.max_num_tokens) l.opt("--max-num-tokens", w.max_num_tokens);
  if (w.max_batch_size != InferenceWorkload{}.max_batch_size) l.opt("--max-batch-size", w.max_batch_size);
  if (w.arrival != Arrival::staggered) l.opt("--arrival", std::string(to_string(w.arrival)));
  if (w.requests_per_client) l.opt("--requests-per-client", w.requests_per_client);
  if (w.length_low_fraction != 1.0) l.opt("--length-low", w.length_low_fraction);
  // The engine: its catalog entry's settings, then the row's own where they differ.
  const EngineParams e = engine_params(catalog, c.engine);
  EngineParams given;  // what infer takes with no --engine
  if (!e.name.empty()) {
    l.opt("--engine", e.name);
    given = e;
  }
  if (w.request_overhead_s != given.request_overhead_s) l.opt("--request-overhead-ms", w.request_overhead_s * 1e3);
  if (w.host_per_seq_step_s != given.host_per_seq_step_s) l.opt("--host-per-seq-step-us", w.host_per_seq_step_s * 1e6);
  if (c.model.is_moe() && w.moe_gemm_eff != given.moe_gemm_eff) l.opt("--moe-gemm-share", w.moe_gemm_eff);
  if (!c.engine_release.empty() && !e.name.empty()) l.opt("--engine-release", c.engine_release);
  if (w.prefill_separate != given.prefill_separate)
    l.opt("--prefill-separate", std::string(w.prefill_separate ? "on" : "off"));
  if (w.kv_admission != given.kv_admission) l.opt("--kv-admission", std::string(to_string(w.kv_admission)));
  if (w.fp8_context_attention) l.opt("--context-attention", std::string("fp8"));
  if (w.mtp_draft_tokens > 0) {
    l.opt("--mtp", w.mtp_draft_tokens);
    if (w.mtp_accept > 0) l.opt("--mtp-accept", w.mtp_accept);
    // SGLang's speculative worker in series with the GPU: infer applies it for the SGLang engines on
    // Hopper (FlashInfer MLA); spec v1 (no overlap scheduler) says it elsewhere.
    if (w.mtp_host_in_series && c.hardware.accelerator.generation != "hopper") l.flag("--sglang-spec-v1");
  }
  if (w.expert_skew != 1.0) l.opt("--expert-skew", w.expert_skew);
  if (w.scheduler_recv_interval != 1) l.opt("--scheduler-recv-interval", w.scheduler_recv_interval);
  if (w.mem_fraction_static > 0) l.opt("--mem-fraction-static", w.mem_fraction_static);
  if (w.kv_mem_fraction != 0.9) l.opt("--kv-mem-fraction", w.kv_mem_fraction);
  if (w.adp_balance_timeout_iters) l.opt("--adp-balance-timeout-iters", w.adp_balance_timeout_iters);
  if (w.batch_wait_iters) {
    l.opt("--batch-wait-iters", w.batch_wait_iters);
    l.opt("--batch-wait-tokens-ratio", w.batch_wait_tokens_ratio);
  }
  if (w.fp8_weight_block >= 0) l.opt("--fp8-weight-block", w.fp8_weight_block);
  if (w.fp8_moe_weight_block != w.fp8_weight_block) l.opt("--fp8-moe-weight-block", w.fp8_moe_weight_block);
  if (w.fp8_block_gemm_triton) l.opt("--fp8-gemm-backend", std::string("triton"));
  if (c.full_attention_window) l.flag("--full-attention-window");
  l.flag("--json");
  return l.s;
}

std::string open_loop_row_command(const Catalog& catalog, const InferenceCase& c, double rate, long long isl_max,
                                  double ttft_p99_limit_s, double tpot_p99_limit_s) {
  InferenceCase at = c;  // the row's deployment, its own load left out
  at.mode = InferenceMode::fixed;
  at.workload.concurrency = 0;
  std::string line = serving_row_command(catalog, at);
  const std::string json = " --json";
  if (line.ends_with(json)) line.resize(line.size() - json.size());
  Line l;
  l.s = std::move(line);
  l.opt("--requests-per-s", rate);
  if (isl_max > 0) l.opt("--isl-max", isl_max);
  if (ttft_p99_limit_s > 0) l.opt("--ttft-ms", ttft_p99_limit_s * 1e3);
  if (tpot_p99_limit_s > 0) l.opt("--tpot-ms", tpot_p99_limit_s * 1e3);
  l.flag("--json");
  return l.s;
}

RowReading serving_row_reading(const InferenceCase& c, const InferenceResult& r) {
  if (c.metric == "tokens_per_sec_total") return {"tokens_per_s_total", c.total_over_output};
  if (c.metric == "tokens_per_sec_per_gpu") return {"tokens_per_s_per_gpu", c.total_over_output};
  if (c.metric == "tokens_per_sec_per_user") return {"tokens_per_s_per_user", 1.0};
  if (c.metric == "ttft_ms") return {c.workload.ttft_median && r.ttft_median_s > 0 ? "ttft_median_s" : "ttft_s", 1e3};
  if (c.metric == "p99_ttft_ms") return {"ttft_p99_s", 1e3};
  return {"tpot_s", 1e3};
}

std::string full_plan_text(const TrainingPlan& p) {
  auto b = [](bool v) { return v ? 1 : 0; };
  std::string s = fmt::format("tp={},pp={},vp={},cp={},cp_kind={},ep={},etp={},dp={},mbs={},recompute={}", p.tp, p.pp,
                              p.vp, p.cp, to_string(p.cp_kind), p.ep, p.etp, p.dp, p.mbs, to_string(p.recompute));
  s += fmt::format(",recompute_layers={},offload_layers={},zero={},sp={},tp_overlap={},dp_overlap={},ep_overlap={}",
                   p.recompute_layers, p.offload_layers, p.zero, b(p.sequence_parallel), b(p.tp_comm_overlap),
                   b(p.dp_overlap), b(p.ep_overlap));
  s += fmt::format(",dist_opt={},order={},moments={},moe_act_fp8={},combine_from_act={}", b(p.distributed_optimizer),
                   to_string(p.order), p.bf16_moments ? "bf16" : "fp32", b(p.moe_act_fp8), b(p.combine_from_act));
  if (p.dispatcher == MoeDispatcher::alltoall) s += ",dispatcher=alltoall";
  return s;
}

std::string training_row_command(const TrainingCase& c, const TrainingPlan& plan) {
  const TrainingWorkload& w = c.workload;
  Line l;
  l.s = "gpuplan train";
  l.opt("--model", c.model_lookup.empty() ? c.model_name : c.model_lookup);
  if (c.dims.any()) l.opt("--arch", to_string(c.dims));
  l.opt("--system", c.system);
  l.opt("--gpus", w.num_gpus);
  l.opt("--global-batch", w.global_batch);
  l.opt("--seq", w.seq_len);
  l.opt("--precision", std::string(to_string(w.precision)));
  if (!c.framework_container.empty()) l.opt("--framework-release", c.framework_container);
  else if (c.framework_release > 0) l.opt("--framework-release", c.framework_release);
  if (c.ep_overlap >= 0) l.opt("--ep-overlap", std::string(c.ep_overlap ? "on" : "off"));
  if (c.attention_kernel != AttentionKernel::release)
    l.opt("--attention-kernel", std::string(to_string(c.attention_kernel)));
  l.opt("--plan", full_plan_text(plan));
  if (c.metric == "tflops_per_gpu" && c.flop_convention != FlopConvention::model)
    l.opt("--flop-convention", std::string(to_string(c.flop_convention)));
  l.flag("--json");
  return l.s;
}

RowReading training_row_reading(const TrainingCase& c) {
  if (c.metric == "step_time_s") return {"step_time_s", 1.0};
  if (c.metric == "tokens_per_sec_per_gpu") return {"tokens_per_s_per_gpu", 1.0};
  if (c.metric == "tflops_per_gpu") return {"tflops_per_gpu", 1.0};
  if (c.flop_convention == FlopConvention::noncausal_attention)
    return {c.mfu_basis == "precision_peak" ? "mfu.with_noncausal_attention"
                                            : "mfu.with_noncausal_attention_vs_bf16_peak",
            100.0};
  return {c.mfu_basis == "precision_peak" ? "mfu.with_attention" : "mfu.with_attention_vs_bf16_peak", 100.0};
}

}  // namespace gpuplan
