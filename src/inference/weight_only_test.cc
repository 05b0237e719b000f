// Weight-only 4-bit serving (w4a16: INT4 AWQ/GPTQ/int4_wo, 4-bit weights dequantized to BF16 GEMMs):
// properties against BF16 on the same deployment. Decode of a memory-bound step reads a quarter of the
// weight bytes, so it runs about the weight-byte ratio faster; prefill is BF16 math, so it is no faster
// than BF16; weights take about a quarter of BF16's memory per GPU.
#include <gtest/gtest.h>

#include <cmath>

#include "catalog/test_catalog.h"
#include "core/precision.h"
#include "inference/inference.h"
#include "memory/inference_memory.h"
#include "model/model_registry.h"
#include "physics/hardware.h"

namespace gpuplan {
namespace {

InferenceWorkload serving(Precision p, long long isl, long long osl, long long concurrency) {
  InferenceWorkload w;
  w.weight_precision = p;
  w.kv_bytes_per_element = 2.0;  // both at BF16 KV: only the weights differ
  w.isl = isl;
  w.osl = osl;
  w.num_gpus = 1;
  w.concurrency = concurrency;
  return w;
}

TEST(WeightOnly, PrecisionIsFourBitWeightsWithBf16Math) {
  EXPECT_EQ(gemm_format(Precision::w4a16), MathFormat::bf16);
  EXPECT_NEAR(weight_bytes(Precision::w4a16), 0.5 + 2.5 / 128, 1e-12);  // group-128 FP16 scale + 4-bit zero
  EXPECT_EQ(default_kv_bytes(Precision::w4a16), 2.0);
  EXPECT_FALSE(training_refusal(Precision::w4a16).empty());
  EXPECT_TRUE(training_refusal(Precision::bf16).empty());
}

// A memory-bound decode step (one sequence, short context, one GPU): the weight bytes read fall by
// about the weight-byte ratio (the 16-bit LM head and the activations do not shrink) and the step by
// most of it (KV reads and the fixed per-step overheads do not shrink either; today 2.2-2.6x of 3.85x).
TEST(WeightOnly, MemoryBoundDecodeIsFasterByAboutTheWeightByteRatio) {
  const double ratio = weight_bytes(Precision::bf16) / weight_bytes(Precision::w4a16);
  const struct {
    const char* model;
    const char* gpu;
  } cases[] = {{"qwen3-32b", "h100-sxm"}, {"llama3.1-70b", "b200"}};
  for (const auto& c : cases) {
    const auto m = resolve_model(c.model);
    const auto hw = resolve_hardware(test_catalog(), c.gpu);
    const auto b = evaluate_inference(m, hw, {1, 1, 1, false}, serving(Precision::bf16, 128, 128, 1));
    const auto q = evaluate_inference(m, hw, {1, 1, 1, false}, serving(Precision::w4a16, 128, 128, 1));
    ASSERT_TRUE(b.valid() && q.valid()) << c.model;
    const double bytes_ratio = b.decode_step.weight_bytes_read / q.decode_step.weight_bytes_read;
    EXPECT_GT(bytes_ratio, 0.9 * ratio) << c.model;
    EXPECT_LE(bytes_ratio, ratio) << c.model;
    // The weight GEMMs by most of the ratio (smaller reads run at a lower share of the bandwidth), the
    // step by more than half of it (the per-step launch overhead stays).
    const double gemm_speedup = b.decode_step.gemm_s / q.decode_step.gemm_s;
    EXPECT_GT(gemm_speedup, 0.7 * ratio) << c.model << " GEMM speedup " << gemm_speedup;
    EXPECT_LE(gemm_speedup, ratio * 1.001) << c.model << " GEMM speedup " << gemm_speedup;
    const double speedup = b.tpot_s / q.tpot_s;
    EXPECT_GT(speedup, 0.5 * ratio) << c.model << " speedup " << speedup;
    EXPECT_LE(speedup, gemm_speedup) << c.model << " speedup " << speedup;
  }
}

// Prefill is BF16 math: a long prompt is compute-bound and the 4-bit weights do not make it faster
// (FP8 weights, which compute in FP8, do).
TEST(WeightOnly, PrefillIsNoFasterThanBf16) {
  for (const char* gpu : {"h100-sxm", "b200"}) {
    const auto m = resolve_model("llama3.1-8b");
    const auto hw = resolve_hardware(test_catalog(), gpu);
    const auto b = evaluate_inference(m, hw, {1, 1, 1, false}, serving(Precision::bf16, 8192, 16, 1));
    const auto q = evaluate_inference(m, hw, {1, 1, 1, false}, serving(Precision::w4a16, 8192, 16, 1));
    const auto f = evaluate_inference(m, hw, {1, 1, 1, false}, serving(Precision::fp8, 8192, 16, 1));
    ASSERT_TRUE(b.valid() && q.valid() && f.valid()) << gpu;
    EXPECT_GE(q.prefill_s, 0.98 * b.prefill_s) << gpu;
    EXPECT_LT(f.prefill_s, 0.9 * b.prefill_s) << gpu;  // the test can tell a faster prefill apart
  }
}

// Weights per GPU at about a quarter of BF16's (embeddings stay 16-bit, so a little more than the
// linear layers' 0.26).
TEST(WeightOnly, WeightMemoryPerGpuIsAboutAQuarterOfBf16) {
  for (const char* model : {"llama3.1-70b", "deepseek-v3"}) {
    const auto m = resolve_model(model);
    InferenceMemoryInput in;
    in.tp = 8;
    in.weight_precision = Precision::bf16;
    const double bf16 = inference_memory(m, in).weights_bytes;
    in.weight_precision = Precision::w4a16;
    const double w4 = inference_memory(m, in).weights_bytes;
    const double linear_ratio = weight_bytes(Precision::w4a16) / weight_bytes(Precision::bf16);
    EXPECT_GE(w4 / bf16, linear_ratio) << model;
    EXPECT_LT(w4 / bf16, 0.30) << model;
  }
}

}  // namespace
}  // namespace gpuplan
