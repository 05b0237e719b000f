// Weight-only 4-bit (w4a16) end to end: infer and memory accept it under the names serving tools use,
// the help lists it, and every training command refuses it with exit 2 naming --precision.
#include <gtest/gtest.h>

#include "run_cli.h"

namespace {

TEST(WeightOnlyCli, InferAcceptsEachSpellingAsOnePrecision) {
  double tpot = 0;
  for (const char* name : {"w4a16", "int4_wo", "int4-awq", "awq", "gptq-int4"}) {
    auto r = run_gpuplan(std::string("infer --model llama3.1-70b --system h100-sxm --gpus 1 --isl 1024 --osl 256 "
                                     "--concurrency 1 --json --precision ") + name);
    ASSERT_EQ(r.exit_code, 0) << name << ": " << r.err;
    const double t = r.json()["tpot_s"].get<double>();
    if (tpot == 0) tpot = t;
    EXPECT_DOUBLE_EQ(t, tpot) << name;
  }
  // 70B at 16 bits does not fit one H100; at 4 bits it does, and decodes faster than FP8 weights on two.
  auto fp8 = run_gpuplan("infer --model llama3.1-70b --system h100-sxm --gpus 1 --isl 1024 --osl 256 --concurrency 1 "
                         "--json --precision fp8");
  ASSERT_EQ(fp8.exit_code, 0) << fp8.err;
  EXPECT_LT(tpot, fp8.json()["tpot_s"].get<double>());
}

TEST(WeightOnlyCli, MemoryWeightsAreAboutAQuarterOfBf16) {
  auto b = run_gpuplan("memory --model llama3-70b --gpu h200-sxm --inference --tp 8 --precision bf16 --json");
  auto q = run_gpuplan("memory --model llama3-70b --gpu h200-sxm --inference --tp 8 --precision awq --json");
  ASSERT_EQ(b.exit_code, 0) << b.err;
  ASSERT_EQ(q.exit_code, 0) << q.err;
  const double ratio = q.json()["parts"]["weights_bytes"].get<double>() / b.json()["parts"]["weights_bytes"].get<double>();
  EXPECT_GT(ratio, 0.25);
  EXPECT_LT(ratio, 0.30);
  EXPECT_EQ(q.json()["inference"]["kv_precision"], "bf16");  // weight-only: the KV cache stays 16-bit
}

TEST(WeightOnlyCli, TrainingRefusesItNamingThePrecision) {
  for (const std::string cmd : {"train --model llama3-8b --system hgx-h100 --gpus 8 --global-batch 64",
                                "search --model llama3-8b --system hgx-h100 --gpus 8 --global-batch 64",
                                "memory --model llama3-8b --gpu h100-sxm --plan tp=8"}) {
    auto r = run_gpuplan(cmd + " --precision int4_wo");
    EXPECT_EQ(r.exit_code, 2) << cmd << ": " << r.out << r.err;
    EXPECT_TRUE(has(r.err, "--precision")) << cmd << ": " << r.err;
    EXPECT_TRUE(has(r.err, "w4a16")) << cmd << ": " << r.err;
  }
  auto k = run_gpuplan("memory --model llama3-8b --gpu h100-sxm --inference --kv-precision w4a16");
  EXPECT_EQ(k.exit_code, 2) << k.out << k.err;
  EXPECT_TRUE(has(k.err, "--kv-precision")) << k.err;
}

TEST(WeightOnlyCli, HelpListsIt) {
  auto r = run_gpuplan("infer --help");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(has(r.out, "w4a16")) << r.out;
  EXPECT_TRUE(has(run_gpuplan("memory --help").out, "w4a16"));
}

}  // namespace
