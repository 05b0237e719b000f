// The decode pool's batch cap of a disaggregated deployment: properties (a lower cap never raises
// throughput; at clients <= slots it changes nothing; above, TTFT grows and TPOT does not), its
// range check, and a golden on a published point whose recipe states the cap.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "catalog/test_catalog.h"
#include "core/error.h"
#include "inference/disaggregated.h"
#include "inference/engine.h"
#include "inference/result_testing.h"
#include "model/model_registry.h"
#include "physics/hardware.h"

namespace gpuplan {
namespace {

// DeepSeek-R1 NVFP4 on GB200 NVL72: 2 prefill workers of DEP4, 2 decode workers of DEP8, 1K/1K,
// an InferenceX-style closed loop.
struct Gb200Pools {
  ModelArch m = resolve_model("deepseek-r1");
  Hardware hw = resolve_hardware(test_catalog(), "gb200-nvl72");
  DisaggregatedDeployment d;
  InferenceWorkload w;
  Gb200Pools() {
    d.prefill = {4, 4, 1, true};
    d.prefill_gpus = 8;
    d.decode = {8, 8, 1, true};
    d.decode_gpus = 16;
    w.weight_precision = Precision::nvfp4;
    w.kv_bytes_per_element = 1.0;
    w.isl = 1024;
    w.osl = 1024;
    w.num_gpus = 24;
    w.arrival = Arrival::closed_loop;
  }
  InferenceResult at(long long clients, long long cap, int requests_per_client = 0) {
    DisaggregatedDeployment dd = d;
    dd.decode_max_batch = cap;
    InferenceWorkload ww = w;
    ww.concurrency = clients;
    ww.requests_per_client = requests_per_client;
    return evaluate_disaggregated(m, hw, dd, ww);
  }
};

TEST(DecodeBatchCap, ALowerCapNeverRaisesThroughput) {
  Gb200Pools s;
  for (long long clients : {64LL, 512LL, 2048LL})
    for (int rpc : {0, 10}) {
      double prev = s.at(clients, 0, rpc).tokens_per_s_total;
      for (long long cap : {1024LL, 256LL, 128LL, 64LL, 32LL, 16LL, 8LL, 4LL, 2LL, 1LL}) {
        const InferenceResult r = s.at(clients, cap, rpc);
        EXPECT_LE(r.tokens_per_s_total, prev * (1 + 1e-12)) << clients << " clients, cap " << cap;
        EXPECT_LE(r.max_concurrency, cap * 8 * 2);  // slots: cap x 8 ranks x 2 workers at most
        prev = r.tokens_per_s_total;
      }
    }
}

TEST(DecodeBatchCap, AtClientsWithinTheSlotsTheCapChangesNothing) {
  Gb200Pools s;
  for (long long clients : {1LL, 16LL, 256LL, 1024LL})
    for (int rpc : {0, 10}) {
      const InferenceResult free = s.at(clients, 0, rpc);
      // Slots = cap x 8 ranks x 2 workers: the cap that just holds the clients, and a wider one.
      for (long long cap : {(clients + 15) / 16, clients}) {
        const InferenceResult r = s.at(clients, cap, rpc);
        EXPECT_DOUBLE_EQ(r.tokens_per_s_total, free.tokens_per_s_total) << clients << " / " << cap;
        EXPECT_DOUBLE_EQ(r.ttft_s, free.ttft_s) << clients << " / " << cap;
        EXPECT_DOUBLE_EQ(r.tpot_s, free.tpot_s) << clients << " / " << cap;
        EXPECT_EQ(r.violations.size(), free.violations.size());
      }
    }
}

TEST(DecodeBatchCap, AboveTheSlotsTtftGrowsAndTpotDoesNot) {
  Gb200Pools s;
  const long long cap = 32;  // 512 slots
  for (int rpc : {0, 10}) {
    // At 512 clients some are in prefill and the decode pool holds fewer; from the first load whose
    // decode pool is full, more clients only queue.
    double prev_ttft = s.at(512, cap, rpc).ttft_s;
    const InferenceResult full = s.at(600, cap, rpc);
    EXPECT_GT(full.ttft_s, prev_ttft);
    EXPECT_GT(full.tpot_s, s.at(512, cap, rpc).tpot_s * (1 - 1e-12));
    prev_ttft = full.ttft_s;
    for (long long clients : {800LL, 1200LL, 2400LL}) {
      const InferenceResult r = s.at(clients, cap, rpc);
      EXPECT_GT(r.ttft_s, prev_ttft) << clients;
      EXPECT_DOUBLE_EQ(r.tpot_s, full.tpot_s) << clients;
      EXPECT_NEAR(r.tokens_per_s_total, full.tokens_per_s_total, 1e-9 * full.tokens_per_s_total) << clients;
      EXPECT_EQ(r.max_concurrency, 512);
      EXPECT_GT(r.queue_wait_s, 0);
      // The queue is the recipe's, not a full KV cache.
      for (const auto& v : r.violations) EXPECT_NE(v.code, "memory.kv_full") << v.message;
      prev_ttft = r.ttft_s;
    }
    // Little's law in the steady state: each client more waits one more 1 / rate before its first token.
    if (rpc == 0) {
      const InferenceResult r = s.at(1024, cap, 0);
      const double rate = r.requests_per_s;
      EXPECT_NEAR(r.ttft_s - full.ttft_s, (1024.0 - 600.0) / rate, 0.05 * (1024.0 - 600.0) / rate);
    }
  }
}

// The median request of a closed-loop run (InferenceResult::ttft_median_s): within the decode slots
// the steady state's; with more clients than slots the run replayed, which puts it above one
// request's own path (some requests wait for a slot) and below the mean (most do not).
TEST(ClosedLoopMedian, WithinTheSlotsItIsTheSteadyState) {
  Gb200Pools s;
  const InferenceResult run = s.at(256, 32, 10), steady = s.at(256, 32, 0);
  EXPECT_DOUBLE_EQ(run.ttft_median_s, steady.ttft_s);
  EXPECT_EQ(steady.ttft_median_s, 0.0);  // no run, no median
}

TEST(ClosedLoopMedian, BeyondTheSlotsTheRunIsReplayed) {
  Gb200Pools s;
  s.w.length_low_fraction = 0.8;
  const InferenceResult steady = s.at(600, 32, 10);  // 512 slots; the replay not asked for
  s.w.ttft_median = true;
  const InferenceResult r = s.at(600, 32, 10);
  const double own_s = r.prefill_s + r.kv_transfer_s + r.decode_step.total_s;
  EXPECT_GT(r.ttft_median_s, own_s);
  EXPECT_LT(r.ttft_median_s, r.ttft_s);
  EXPECT_NE(r.ttft_median_s, steady.ttft_median_s);
  // The replay changes the median only: the mean, the throughput and TPOT are the same.
  EXPECT_DOUBLE_EQ(r.ttft_s, steady.ttft_s);
  EXPECT_DOUBLE_EQ(r.tokens_per_s_total, steady.tokens_per_s_total);
  EXPECT_DOUBLE_EQ(r.tpot_s, steady.tpot_s);
  s.w.length_low_fraction = 0;
  EXPECT_THROW(s.at(600, 32, 10), InputError);
}

TEST(DecodeBatchCap, OutOfRangeNamesTheField) {
  Gb200Pools s;
  for (long long bad : {-1LL, 1000001LL}) {
    try {
      s.at(64, bad);
      FAIL() << bad;
    } catch (const InputError& e) {
      EXPECT_EQ(e.field(), "--decode-max-batch") << e.what();
      EXPECT_NE(std::string(e.what()).find("0 (no cap) to 1000000"), std::string::npos) << e.what();
    }
  }
}

// Golden: InferenceX's GB200 NVL72 Dynamo + TensorRT-LLM DeepSeek-R1 FP8 1K/1K point at 1,127 clients
// (shared/data/benchmarks/inferencex-deepseek-r1.csv, run 21701654125, 2026-02-05): one DEP8 prefill
// worker, one DEP32 decode worker whose recipe caps each rank at 32 sequences (1,024 slots;
// SemiAnalysisAI/InferenceX configs/nvidia-master.yaml beside NVIDIA/srt-slurm's DEP32 batch-32
// recipe). Measured: median TTFT 1,773 ms, TPOT 19.44 ms, 1,199 output tokens/s per GPU. The 103
// clients beyond the slots wait by Little's law; without the cap the model's TTFT is 0.22 s, an eighth.
TEST(DecodeBatchCap, GoldenGb200Dep32Batch32At1127Clients) {
  const ModelArch m = resolve_model("deepseek-r1");
  const Hardware hw = resolve_hardware(test_catalog(), "gb200-nvl72");
  DisaggregatedDeployment d;
  d.prefill = {8, 8, 1, true};
  d.prefill_gpus = 8;
  d.decode = {32, 32, 1, true};
  d.decode_gpus = 32;
  InferenceWorkload w;
  w.weight_precision = Precision::fp8;
  w.kv_bytes_per_element = 1.0;
  w.isl = 922;  // InferenceX lengths: uniform in [0.8, 1] x 1024
  w.osl = 922;
  w.concurrency = 1127;
  w.num_gpus = 40;
  w.arrival = Arrival::closed_loop;
  w.requests_per_client = 0;  // the median request: a steady-state one
  w.request_overhead_s = engine_params(test_catalog(), "Dynamo + TensorRT-LLM").request_overhead_s;
  const InferenceResult free = evaluate_disaggregated(m, hw, d, w);
  d.decode_max_batch = 32;
  const InferenceResult r = evaluate_disaggregated(m, hw, d, w);
  EXPECT_EQ(r.max_concurrency, 1024);
  EXPECT_NEAR(r.ttft_s, 1.773, 0.25 * 1.773);
  EXPECT_NEAR(r.tpot_s, 19.44e-3, 0.25 * 19.44e-3);
  // TPOT is 0.8x of measured (the DEP32 decode step), so the slots turn over faster and the
  // throughput is 1.37x; the cap's queue, what this golden is about, is within a quarter.
  EXPECT_NEAR(r.tokens_per_s_per_gpu, 1199.0, 0.40 * 1199.0);
  std::printf("GB200 DEP32 batch 32, 1127 clients: TTFT %.0f ms (no cap %.0f; measured 1773), TPOT %.2f ms "
              "(19.44), %.0f tok/s/GPU (1199)\n",
              r.ttft_s * 1e3, free.ttft_s * 1e3, r.tpot_s * 1e3, r.tokens_per_s_per_gpu);
  EXPECT_LT(free.ttft_s, 0.5 * 1.773);  // the queue the cap makes is the measured TTFT
}


// The prefill pool's batched steps (prefill_pool_sojourn_s): a worker's step carries the prompts that
// arrived during the one before it, so at load a prompt waits for the running step and rides a
// longer one. Unit figures on a made-up worker: one prompt alone 0.2 s, a full step of 8 prompts
// 1.0 s (0.114 s a prompt more), capacity 8 prompts/s.
PrefillBatching pb(double alone_s, double budget_step_s, double budget_prompts, double max_prompts,
                   double capacity_per_s, double steps_per_prompt = 1.0) {
  PrefillBatching b;
  b.alone_s = alone_s;
  b.budget_step_s = budget_step_s;
  b.budget_prompts = budget_prompts;
  b.max_prompts = max_prompts;
  b.capacity_per_s = capacity_per_s;
  b.steps_per_prompt = steps_per_prompt;
  return b;
}

TEST(PrefillPoolSojourn, BatchedStepsOfAWorker) {
  const PrefillBatching b = pb(0.2, 1.0, 8.0, 8.0, 8.0);
  EXPECT_DOUBLE_EQ(prefill_pool_sojourn_s(b, 0.0), 0.2);  // alone
  // 4 prompts/s: fewer than one arrives during a one-prompt step, so steps hold one prompt; a prompt
  // finds one running 80% of the time and waits half of it, plus the M/D/1 wait at rho 0.5 (1/16 s).
  EXPECT_NEAR(prefill_pool_sojourn_s(b, 4.0), 0.8 * 0.1 + 0.2 + 0.5 / (2.0 * 8.0 * 0.5), 1e-12);
  // 6 prompts/s: a busy step of n = 6 S(n) prompts, S(n) = 0.2 + (n - 1) 0.8 / 7 -> n = 1.64, S = 0.27 s,
  // running all the time: half a step waited, the own step, the M/D/1 wait at rho 0.75 (3/16 s).
  const double slope = 0.8 / 7.0, n = (6.0 * (0.2 - slope)) / (1.0 - 6.0 * slope), s = 0.2 + slope * (n - 1.0);
  EXPECT_NEAR(prefill_pool_sojourn_s(b, 6.0), 1.5 * s + 0.75 / (2.0 * 8.0 * 0.25), 1e-12);
  EXPECT_TRUE(std::isinf(prefill_pool_sojourn_s(b, 8.0)));  // at capacity
  // A request cap bounds the step's prompts, not its slope: below the cap's capacity the same steps.
  const PrefillBatching capped = pb(0.2, 1.0, 8.0, 2.0, 2.0 / (0.2 + slope));
  EXPECT_GE(prefill_pool_sojourn_s(capped, 6.0), prefill_pool_sojourn_s(b, 6.0));
  // A prompt four times a rank's step spans four steps: alone, four chunks of 0.15 s; at load, four
  // of the busy steps.
  const PrefillBatching chunked = pb(0.6, 0.5, 2.0, 2.0, 1.0, 4.0);
  EXPECT_DOUBLE_EQ(prefill_pool_sojourn_s(chunked, 0.0), 0.6);
  EXPECT_GT(prefill_pool_sojourn_s(chunked, 0.5), 0.6 + 0.5 / (2.0 * 1.0 * 0.5));
  // A middle point (one prompt per attention-DP rank side by side) below the chord shortens the
  // busy steps at moderate load.
  PrefillBatching knot = pb(0.2, 2.0, 16.0, 16.0, 8.0);
  const double chord = prefill_pool_sojourn_s(knot, 5.5);
  knot.knot_prompts = 8.0;
  knot.knot_step_s = 0.6;
  EXPECT_LT(prefill_pool_sojourn_s(knot, 5.5), chord);
}

TEST(PrefillPoolSojourn, NeverBelowAlonePromptAndNonDecreasingInArrivals) {
  for (const PrefillBatching& b :
       {pb(0.2, 1.0, 8.0, 8.0, 8.0), pb(0.05, 0.4, 16.0, 16.0, 40.0), pb(0.3, 0.3, 2.0, 2.0, 6.0),
        pb(0.5, 0.45, 1.2, 1.2, 2.5), pb(0.2, 1.0, 8.0, 3.0, 2.5), pb(0.6, 0.5, 2.0, 2.0, 1.0, 4.0)}) {
    double prev = 0;
    for (double x = 0; x < b.capacity_per_s; x += b.capacity_per_s / 200) {
      const double t = prefill_pool_sojourn_s(b, x);
      EXPECT_GE(t, b.alone_s) << x;
      EXPECT_GE(t, prev * (1 - 1e-12)) << x;
      prev = t;
    }
  }
}

// B200 FP8 8K/1K, one DEP8 context worker and one DEP8 decode worker (InferenceX's Dynamo + TensorRT-LLM
// shape), on the GB200 pools' workload otherwise.
Gb200Pools b200_dep8_pools() {
  Gb200Pools b;
  b.hw = resolve_hardware(test_catalog(), "hgx-b200");
  b.d.prefill = {8, 8, 1, true};
  b.d.decode = {8, 8, 1, true};
  b.d.decode_gpus = 8;
  b.d.prefill_max_tokens = 7373;
  b.w.weight_precision = Precision::fp8;
  b.w.isl = 7373;
  b.w.osl = 922;
  b.w.num_gpus = 16;
  return b;
}

// The whole deployment: TTFT at any load is at least one prompt alone (plus its hand-off and first
// decode step), and more clients never lower it. B200 FP8 8K/1K, one DEP8 context worker, one DEP8
// decode worker (InferenceX's Dynamo + TensorRT-LLM shape), and the GB200 pools above.
TEST(PrefillPoolSojourn, TtftNeverBelowOnePromptAloneAndGrowsWithClients) {
  Gb200Pools g;
  Gb200Pools b = b200_dep8_pools();
  for (Gb200Pools* s : {&g, &b})
    for (int rpc : {0, 10}) {
      double prev = 0;
      for (long long clients : {1LL, 2LL, 4LL, 8LL, 16LL, 32LL, 64LL, 128LL, 256LL, 512LL}) {
        const InferenceResult r = s->at(clients, 0, rpc);
        ASSERT_TRUE(r.valid()) << clients;
        EXPECT_GE(r.ttft_s, r.prefill_s + r.kv_transfer_s + r.decode_step.total_s) << clients;
        EXPECT_GE(r.ttft_s, prev * (1 - 1e-9)) << clients << " clients, " << rpc << " requests per client";
        prev = r.ttft_s;
      }
    }
}

// disaggregated_rate_within_ttft_per_s bounds the requests/s of every load whose mean TTFT is within
// the limit (what lets the chooser skip a deployment unevaluated), and is near the rate the loads reach:
// the GB200 and B200 pools above, steady state and closed loops of 1 and 10 requests per client, limits
// from below one prompt alone to far beyond the pool's queue.
TEST(DisaggregatedRateWithinTtft, BoundsEveryLoadWithinTheLimit) {
  Gb200Pools g;
  Gb200Pools b = b200_dep8_pools();
  int met = 0, near = 0;
  for (Gb200Pools* s : {&g, &b})
    for (int rpc : {0, 1, 10}) {
      DisaggregatedPools pools(false);
      const InferenceResult alone = s->at(1, 0, rpc);
      ASSERT_TRUE(alone.valid());
      for (double limit : {0.5 * alone.ttft_s, alone.ttft_s, 1.5 * alone.ttft_s, 3 * alone.ttft_s, 10 * alone.ttft_s}) {
        InferenceWorkload w = s->w;
        w.requests_per_client = rpc;
        const double bound = disaggregated_rate_within_ttft_per_s(s->m, s->hw, s->d, w, limit, &pools);
        EXPECT_EQ(bound, disaggregated_rate_within_ttft_per_s(s->m, s->hw, s->d, w, limit)) << limit;
        double most = 0;
        for (long long clients = 1; clients <= 4096; clients += 1 + clients / 8) {
          const InferenceResult r = s->at(clients, 0, rpc);
          if (!r.valid() || r.ttft_s > limit) continue;
          ++met;
          EXPECT_LT(r.requests_per_s, bound) << clients << " clients, limit " << limit << " s, " << rpc;
          most = std::max(most, r.requests_per_s);
        }
        if (std::isfinite(bound) && most > 0.8 * bound) ++near;
      }
    }
  EXPECT_GT(met, 100);
  EXPECT_GT(near, 3);  // tight where the prefill pool's queue sets the limit
  // No limit: no bound.
  EXPECT_EQ(disaggregated_rate_within_ttft_per_s(g.m, g.hw, g.d, g.w, 0), INFINITY);
}

// The decode workers' receive interval (SGLang's --scheduler-recv-interval N on a decode worker): a
// request waits (N - 1) / 2 decode steps more for its KV preallocation before its prefill, so at low
// load TTFT grows by that and nothing else does; at a saturated prefill pool the closed loop's queue
// absorbs it (TTFT and throughput within a step); N = 1 is the model without it.
TEST(DecodeReceiveInterval, DelaysTheFirstTokenByHalfTheIntervalInDecodeSteps) {
  Gb200Pools g;
  for (long long clients : {1LL, 4LL, 16LL}) {
    const InferenceResult one = g.at(clients, 0);
    g.w.scheduler_recv_interval = 10;
    const InferenceResult ten = g.at(clients, 0);
    g.w.scheduler_recv_interval = 1;
    ASSERT_TRUE(one.valid() && ten.valid()) << clients;
    EXPECT_NEAR(ten.ttft_s - one.ttft_s, 4.5 * ten.decode_step.total_s, 0.05 * ten.decode_step.total_s) << clients;
    EXPECT_NEAR(ten.tpot_s, one.tpot_s, 1e-3 * one.tpot_s) << clients;
    EXPECT_LE(ten.tokens_per_s_total, one.tokens_per_s_total * (1 + 1e-9)) << clients;
    EXPECT_NEAR(ten.queue_wait_s, one.queue_wait_s, 0.05 * ten.decode_step.total_s) << clients;
    // The result names the wait (not as queue): (10 - 1) / 2 of its decode steps, none at interval 1.
    EXPECT_DOUBLE_EQ(ten.receive_wait_s, 4.5 * ten.decode_step.total_s) << clients;
    EXPECT_EQ(one.receive_wait_s, 0.0) << clients;
  }
  // Out of range: the field is named.
  g.w.scheduler_recv_interval = 0;
  try {
    (void)g.at(4, 0);
    ADD_FAILURE() << "scheduler_recv_interval 0 accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("scheduler-recv-interval"), std::string::npos) << e.what();
  }
}

// One DisaggregatedPools kept over many evaluations (loads in any order, repeated; MTP drafts on and
// off; two deployments that pair the same decode pool with different prefill pools) gives what a fresh
// evaluation of each gives, bit for bit: the pools keep only what each evaluation would compute again.
TEST(DisaggregatedPoolsKept, MatchFreshEvaluationsBitForBit) {
  Gb200Pools g;
  DisaggregatedDeployment wide = g.d;
  wide.prefill_gpus = 16;
  wide.prefill_max_batch = 4;
  DisaggregatedPools pools(false);
  for (int rpc : {0, 10}) {
    for (int mtp : {0, 2, 0}) {
      for (const DisaggregatedDeployment* d : {&g.d, &wide}) {
        for (long long clients : {512LL, 1LL, 64LL, 7LL, 512LL, 0LL, 200LL, 3000LL, 64LL, 33LL}) {
          InferenceWorkload w = g.w;
          w.concurrency = clients;
          w.mtp_draft_tokens = mtp;
          w.requests_per_client = rpc;
          const InferenceResult fresh = evaluate_disaggregated(g.m, g.hw, *d, w);
          const InferenceResult kept = evaluate_disaggregated(g.m, g.hw, *d, w, &pools);
          ASSERT_TRUE(fresh.valid()) << clients;
          result_testing::expect_same_result(kept, fresh, std::to_string(clients) + " clients");
        }
      }
    }
  }
}

// A decode worker's step at a batch (InferenceEvaluator::decode_only_step) is the step its evaluation
// makes there, whatever the pool's GPUs: evaluate(c) with that step given is evaluate(c) bit for bit, on
// a pool of one worker and of two, with MTP drafts on and off, below, at and beyond the KV limit.
TEST(DisaggregatedPoolsKept, DecodeStepsAtABatchServeEveryPoolOfTheWorker) {
  Gb200Pools g;
  const Hardware serving = serving_hardware(g.hw);
  int checked = 0;
  for (int mtp : {0, 3}) {
    InferenceWorkload w = g.w;
    w.decode_only = true;
    w.arrival = Arrival::staggered;
    w.mtp_draft_tokens = mtp;
    w.num_gpus = 8;
    const InferenceEvaluator one(g.m, serving, g.d.decode, w);
    w.num_gpus = 16;
    const InferenceEvaluator two(g.m, serving, g.d.decode, w);
    ASSERT_TRUE(one.decode_only_ready() && two.decode_only_ready());
    for (long long c : {0LL, 1LL, 2LL, 7LL, 8LL, 9LL, 63LL, 64LL, 100LL, 257LL, 1000LL, 5000LL, 100000LL}) {
      for (const InferenceEvaluator* e : {&one, &two}) {
        const InferenceEvaluator::DecodeLoad load = e->decode_load(c);
        // The other pool's step at the same batch per worker.
        const InferenceEvaluator& other = e == &one ? two : one;
        const StepTime step = other.decode_only_step(load.batch);
        const InferenceResult given = e->evaluate(c, step);
        const InferenceResult fresh = e->evaluate(c);
        result_testing::expect_same_result(given, fresh, std::to_string(c) + " clients");
        EXPECT_EQ(load.concurrency, fresh.concurrency) << c;
        EXPECT_EQ(step.total_s / e->tokens_per_step(), fresh.tpot_s) << c;
        ++checked;
      }
    }
  }
  EXPECT_EQ(checked, 52);
}

}  // namespace
}  // namespace gpuplan
