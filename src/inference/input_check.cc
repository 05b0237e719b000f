// The checks of a serving evaluation's inputs (inference/input_check.h).
#include "inference/input_check.h"

#include <fmt/format.h>

#include <utility>

#include "core/error.h"

namespace gpuplan::step {

// The TP the memory model splits attention and dense layers by. With attention-DP the attention is
// replicated on every rank, so the worker may be wider than the heads divide (48 ranks of a
// 128-head model on NVL72): the dense layers then split over the widest divisor of both.
int memory_tp(const ModelArch& m, const InferenceParallel& par) {
  if (!par.attention_dp) return par.tp;
  const int kvh = m.kv_heads > 0 ? m.kv_heads : m.heads;
  for (int t = par.tp; t > 1; --t)
    if (par.tp % t == 0 && m.heads % t == 0 && (m.attention == AttentionKind::mla || kvh % t == 0 || t % kvh == 0))
      return t;
  return 1;
}

void check_input(const ModelArch& m, const InferenceParallel& par, const InferenceWorkload& w, int gpus) {
  if (par.tp < 1 || par.tp > 1024) throw InputError("--tp", fmt::format("must be 1 to 1024, got {}", par.tp));
  if (par.pp < 1 || par.pp > m.layers)
    throw InputError("--pp", fmt::format("must be 1 to {} (the layers of {}), got {}", m.layers, m.name, par.pp));
  if (par.ep < 1) throw InputError("--ep", fmt::format("must be >= 1, got {}", par.ep));
  if (par.ep > par.tp)
    throw InputError("--ep", fmt::format("{} must not exceed tp = {} (experts are split over the tp group)", par.ep,
                                         par.tp));
  if (par.attention_dp && !m.is_moe())
    throw InputError("--attention-dp", fmt::format("applies to MoE models; {} is dense", m.name));
  if (w.isl < 1 || w.isl > 10000000) throw InputError("--isl", fmt::format("must be 1 to 10000000, got {}", w.isl));
  if (w.osl < 1 || w.osl > 10000000) throw InputError("--osl", fmt::format("must be 1 to 10000000, got {}", w.osl));
  if (w.concurrency < 0) throw InputError("--concurrency", fmt::format("must be >= 0, got {}", w.concurrency));
  if (!(w.prefix_hit_fraction >= 0.0 && w.prefix_hit_fraction < 1.0))
    throw InputError("--prefix-hit", fmt::format("must be in [0, 1) (the share of prompt tokens found in the prefix "
                                                 "cache), got {}", w.prefix_hit_fraction));
  if (!(w.length_low_fraction > 0.0 && w.length_low_fraction <= 1.0))
    throw InputError("--length-low", fmt::format("must be in (0, 1], got {}", w.length_low_fraction));
  if (w.max_num_tokens < 1) throw InputError("--max-num-tokens", fmt::format("must be >= 1, got {}", w.max_num_tokens));
  if (w.max_batch_size < 1) throw InputError("--max-batch-size", fmt::format("must be >= 1, got {}", w.max_batch_size));
  if (w.mtp_draft_tokens < 0 || w.mtp_draft_tokens > 16)
    throw InputError("--mtp", fmt::format("must be 0 to 16 draft tokens, got {}", w.mtp_draft_tokens));
  if (!(w.mtp_accept >= 0.0 && w.mtp_accept < 1.0))
    throw InputError("--mtp-accept", fmt::format("must be in (0, 1) (0: the default), got {}", w.mtp_accept));
  if (!(w.mtp_host_step_s >= 0.0 && w.mtp_host_step_s <= 0.1))
    throw InputError("mtp_host_step_s",
                     fmt::format("must be 0 to 100 ms per decode step, got {} ms", w.mtp_host_step_s * 1e3));
  if (!(w.mtp_eager_draft_extend_s >= 0.0 && w.mtp_eager_draft_extend_s <= 0.1))
    throw InputError("mtp_eager_draft_extend_s", fmt::format("must be 0 to 100 ms per decode step, got {} ms",
                                                             w.mtp_eager_draft_extend_s * 1e3));
  if (!(w.mtp_host_per_seq_step_s >= 0.0 && w.mtp_host_per_seq_step_s <= 1e-3))
    throw InputError("mtp_host_per_seq_step_s", fmt::format("must be 0 to 1000 us per sequence per step, got {} us",
                                                            w.mtp_host_per_seq_step_s * 1e6));
  if (!(w.request_overhead_s >= 0.0 && w.request_overhead_s <= 60.0))
    throw InputError("--request-overhead-ms", fmt::format("must be 0 to 60000 ms, got {}", w.request_overhead_s * 1e3));
  if (!(w.kv_mem_fraction >= 0.05 && w.kv_mem_fraction <= 1.0))
    throw InputError("--kv-mem-fraction",
                     fmt::format("must be 0.05 to 1 (a share of the memory), got {}", w.kv_mem_fraction));
  if (!(w.mem_fraction_static == 0.0 || (w.mem_fraction_static >= 0.05 && w.mem_fraction_static <= 1.0)))
    throw InputError("--mem-fraction-static",
                     fmt::format("must be 0.05 to 1 (a share of each GPU's memory), or 0 (not stated), got {}",
                                 w.mem_fraction_static));
  if (w.scheduler_recv_interval < 1 || w.scheduler_recv_interval > 1000)
    throw InputError("--scheduler-recv-interval",
                     fmt::format("must be 1 to 1000 decode steps, got {}", w.scheduler_recv_interval));
  if (!(w.host_per_seq_step_s >= 0.0 && w.host_per_seq_step_s <= 1e-3))
    throw InputError("host_per_seq_step_s",
                     fmt::format("must be 0 to 1000 us per sequence per step, got {} us", w.host_per_seq_step_s * 1e6));
  if (!(w.moe_kernel_share >= 0.05 && w.moe_kernel_share <= 1.0))
    throw InputError("moe_kernel_share", fmt::format("must be 0.05 to 1 (a share of the newest release's rate), got {}",
                                                     w.moe_kernel_share));
  if (!(w.moe_gemm_eff >= 0.05 && w.moe_gemm_eff <= 1.0))
    throw InputError("moe_gemm_eff", fmt::format("must be 0.05 to 1 (a share of the GEMM efficiency), got {}", w.moe_gemm_eff));
  if (!(w.expert_skew >= 1.0 && w.expert_skew <= 8.0))
    throw InputError("--expert-skew", fmt::format("must be 1 to 8, got {}", w.expert_skew));
  for (const auto& [name, b] : {std::pair{"--fp8-weight-block", w.fp8_weight_block},
                                 std::pair{"--fp8-moe-weight-block", w.fp8_moe_weight_block}})
    if (b < -1 || b > 4096)
      throw InputError(name, fmt::format("must be 0 (per-tensor scales) to 4096, or -1 (the model's checkpoint), got {}", b));
  if (w.batch_wait_iters < 0 || w.batch_wait_iters > 100000)
    throw InputError("--batch-wait-iters", fmt::format("must be 0 (off) to 100000 iterations, got {}", w.batch_wait_iters));
  if (!(w.batch_wait_tokens_ratio >= 0.0 && w.batch_wait_tokens_ratio <= 1.0))
    throw InputError("--batch-wait-tokens-ratio",
                     fmt::format("must be 0 (off) to 1 (a share of --max-num-tokens), got {}", w.batch_wait_tokens_ratio));
  if (w.adp_balance_timeout_iters < 0 || w.adp_balance_timeout_iters > 100000)
    throw InputError("--adp-balance-timeout-iters",
                     fmt::format("must be 0 (off) to 100000 iterations, got {}", w.adp_balance_timeout_iters));
  const int inst = par.tp * par.pp;
  if (gpus < 1 || gpus % inst != 0)
    throw InputError("--gpus", fmt::format("must be a positive multiple of tp x pp = {}, got {}", inst, gpus));
}

}  // namespace gpuplan::step
