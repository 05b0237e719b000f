// Block-scaled FP8 serving GEMMs (ModelArch::fp8_weight_block, Efficiency::infer_fp8_block_share) and
// the opening wave's p99 TTFT of a disaggregated closed loop (InferenceResult::ttft_p99_s): properties.
#include <gtest/gtest.h>

#include "catalog/test_catalog.h"
#include "core/error.h"
#include "inference/disaggregated.h"
#include "inference/inference.h"
#include "model/model_registry.h"
#include "physics/hardware.h"

namespace gpuplan {
namespace {

InferenceWorkload prompt_only(Precision p, int block) {
  InferenceWorkload w;
  w.weight_precision = p;
  w.kv_bytes_per_element = 1.0;
  w.isl = 8192;
  w.osl = 2;
  w.num_gpus = 8;
  w.concurrency = 1;
  w.fp8_weight_block = w.fp8_moe_weight_block = block;
  return w;
}

Hardware with_share(const char* system, double share) {
  Hardware hw = resolve_hardware(test_catalog(), system);
  hw.efficiency.infer_fp8_block_share = share;
  return hw;
}

// The built-in DeepSeek-R1 is its published checkpoint: FP8 weights in 128 x 128 blocks.
TEST(Fp8Block, DeepSeekCheckpointIsBlockScaled) {
  EXPECT_EQ(resolve_model("deepseek-r1").fp8_weight_block, 128);
  EXPECT_EQ(resolve_model("deepseek-v3").fp8_weight_block, 128);
  EXPECT_EQ(resolve_model("llama3.1-70b").fp8_weight_block, 0);
}

// A share below 1 slows a block-scaled FP8 prefill and nothing else: per-tensor FP8 weights, BF16 and
// FP4 weights, and a share of 1 (or none fitted) give the same step as before.
TEST(Fp8Block, ShareSlowsOnlyBlockScaledFp8Gemms) {
  const ModelArch m = resolve_model("deepseek-r1");
  const InferenceParallel par{8, 8, 1, false};
  const Hardware half = with_share("hgx-h200", 0.5), none = with_share("hgx-h200", 0.0),
                 one = with_share("hgx-h200", 1.0);
  const double block_half = evaluate_inference(m, half, par, prompt_only(Precision::fp8, -1)).prefill_s;
  const double block_none = evaluate_inference(m, none, par, prompt_only(Precision::fp8, -1)).prefill_s;
  const double block_one = evaluate_inference(m, one, par, prompt_only(Precision::fp8, -1)).prefill_s;
  const double tensor_half = evaluate_inference(m, half, par, prompt_only(Precision::fp8, 0)).prefill_s;
  EXPECT_GT(block_half, 1.05 * block_none);
  EXPECT_DOUBLE_EQ(block_one, block_none);
  EXPECT_DOUBLE_EQ(tensor_half, block_none);
  // The GEMMs' share only: at most 1 / share slower.
  EXPECT_LE(block_half, 2.0 * block_none * (1 + 1e-9));
  const double bf16_half = evaluate_inference(m, half, par, prompt_only(Precision::bf16, -1)).prefill_s;
  const double bf16_none = evaluate_inference(m, none, par, prompt_only(Precision::bf16, -1)).prefill_s;
  EXPECT_DOUBLE_EQ(bf16_half, bf16_none);
  const ModelArch llama = resolve_model("llama3.1-70b");
  const InferenceParallel tp8{8, 1, 1, false};
  EXPECT_DOUBLE_EQ(evaluate_inference(llama, half, tp8, prompt_only(Precision::fp8, -1)).prefill_s,
                   evaluate_inference(llama, none, tp8, prompt_only(Precision::fp8, -1)).prefill_s);
}

// SGLang's Triton block-FP8 kernel (InferenceWorkload::fp8_block_gemm_triton) runs the dense GEMMs at
// the generation's infer_fp8_block_triton_share: a share below the block-scaled one slows a block-scaled
// FP8 prefill, the routed experts keep the engine's kernels (so less than the dense GEMMs' ratio), and
// without a fitted share, or for FP4 weights, the flag changes nothing.
TEST(Fp8Block, TritonKernelSlowsTheDenseGemmsOnly) {
  const ModelArch m = resolve_model("deepseek-r1");
  const InferenceParallel par{8, 8, 1, false};
  Hardware hw = with_share("hgx-b200", 0.5);
  InferenceWorkload w = prompt_only(Precision::fp8, -1), tri = w;
  tri.fp8_block_gemm_triton = true;
  const double fast = evaluate_inference(m, hw, par, w).prefill_s;
  hw.efficiency.infer_fp8_block_triton_share = 0;
  EXPECT_DOUBLE_EQ(evaluate_inference(m, hw, par, tri).prefill_s, fast);  // no Triton share fitted
  hw.efficiency.infer_fp8_block_triton_share = 0.1;
  const double slow = evaluate_inference(m, hw, par, tri).prefill_s;
  EXPECT_GT(slow, 1.2 * fast);
  EXPECT_LT(slow, 5.0 * fast);  // the experts' GEMMs and the attention keep their rates
  EXPECT_DOUBLE_EQ(evaluate_inference(m, hw, par, w).prefill_s, fast);  // the flag off: unchanged
  InferenceWorkload fp4 = prompt_only(Precision::fp4, -1), fp4_tri = fp4;
  fp4_tri.fp8_block_gemm_triton = true;
  EXPECT_DOUBLE_EQ(evaluate_inference(m, hw, par, fp4_tri).prefill_s, evaluate_inference(m, hw, par, fp4).prefill_s);
  // A lower Triton share is never faster.
  hw.efficiency.infer_fp8_block_triton_share = 0.05;
  EXPECT_GT(evaluate_inference(m, hw, par, tri).prefill_s, slow);
}

// In a disaggregated deployment the prefill workers' kernel is their own: the prefill pool's flag slows
// one prompt's prefill (TTFT), the decode workers' slows nothing there.
TEST(Fp8Block, TritonKernelPerPool) {
  const ModelArch m = resolve_model("deepseek-r1");
  Hardware hw = with_share("hgx-b200", 0.5);
  hw.efficiency.infer_fp8_block_triton_share = 0.1;
  DisaggregatedDeployment d;
  d.prefill = {8, 8, 1, false};
  d.prefill_gpus = 8;
  d.decode = {8, 8, 1, false};
  d.decode_gpus = 8;
  InferenceWorkload w = prompt_only(Precision::fp8, -1);
  w.osl = 256;
  w.num_gpus = 16;
  w.concurrency = 4;
  const InferenceResult base = evaluate_disaggregated(m, hw, d, w);
  DisaggregatedDeployment dp = d;
  dp.prefill_fp8_block_gemm_triton = true;
  const InferenceResult pre = evaluate_disaggregated(m, hw, dp, w);
  EXPECT_GT(pre.prefill_s, 1.2 * base.prefill_s);
  EXPECT_DOUBLE_EQ(pre.tpot_s, base.tpot_s);
  InferenceWorkload wd = w;
  wd.fp8_block_gemm_triton = true;
  const InferenceResult dec = evaluate_disaggregated(m, hw, d, wd);
  EXPECT_DOUBLE_EQ(dec.prefill_s, base.prefill_s);
  EXPECT_GE(dec.tpot_s, base.tpot_s);
}

// A chip without FP8 tensor cores runs FP8 weights' GEMMs in BF16: the block share does not apply.
TEST(Fp8Block, NoFp8TensorCoresNoShare) {
  const ModelArch m = resolve_model("llama3.1-70b");
  ModelArch blocked = m;
  blocked.fp8_weight_block = 128;
  const InferenceParallel tp8{8, 1, 1, false};
  const Hardware half = with_share("hgx-a100", 0.5), none = with_share("hgx-a100", 0.0);
  EXPECT_DOUBLE_EQ(evaluate_inference(blocked, half, tp8, prompt_only(Precision::fp8, -1)).prefill_s,
                   evaluate_inference(blocked, none, tp8, prompt_only(Precision::fp8, -1)).prefill_s);
}

TEST(Fp8Block, OutOfRangeNamesTheField) {
  const ModelArch m = resolve_model("deepseek-r1");
  const Hardware hw = with_share("hgx-h200", 0.5);
  InferenceWorkload w = prompt_only(Precision::fp8, -2);
  EXPECT_THROW(
      {
        try {
          evaluate_inference(m, hw, InferenceParallel{8, 8, 1, false}, w);
        } catch (const InputError& e) {
          EXPECT_NE(std::string(e.what()).find("--fp8-weight-block"), std::string::npos) << e.what();
          throw;
        }
      },
      InputError);
}

// DeepSeek-R1 FP8 on two HGX H200 nodes: one TP8 prefill worker, one TP8 EP8 attention-DP decode
// worker, 8K/1K, an InferenceX closed loop of 10 requests per client.
InferenceResult h200_pools(long long clients, int requests_per_client) {
  DisaggregatedDeployment d;
  d.prefill = {8, 8, 1, false};
  d.prefill_gpus = 8;
  d.decode = {8, 8, 1, true};
  d.decode_gpus = 8;
  InferenceWorkload w;
  w.weight_precision = Precision::fp8;
  w.kv_bytes_per_element = 1.0;
  w.isl = 7373;
  w.osl = 922;
  w.num_gpus = 16;
  w.arrival = Arrival::closed_loop;
  w.concurrency = clients;
  w.requests_per_client = requests_per_client;
  return evaluate_disaggregated(resolve_model("deepseek-r1"), resolve_hardware(test_catalog(), "hgx-h200"), d, w);
}

// The opening wave's tail: never below the steady state's, growing with the clients (each one more
// prompt ahead of the tail in the wave), and at many clients about the wave's prompts over the pool's
// capacity; absent without a closed loop's opening wave.
TEST(OpeningWave, P99TtftIsTheWavesTail) {
  double prev = 0;
  for (long long clients : {16LL, 64LL, 128LL, 256LL}) {
    const InferenceResult r = h200_pools(clients, 10);
    ASSERT_TRUE(r.valid());
    EXPECT_GE(r.ttft_p99_s, r.ttft_s) << clients;
    EXPECT_GT(r.ttft_p99_s, prev) << clients;
    prev = r.ttft_p99_s;
  }
  const InferenceResult r = h200_pools(256, 10);
  const double capacity_per_s = r.requests_per_s / r.prefill_utilization;
  EXPECT_NEAR(r.ttft_p99_s, 0.9 * 256 / capacity_per_s, 0.15 * r.ttft_p99_s);
  EXPECT_EQ(h200_pools(256, 0).ttft_p99_s, 0.0);
}

}  // namespace
}  // namespace gpuplan
