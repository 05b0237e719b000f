// The engine's own batch limits (trtllm-bench's tuning heuristic, src/inference/engine_limits.h):
// golden values worked by hand from TensorRT-LLM's tuning.py, and its rounding and floor rules.
#include <gtest/gtest.h>

#include "catalog/catalog.h"
#include "core/error.h"
#include "inference/engine_limits.h"
#include "model/model_registry.h"
#include "physics/hardware.h"

namespace gpuplan {
namespace {

const Catalog& limits_catalog() {
  static const Catalog c = Catalog::load({});
  return c;
}

// Llama 3.1 8B FP8 (KV FP8: 2 x 32 layers x 8 heads x 128 = 64 KiB per token) on one H100 (85.5 GB
// driver total): 0.9 x (85.5 - 8.0) GB / (64 KiB x 256) = ~4,160 requests at 128/128, capped at
// 4,096, so max_batch_size 4,096 and max_num_tokens 4,096 x (1 + 1) = 8,192; at 20000/2000, 48
// requests: max_batch_size 64 (the floor), tokens 48 x 11 = 532 -> 2,048 (the floor) -> raised to a
// whole prompt plus the batch, 20,064 (chunked prefill off).
TEST(EngineLimits, TrtllmBenchHeuristicByHand) {
  const ModelArch m = resolve_model("llama3.1-8b");
  const Accelerator& a = resolve_hardware(limits_catalog(), "h100-sxm").accelerator;
  const EngineLimits s = trtllm_bench_limits(m, a, {1, 1, 1, false}, Precision::fp8, 1.0, 128, 128);
  EXPECT_EQ(s.max_batch_size, 4096);
  EXPECT_EQ(s.max_num_tokens, 8192);
  const EngineLimits l = trtllm_bench_limits(m, a, {1, 1, 1, false}, Precision::fp8, 1.0, 20000, 2000);
  EXPECT_EQ(l.max_batch_size, 64);
  EXPECT_EQ(l.max_num_tokens, 20064);
  const EngineLimits chunked = trtllm_bench_limits(m, a, {1, 1, 1, false}, Precision::fp8, 1.0, 20000, 2000, 0.9, true);
  EXPECT_EQ(chunked.max_num_tokens, 2048);
}

// Properties over lengths and splits: the floors (64 sequences, 2,048 tokens), the rounding steps
// (32 below 256, 128 below 1,024, else 256), a whole prompt per step without chunking, fewer
// sequences for longer contexts, more with more GPUs.
TEST(EngineLimits, RoundingFloorsAndMonotonicity) {
  const Accelerator& a = resolve_hardware(limits_catalog(), "h200-sxm").accelerator;
  for (const char* name : {"llama3.3-70b", "qwen3-30b-a3b", "mixtral-8x7b", "deepseek-r1"}) {
    const ModelArch m = resolve_model(name);
    long long prev_bs = 1 << 30;
    for (long long ctx : {256LL, 2048LL, 8192LL, 32768LL}) {
      const EngineLimits e = trtllm_bench_limits(m, a, {8, 1, 1, false}, Precision::fp8, 1.0, ctx / 2, ctx / 2);
      EXPECT_GE(e.max_batch_size, 64) << name;
      EXPECT_LE(e.max_batch_size, 4096) << name;
      const long long step = e.max_batch_size < 256 ? 32 : (e.max_batch_size <= 1024 ? 128 : 256);
      EXPECT_EQ(e.max_batch_size % step, 0) << name << " " << e.max_batch_size;
      EXPECT_GE(e.max_num_tokens, 2048) << name;
      EXPECT_GE(e.max_num_tokens, ctx / 2 + e.max_batch_size) << name;
      EXPECT_LE(e.max_batch_size, prev_bs) << name << " ctx " << ctx;
      prev_bs = e.max_batch_size;
    }
    const EngineLimits four = trtllm_bench_limits(m, a, {4, 1, 1, false}, Precision::fp8, 1.0, 4096, 4096);
    const EngineLimits eight = trtllm_bench_limits(m, a, {8, 1, 1, false}, Precision::fp8, 1.0, 4096, 4096);
    EXPECT_GE(eight.max_batch_size, four.max_batch_size) << name;
  }
  EXPECT_THROW(trtllm_bench_limits(resolve_model("llama3.1-8b"), a, {1, 1, 1, false}, Precision::fp8, 1.0, 0, 128),
               InputError);
}

}  // namespace
}  // namespace gpuplan
