#include "inference/engine_limits.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/error.h"

namespace gpuplan {

namespace {

long long round_up(double x, double step) { return static_cast<long long>(step * std::ceil(x / step)); }

}  // namespace

EngineLimits trtllm_bench_limits(const ModelArch& m, const Accelerator& a, const InferenceParallel& par,
                                 Precision weights, double kv_bytes_per_element, long long isl, long long osl,
                                 double kv_fraction, bool chunked_prefill) {
  if (isl < 1) throw InputError("--isl", fmt::format("must be >= 1, got {}", isl));
  if (osl < 1) throw InputError("--osl", fmt::format("must be >= 1, got {}", osl));
  const int tp = std::max(1, par.tp), pp = std::max(1, par.pp);
  // KV bytes per token of the whole model: the heuristic counts max(tp, kv_heads) KV heads (every
  // rank holds at least one); MLA's latent is one "head" replicated on every rank.
  double kv_token = kv_cache_bytes_per_token(m, kv_bytes_per_element);
  if (m.attention == AttentionKind::mla) {
    kv_token *= tp;
  } else if (m.kv_heads > 0 && tp > m.kv_heads) {
    kv_token *= double(tp) / m.kv_heads;
  }
  const double gpus = double(tp) * pp;
  const double engine_bytes = total_params(m) * weight_bytes(weights);
  const double cache_bytes = std::max(0.0, a.memory_bytes * gpus - engine_bytes) * kv_fraction;
  const double requests = kv_token > 0 ? cache_bytes / (kv_token * double(isl + osl)) : 4096.0;
  const double raw_bs = std::min(requests, 4096.0) / pp;
  const double raw_tokens = std::min(raw_bs * (1.0 + double(isl) / double(osl)), 32768.0);
  EngineLimits e;
  if (raw_bs < 256) e.max_batch_size = std::max(64LL, round_up(raw_bs, 32));
  else if (raw_bs < 1024) e.max_batch_size = round_up(raw_bs, 128);
  else e.max_batch_size = round_up(raw_bs, 256);
  if (raw_tokens < 4096) e.max_num_tokens = std::max(2048LL, round_up(raw_tokens, 256));
  else if (raw_tokens < 8192) e.max_num_tokens = round_up(raw_tokens, 512);
  else e.max_num_tokens = round_up(raw_tokens, 1024);
  if (!chunked_prefill) e.max_num_tokens = std::max(e.max_num_tokens, isl + e.max_batch_size);
  return e;
}

}  // namespace gpuplan
