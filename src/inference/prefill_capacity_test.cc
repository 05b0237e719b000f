// The prefill pool's capacity of a disaggregated deployment (prefill_capacity_per_s): properties (a
// lower request cap never raises it or the deployment's throughput; it grows with the prefill
// workers; without caps it is the former full-chunk rate, bit for bit; a held slot waits for the KV
// hand-off), and the caps' range checks.
#include <gtest/gtest.h>

#include "catalog/test_catalog.h"
#include "core/error.h"
#include "inference/disaggregated.h"
#include "model/model_registry.h"
#include "physics/hardware.h"

namespace gpuplan {
namespace {

// DeepSeek-R1 FP8 on HGX B200: prefill workers of TP8 with attention-DP, one DEP8 decode worker,
// 8K/1K prompts, an InferenceX-style closed loop.
struct B200Pools {
  ModelArch m = resolve_model("deepseek-r1");
  Hardware hw = resolve_hardware(test_catalog(), "hgx-b200");
  DisaggregatedDeployment d;
  InferenceWorkload w;
  B200Pools() {
    d.prefill = {8, 8, 1, true};
    d.prefill_gpus = 16;
    d.decode = {8, 8, 1, true};
    d.decode_gpus = 8;
    w.weight_precision = Precision::fp8;
    w.kv_bytes_per_element = 1.0;
    w.isl = 7373;
    w.osl = 922;
    w.num_gpus = 24;
    w.arrival = Arrival::closed_loop;
  }
  DisaggregatedDeployment with(long long batch, long long tokens, int prefill_gpus = 16) const {
    DisaggregatedDeployment dd = d;
    dd.prefill_max_batch = batch;
    dd.prefill_max_tokens = tokens;
    dd.prefill_gpus = prefill_gpus;
    return dd;
  }
  InferenceResult at(const DisaggregatedDeployment& dd, long long clients) const {
    InferenceWorkload ww = w;
    ww.concurrency = clients;
    ww.num_gpus = dd.prefill_gpus + dd.decode_gpus;
    return evaluate_disaggregated(m, hw, dd, ww);
  }
};

TEST(PrefillCapacity, ALowerRequestCapNeverRaisesCapacityOrThroughput) {
  const B200Pools s;
  for (long long tokens : {0LL, 2048LL, 8192LL, 32768LL}) {
    double cap_prev = prefill_capacity_per_s(s.m, s.hw, s.with(0, tokens), s.w);
    double thr_prev = s.at(s.with(0, tokens), 512).tokens_per_s_total;
    for (long long batch : {64LL, 8LL, 4LL, 2LL, 1LL}) {
      const double cap = prefill_capacity_per_s(s.m, s.hw, s.with(batch, tokens), s.w);
      const double thr = s.at(s.with(batch, tokens), 512).tokens_per_s_total;
      EXPECT_LE(cap, cap_prev * (1 + 1e-12)) << tokens << " tokens, " << batch << " requests";
      // Throughput within one sequence of the decode batch: the pool holds whole sequences, so a slower
      // prefill can leave one fewer in decode at a step a hair shorter (482 -> 481 of 512: +0.014%).
      EXPECT_LE(thr, thr_prev * (1 + 1.0 / 512)) << tokens << " tokens, " << batch << " requests";
      cap_prev = cap;
      thr_prev = thr;
    }
  }
}

TEST(PrefillCapacity, GrowsWithThePrefillWorkers) {
  const B200Pools s;
  for (long long batch : {0LL, 1LL, 16LL}) {
    const double one = prefill_capacity_per_s(s.m, s.hw, s.with(batch, 8192, 8), s.w);
    double prev = one;
    for (int workers : {2, 3, 5}) {
      const double cap = prefill_capacity_per_s(s.m, s.hw, s.with(batch, 8192, 8 * workers), s.w);
      EXPECT_GT(cap, prev) << workers << " workers, cap " << batch;
      EXPECT_NEAR(cap, workers * one, 1e-9 * cap) << "workers are independent servers";
      prev = cap;
    }
    // More prefill GPUs never lower the deployment's throughput at a saturating load.
    EXPECT_GE(s.at(s.with(batch, 8192, 32), 1024).tokens_per_s_total,
              s.at(s.with(batch, 8192, 8), 1024).tokens_per_s_total * (1 - 1e-9));
  }
}

TEST(PrefillCapacity, WithoutCapsItIsTheFullChunkRate) {
  const B200Pools s;
  InferenceWorkload wp = s.w;
  wp.num_gpus = s.d.prefill_gpus;
  wp.mtp_draft_tokens = 0;
  wp.arrival = Arrival::staggered;
  wp.requests_per_client = 0;
  wp.concurrency = s.d.prefill_gpus / s.d.prefill.tp;
  wp.request_overhead_s = 0;
  const double chunk = double(s.w.max_num_tokens) * s.d.prefill.tp;  // a full budget on every rank
  const double expect = 2.0 * chunk / prefill_step(s.m, s.hw, s.d.prefill, wp, chunk).total_s / double(s.w.isl);
  EXPECT_DOUBLE_EQ(prefill_capacity_per_s(s.m, s.hw, s.d, s.w), expect);
  // The per-step budget stated as the default is the same deployment.
  EXPECT_DOUBLE_EQ(prefill_capacity_per_s(s.m, s.hw, s.with(0, s.w.max_num_tokens), s.w), expect);
  const InferenceResult a = s.at(s.d, 256), b = s.at(s.with(0, s.w.max_num_tokens), 256);
  EXPECT_DOUBLE_EQ(a.tokens_per_s_total, b.tokens_per_s_total);
  EXPECT_DOUBLE_EQ(a.ttft_s, b.ttft_s);
}

TEST(PrefillCapacity, AHeldSlotWaitsForTheKvHandOff) {
  // One request per rank and a budget of one prompt: each rank prefills its prompt in one step and
  // then holds the slot while the KV leaves, so the rate is one prompt per (step + hand-off) per
  // rank, below the token rate of the same steps; a slower link (the pools in different domains,
  // RDMA instead of NVLink) lowers it further.
  const B200Pools s;
  const double held = prefill_capacity_per_s(s.m, s.hw, s.with(1, 8192), s.w);
  const double free = prefill_capacity_per_s(s.m, s.hw, s.with(0, s.w.isl), s.w);
  EXPECT_LT(held, free);
  EXPECT_GT(held, 0.5 * free);  // the hand-off of one 8K prompt's FP8 KV is milliseconds, the step 100s
  Hardware slow = s.hw;
  slow.fabric.scaleup_bytes_per_s /= 100;
  slow.fabric.scaleout_bytes_per_s /= 100;
  EXPECT_LT(prefill_capacity_per_s(s.m, slow, s.with(1, 8192), s.w), held);
}

TEST(PrefillCapacity, ACapThatBindsQueuesPromptsInTtft) {
  // A 2-request cap on 2048-token steps (H100 Dynamo + SGLang's recipe) on these pools: at a load
  // the free pool serves with a short queue the capped one saturates, and TTFT grows. (At moderate
  // load, 256 clients, the capped pool's shorter steps give the lower TTFT: a prompt waits for a
  // shorter running step, prefill_pool_sojourn_s.)
  const B200Pools s;
  const InferenceResult free = s.at(s.d, 512), capped = s.at(s.with(2, 2048), 512);
  EXPECT_GT(capped.ttft_s, free.ttft_s);
  EXPECT_GT(capped.prefill_utilization, free.prefill_utilization);
  EXPECT_LE(capped.tokens_per_s_total, free.tokens_per_s_total * (1 + 1e-9));
}

TEST(PrefillCapacity, OutOfRangeNamesTheField) {
  const B200Pools s;
  for (long long bad : {-1LL, 1000001LL}) {
    try {
      s.at(s.with(bad, 0), 64);
      ADD_FAILURE() << "accepted --prefill-max-batch " << bad;
    } catch (const InputError& e) {
      EXPECT_EQ(e.field(), "--prefill-max-batch") << e.what();
    }
  }
  for (long long bad : {-5LL, (16LL << 20) + 1}) {
    try {
      s.at(s.with(0, bad), 64);
      ADD_FAILURE() << "accepted --prefill-max-tokens " << bad;
    } catch (const InputError& e) {
      EXPECT_EQ(e.field(), "--prefill-max-tokens") << e.what();
    }
    EXPECT_THROW(prefill_capacity_per_s(s.m, s.hw, s.with(0, bad), s.w), InputError);
  }
}

}  // namespace
}  // namespace gpuplan
