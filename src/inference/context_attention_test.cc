// The prompts' attention in FP8 (InferenceWorkload::fp8_context_attention): on a chip with FP8 tensor
// cores a prompt's attention runs at the FP8 peak times the generation's FP8 GEMM scale instead of the
// BF16 peak, so a long prompt prefills faster; the decodes' attention, chips without FP8 math and MLA
// prompts (the engines' fitted MLA kernels) do not change.
#include <gtest/gtest.h>

#include "catalog/test_catalog.h"
#include "core/precision.h"
#include "inference/inference.h"
#include "model/model_registry.h"
#include "physics/compute.h"
#include "physics/hardware.h"

namespace gpuplan {
namespace {

InferenceWorkload long_prompt(bool fp8_attention) {
  InferenceWorkload w;
  w.weight_precision = Precision::fp8;
  w.isl = 32768;
  w.osl = 16;
  w.num_gpus = 1;
  w.concurrency = 1;
  w.fp8_context_attention = fp8_attention;
  return w;
}

TEST(ContextAttention, Fp8ShortensALongPromptByItsAttentionsShare) {
  for (const char* gpu : {"h100-sxm", "b200"}) {
    const auto m = resolve_model("llama3.1-8b");
    const auto hw = resolve_hardware(test_catalog(), gpu);
    const auto b = evaluate_inference(m, hw, {1, 1, 1, false}, long_prompt(false));
    const auto f = evaluate_inference(m, hw, {1, 1, 1, false}, long_prompt(true));
    ASSERT_TRUE(b.valid() && f.valid()) << gpu;
    // A prompt chunk's attention at the FP8 rate over the BF16 one.
    const Efficiency& e = hw.efficiency;
    const double speedup =
        peak_flops(hw.accelerator, MathFormat::fp8) * e.gemm_fp8_scale / peak_flops(hw.accelerator, MathFormat::bf16);
    ASSERT_GT(speedup, 1.0) << gpu;
    ASSERT_GT(b.prefill_chunk.attention_s, 0.0) << gpu;
    EXPECT_NEAR(b.prefill_chunk.attention_s / f.prefill_chunk.attention_s, speedup, 1e-9 * speedup) << gpu;
    EXPECT_DOUBLE_EQ(b.prefill_chunk.gemm_s, f.prefill_chunk.gemm_s) << gpu;
    // A 32K prompt's attention is a large share of its prefill: the TTFT falls; the steps that carry the
    // arriving prompts' chunks beside the decodes are never slower.
    EXPECT_LT(f.prefill_s, 0.95 * b.prefill_s) << gpu;
    EXPECT_LE(f.decode_step.total_s, b.decode_step.total_s) << gpu;
    EXPECT_DOUBLE_EQ(b.decode_step.kv_bytes_read, f.decode_step.kv_bytes_read) << gpu;
  }
}

TEST(ContextAttention, ChangesNothingWithoutFp8TensorCores) {
  const auto m = resolve_model("llama3.1-8b");
  const auto hw = resolve_hardware(test_catalog(), "a100-80gb");
  ASSERT_NE(executed_format(hw.accelerator, MathFormat::fp8), MathFormat::fp8);
  const auto b = evaluate_inference(m, hw, {1, 1, 1, false}, long_prompt(false));
  const auto f = evaluate_inference(m, hw, {1, 1, 1, false}, long_prompt(true));
  ASSERT_TRUE(b.valid() && f.valid());
  EXPECT_DOUBLE_EQ(b.prefill_s, f.prefill_s);
  EXPECT_DOUBLE_EQ(b.tpot_s, f.tpot_s);
}

TEST(ContextAttention, MlaPromptsKeepTheirRate) {
  const auto m = resolve_model("deepseek-r1");
  const auto hw = resolve_hardware(test_catalog(), "b200");
  InferenceWorkload w = long_prompt(false);
  w.weight_precision = Precision::nvfp4;
  w.isl = 8192;
  w.num_gpus = 8;
  InferenceWorkload wf = w;
  wf.fp8_context_attention = true;
  const auto b = evaluate_inference(m, hw, {8, 8, 1, false}, w);
  const auto f = evaluate_inference(m, hw, {8, 8, 1, false}, wf);
  ASSERT_TRUE(b.valid() && f.valid());
  EXPECT_DOUBLE_EQ(b.prefill_s, f.prefill_s);
}

}  // namespace
}  // namespace gpuplan
