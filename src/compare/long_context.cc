#include "compare/long_context.h"

#include <fmt/format.h>

#include <cmath>
#include <future>

#include "training/default_batch.h"

namespace gpuplan::compare {

ServingScenario spec_serving_scenario(const ModelArch& m, const SystemSide& side, const CompareSpec& spec,
                                      Precision weights, long long isl, double tokens_per_s_per_user,
                                      double tpot_limit_s) {
  ServingScenario s = serving_scenario(m, side.hw, side.gpus_per_unit, weights, isl, spec.osl, tokens_per_s_per_user,
                                       tpot_limit_s, spec.ttft_limit_s, spec.mtp_accept);
  s.workload.prefix_hit_fraction = spec.prefix_hit;
  s.workload.kv_offload_host = spec.kv_offload_host;
  s.workload.fp8_context_attention = spec.fp8_context_attention;
  return s;
}

namespace {

std::string tokens_text(long long n) {
  return n % 1024 == 0 ? fmt::format("{}K", n / 1024) : fmt::format("{}", n);
}

// One side: the chooser at the long ISL (its common format, where it has it) and the best training plan.
LongContextSide side_long_context(const ModelArch& m, const SystemSide& S, const CompareSpec& spec,
                                  const TrainingWorkload& tw) {
  LongContextSide out;
  if (spec.infer) {
    if (S.hw.accelerator.peak(gemm_format(spec.infer_precision)) > 0) {
      out.serving = choose_serving(spec_serving_scenario(m, S, spec, spec.infer_precision, spec.long_context_tokens,
                                                         spec.tokens_per_s_per_user, spec.tpot_limit_s));
    } else {
      out.serving.why_not = fmt::format("{} has no {} tensor path", S.accelerator, to_string(spec.infer_precision));
    }
  }
  if (spec.train) out.training = best_training(m, S.hw, tw);
  return out;
}

double served(const LongContextSide& s, double (*f)(const ServingChoice&)) {
  return s.serving.met ? f(s.serving) : NAN;
}

std::string serving_text(const LongContextSide& s) {
  if (!s.serving.met) return s.serving.why_not.empty() ? std::string("-") : "none: " + s.serving.why_not;
  const InferenceResult& r = s.serving.point.result;
  return fmt::format("{} {} on {} GPUs, {} users in flight of {} held, TTFT {:.3g} s (one prompt alone {:.3g} s)",
                     s.serving.point.kind(), s.serving.point.plan(), s.serving.gpus, r.concurrency, r.max_concurrency,
                     r.ttft_s, r.prefill_s);
}

}  // namespace

void add_long_context(const ModelArch& m, const SystemSide& A, const SystemSide& B, const CompareSpec& spec,
                      int train_gpus, ModelComparison& mc, std::vector<Yardstick>& ys) {
  const long long L = spec.long_context_tokens;
  if (L <= 0 || (!spec.train && !spec.infer)) return;
  TrainingWorkload tw;
  tw.num_gpus = train_gpus;
  tw.seq_len = static_cast<int>(L);
  // The model's default batch at this sequence length (training/default_batch.h), the same on both sides.
  tw.global_batch = default_global_batch(m, tw.seq_len).sequences;
  tw.precision = spec.train_precision;
  // The two sides are independent questions: asked side by side.
  auto fa = std::async(std::launch::async, [&] { return side_long_context(m, A, spec, tw); });
  mc.long_context_b = side_long_context(m, B, spec, tw);
  mc.long_context_a = fa.get();
  mc.long_context_ttft_limit_s = resolve_ttft_limit_s(spec.ttft_limit_s, L);
  const LongContextSide &a = mc.long_context_a, &b = mc.long_context_b;
  const std::string lk = tokens_text(L);
  const std::string group = "long context";
  if (spec.infer) {
    const std::string io = fmt::format("ISL/OSL {}/{}, {}{}{}{}", L, spec.osl, to_string(spec.infer_precision),
                                       spec.prefix_hit > 0 ? fmt::format(", prefix-cache hits {:g}%", spec.prefix_hit * 100) : "",
                                       spec.kv_offload_host ? ", cached prefixes in host memory" : "",
                                       spec.fp8_context_attention ? ", FP8 context attention" : "");
    const std::string limit = mc.long_context_ttft_limit_s > 0
                                  ? fmt::format("TTFT limit {:.3g} s ({})", mc.long_context_ttft_limit_s,
                                                spec.ttft_limit_s < 0 ? "MLPerf's Server limits by prompt length"
                                                                      : "stated")
                                  : std::string("no TTFT limit");
    ys.push_back({group, "long_context_infer:" + m.name,
                  fmt::format("{} serving {} input, {:g} tok/s/user", m.name, lk, spec.tokens_per_s_per_user),
                  "tokens/s", served(a, [](const ServingChoice& c) { return c.point.result.tokens_per_s_per_gpu; }),
                  served(b, [](const ServingChoice& c) { return c.point.result.tokens_per_s_per_gpu; }), true, true,
                  "'long context' serving claims",
                  fmt::format("{}, {}; A {}; B {}", io, limit, serving_text(a), serving_text(b))});
    ys.push_back({group, "long_context_kv_per_user:" + m.name,
                  fmt::format("{} KV per user, {} + {} tokens, per GPU", m.name, lk, spec.osl), "GB",
                  served(a, [](const ServingChoice& c) { return c.point.result.memory.kv_bytes_per_sequence / 1e9; }),
                  served(b, [](const ServingChoice& c) { return c.point.result.memory.kv_bytes_per_sequence / 1e9; }),
                  false, false, "'the KV cache no longer overflows memory'",
                  fmt::format("each user's whole context reserved, per GPU of the chosen deployment (A tp={}, B "
                              "tp={}): a plan's split, not the chip's; the users held below are the comparison",
                              a.serving.met ? fmt::format("{}", a.serving.point.parallel.tp) : "-",
                              b.serving.met ? fmt::format("{}", b.serving.point.parallel.tp) : "-")});
    ys.push_back({group, "long_context_users_held:" + m.name,
                  fmt::format("{} users the KV cache holds at {}", m.name, lk), "users",
                  served(a, [](const ServingChoice& c) {
                    return double(c.point.result.max_concurrency) / std::max(1, c.gpus);
                  }),
                  served(b, [](const ServingChoice& c) {
                    return double(c.point.result.max_concurrency) / std::max(1, c.gpus);
                  }),
                  true, true, "",
                  fmt::format("users per GPU the chosen deployment's KV pool holds after weights and activations; in "
                              "all: A {}, B {}",
                              a.serving.met ? fmt::format("{} on {} GPUs", a.serving.point.result.max_concurrency,
                                                          a.serving.gpus)
                                            : "-",
                              b.serving.met ? fmt::format("{} on {} GPUs", b.serving.point.result.max_concurrency,
                                                          b.serving.gpus)
                                            : "-")});
    ys.push_back({group, "long_context_ttft:" + m.name,
                  fmt::format("{} TTFT at {} input, chunked prefill", m.name, lk), "s",
                  served(a, [](const ServingChoice& c) { return c.point.result.ttft_s; }),
                  served(b, [](const ServingChoice& c) { return c.point.result.ttft_s; }), false, false, "",
                  fmt::format("mean, at the load meeting {:g} tok/s/user; prompts in chunks of the engine's token "
                              "budget; {}", spec.tokens_per_s_per_user, limit)});
  }
  if (spec.train) {
    const auto tps = [](const TrainingPick& p) { return p.found ? p.result.tokens_per_s_per_gpu : NAN; };
    const auto plan = [](const TrainingPick& p) { return p.found ? to_string(p.plan) : "none: " + p.why_not; };
    ys.push_back({group, "long_context_train:" + m.name, fmt::format("{} training at seq {}", m.name, lk), "tokens/s",
                  tps(a.training), tps(b.training), true, true, "'train with long context' claims",
                  fmt::format("{} GPUs each, {} x {} tokens per step, {}; plan A {}; B {}", tw.num_gpus,
                              tw.global_batch, L, to_string(spec.train_precision), plan(a.training),
                              plan(b.training))});
  }
}

}  // namespace gpuplan::compare
