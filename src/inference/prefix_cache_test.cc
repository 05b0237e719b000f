// Prefix caching and KV offload to host memory (InferenceWorkload::prefix_hit_fraction,
// kv_offload_host): properties (no hits is the model without them, bit for bit; more hits never
// lengthen the prefill or slow the deployment; the KV each sequence holds does not change; a copy
// from host memory never makes the prefill shorter than the same hits held on the GPU; a disaggregated
// prefill pool serves more requests), the copy's time on a case worked by hand, and the range checks.
#include <gtest/gtest.h>

#include "catalog/test_catalog.h"
#include "core/error.h"
#include "inference/disaggregated.h"
#include "inference/inference.h"
#include "model/model_registry.h"
#include "physics/hardware.h"

namespace gpuplan {
namespace {

struct LongContext {
  ModelArch m = resolve_model("llama3.1-70b");
  Hardware hw = resolve_hardware(test_catalog(), "hgx-h200");
  InferenceParallel par{8, 1, 1, false};
  InferenceWorkload w;
  LongContext() {
    w.weight_precision = Precision::fp8;
    w.kv_bytes_per_element = 1.0;
    w.isl = 131072;
    w.osl = 1024;
    w.num_gpus = 8;
  }
  InferenceResult at(double hit, bool host = false, long long concurrency = 0) const {
    InferenceWorkload x = w;
    x.prefix_hit_fraction = hit;
    x.kv_offload_host = host;
    x.concurrency = concurrency;
    return evaluate_inference(m, hw, par, x);
  }
};

TEST(PrefixCache, ComputedTokensAreTheMisses) {
  InferenceWorkload w;
  w.isl = 1000;
  EXPECT_EQ(prompt_compute_tokens(w), 1000.0);
  w.prefix_hit_fraction = 0.75;
  EXPECT_EQ(prompt_compute_tokens(w), 250.0);
  w.prefix_hit_fraction = 0.9999;
  EXPECT_EQ(prompt_compute_tokens(w), 1.0);  // the last prompt token is always computed
}

TEST(PrefixCache, NoHitsIsTheModelWithoutThem) {
  const LongContext c;
  InferenceWorkload plain = c.w;
  const InferenceResult a = evaluate_inference(c.m, c.hw, c.par, plain);
  const InferenceResult b = c.at(0.0);
  EXPECT_EQ(a.tokens_per_s_total, b.tokens_per_s_total);
  EXPECT_EQ(a.ttft_s, b.ttft_s);
  EXPECT_EQ(b.prefix_load_s, 0.0);
}

TEST(PrefixCache, MoreHitsNeverSlower) {
  const LongContext c;
  double last_prefill = 1e30, last_tps = 0;
  for (double hit : {0.0, 0.25, 0.5, 0.75, 0.9, 0.99}) {
    const InferenceResult r = c.at(hit, false, 16);
    ASSERT_TRUE(r.valid()) << hit;
    EXPECT_LE(r.prefill_s, last_prefill) << hit;
    EXPECT_GE(r.tokens_per_s_total, last_tps * (1 - 1e-12)) << hit;
    last_prefill = r.prefill_s;
    last_tps = r.tokens_per_s_total;
  }
}

TEST(PrefixCache, KvHeldPerSequenceUnchanged) {
  const LongContext c;
  const InferenceResult a = c.at(0.0), b = c.at(0.9);
  EXPECT_EQ(a.max_concurrency, b.max_concurrency);
  EXPECT_EQ(a.memory.kv_bytes_per_sequence, b.memory.kv_bytes_per_sequence);
}

TEST(PrefixCache, HostCopyTakesTheHostLink) {
  const LongContext c;
  const InferenceResult gpu = c.at(0.9, false, 1);
  const InferenceResult host = c.at(0.9, true, 1);
  // 117,965 cached tokens of the sequence's per-GPU KV (its isl + osl tokens), over one GPU's host link.
  InferenceWorkload hits = c.w;
  hits.prefix_hit_fraction = 0.9;
  const double cached = 131072.0 - prompt_compute_tokens(hits);
  const double expect = cached * host.memory.kv_bytes_per_sequence / (131072.0 + 1024.0) /
                        c.hw.accelerator.host_link_bytes_per_s;
  EXPECT_NEAR(host.prefix_load_s, expect, 1e-12 * expect);
  EXPECT_GE(host.prefill_s, gpu.prefill_s);
  EXPECT_GE(host.prefill_s, host.prefix_load_s);
}

TEST(PrefixCache, DisaggregatedPrefillPoolServesMore) {
  const ModelArch m = resolve_model("deepseek-r1");
  const Hardware hw = resolve_hardware(test_catalog(), "hgx-b200");
  DisaggregatedDeployment d;
  d.prefill = {8, 8, 1, true};
  d.prefill_gpus = 8;
  d.decode = {8, 8, 1, true};
  d.decode_gpus = 8;
  InferenceWorkload w;
  w.weight_precision = Precision::fp8;
  w.kv_bytes_per_element = 1.0;
  w.isl = 8192;
  w.osl = 1024;
  w.num_gpus = 16;
  const double plain = prefill_capacity_per_s(m, hw, d, w);
  w.prefix_hit_fraction = 0.5;
  EXPECT_GT(prefill_capacity_per_s(m, hw, d, w), 1.5 * plain);
}

TEST(PrefixCache, RangeChecks) {
  const LongContext c;
  EXPECT_THROW(c.at(-0.1), InputError);
  EXPECT_THROW(c.at(1.0), InputError);
  Hardware bare = c.hw;
  bare.accelerator.host_link_bytes_per_s = 0;
  InferenceWorkload x = c.w;
  x.prefix_hit_fraction = 0.5;
  x.kv_offload_host = true;
  EXPECT_THROW(evaluate_inference(c.m, bare, c.par, x), InputError);
}

}  // namespace
}  // namespace gpuplan
