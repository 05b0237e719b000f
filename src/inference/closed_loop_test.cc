// Closed-loop serving: TensorRT-LLM's attention-DP balancer holding context requests
// (docs/inference-model.md, "Closed-loop bursts").
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "catalog/test_catalog.h"
#include "core/error.h"
#include "inference/inference.h"
#include "model/model_registry.h"
#include "physics/hardware.h"

namespace gpuplan {
namespace {

// The wait is half the balancer's release cycle, the shorter of the timeout and the steps until every
// rank holds a new request (coupon collector over the ranks), scaled by the chance that every rank
// has a generation request at all.
TEST(AdpBalance, WaitIsHalfTheReleaseCycle) {
  // 256 sequences over 8 ranks, 1/922 arrivals per sequence per step: 8 H_8 / (256 / 922) = 78 steps
  // to fill every rank, beyond the 60-step timeout: the timeout sets the cycle.
  EXPECT_NEAR(adp_balance_wait_steps(256, 8, 1.0 / 922, 60), 30.0, 1e-6);
  // Fast arrivals fill the ranks first: n H_n / (batch x rate) / 2.
  const double h4 = 1 + 1.0 / 2 + 1.0 / 3 + 1.0 / 4;
  EXPECT_NEAR(adp_balance_wait_steps(1024, 4, 0.01, 1000), 0.5 * 4 * h4 / (1024 * 0.01), 1e-6);
  // Off, one rank, no arrivals: no wait.
  EXPECT_EQ(adp_balance_wait_steps(256, 8, 0.01, 0), 0.0);
  EXPECT_EQ(adp_balance_wait_steps(256, 1, 0.01, 60), 0.0);
  EXPECT_EQ(adp_balance_wait_steps(256, 8, 0.0, 60), 0.0);
  // Never more than half the timeout; a rank without sequences releases at once (few clients).
  for (double b : {1.0, 4.0, 8.0, 16.0, 64.0, 256.0, 4096.0})
    for (int ranks : {2, 4, 8, 16, 72}) {
      const double wait = adp_balance_wait_steps(b, ranks, 1.0 / 1000, 60);
      EXPECT_GE(wait, 0.0);
      EXPECT_LE(wait, 30.0 + 1e-9);
    }
  EXPECT_LT(adp_balance_wait_steps(4, 8, 1.0 / 1000, 60), 0.05);  // (1 - e^-0.5)^8 of 30 steps
}

// The prompts released at once are those arriving over a cycle: 60 steps x 256 x 1/922 = 16.7 at the
// timeout; none held (1) without a balancer, with one rank or without arrivals.
TEST(AdpBalance, ReleasesTheCyclesArrivalsTogether) {
  EXPECT_NEAR(adp_balance_released_prompts(256, 8, 1.0 / 922, 60), 60.0 * 256 / 922, 1e-3);
  // Fast arrivals: the ranks fill first, n H_n prompts a release.
  const double h4 = 1 + 1.0 / 2 + 1.0 / 3 + 1.0 / 4;
  EXPECT_NEAR(adp_balance_released_prompts(1024, 4, 0.01, 1000), 4 * h4, 1e-6);
  EXPECT_EQ(adp_balance_released_prompts(256, 8, 0.01, 0), 1.0);
  EXPECT_EQ(adp_balance_released_prompts(256, 1, 0.01, 60), 1.0);
  EXPECT_EQ(adp_balance_released_prompts(256, 8, 0.0, 60), 1.0);
  EXPECT_EQ(adp_balance_released_prompts(2, 8, 1.0 / 1000, 60), 1.0);  // ranks idle: nothing held
}

// In the evaluator: TTFT gains the wait in decode steps and the released prompts' shared prefill
// (their expert GEMMs and dispatch carry every rank's prompt: never less than one prompt alone, and
// more with longer prompts); TPOT and (staggered) throughput do not move; it needs
// attention-DP; the timeout is checked.
TEST(AdpBalance, DelaysFirstTokenOnlyWithAttentionDp) {
  const auto m = resolve_model("deepseek-r1");
  const auto hw = resolve_hardware(test_catalog(), "hgx-b200");
  InferenceWorkload w;
  w.weight_precision = Precision::fp8;
  w.isl = w.osl = 1024;
  w.concurrency = 256;
  w.num_gpus = 8;
  const InferenceParallel dep{8, 8, 1, true};
  const InferenceResult off = evaluate_inference(m, hw, dep, w);
  w.adp_balance_timeout_iters = 60;
  const InferenceResult on = evaluate_inference(m, hw, dep, w);
  const double steps = adp_balance_wait_steps(256, 8, 1.0 / 1024, 60);
  EXPECT_GT(steps, 10.0);
  const double released_extra_s = on.ttft_s - off.ttft_s - steps * on.decode_step.total_s;
  EXPECT_GT(released_extra_s, 0.0);
  EXPECT_LT(released_extra_s, 2.0 * on.prefill_s * adp_balance_released_prompts(256, 8, 1.0 / 1024, 60) / 8);
  auto longer = w;  // the same release, prompts 4x longer: more tokens shared
  longer.isl = 4096;
  auto longer_off = longer;
  longer_off.adp_balance_timeout_iters = 0;
  const InferenceResult l_on = evaluate_inference(m, hw, dep, longer), l_off = evaluate_inference(m, hw, dep, longer_off);
  EXPECT_GT(l_on.ttft_s - l_off.ttft_s - adp_balance_wait_steps(256, 8, 1.0 / 1024, 60) * l_on.decode_step.total_s,
            released_extra_s);
  EXPECT_DOUBLE_EQ(on.tpot_s, off.tpot_s);
  EXPECT_DOUBLE_EQ(on.tokens_per_s_total, off.tokens_per_s_total);
  const InferenceParallel tp{8, 8, 1, false};
  auto plain = w;
  plain.adp_balance_timeout_iters = 0;
  EXPECT_DOUBLE_EQ(evaluate_inference(m, hw, tp, w).ttft_s, evaluate_inference(m, hw, tp, plain).ttft_s);
  for (int bad : {-1, 100001}) {
    w.adp_balance_timeout_iters = bad;
    try {
      evaluate_inference(m, hw, dep, w);
      ADD_FAILURE() << bad;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("--adp-balance-timeout-iters"), std::string::npos);
    }
  }
}

}  // namespace
}  // namespace gpuplan
