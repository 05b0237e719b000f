// InferenceX's SGLang scripts' receive interval and TensorRT-LLM scripts' batch waiting
// (validate/inferencex_scripts.h), branch by branch.
#include "validate/inferencex_scripts.h"

#include <gtest/gtest.h>

namespace gpuplan {

TEST(InferenceXScripts, SglangReceiveIntervalByScriptBranch) {
  auto ri = [](const char* model, const char* gen, Precision p, int tp, bool dp, long long clients) {
    return inferencex_sglang_recv_interval(model, gen, p, tp, dp, clients).interval;
  };
  // dsr1_*_b200/b300.sh: 30 at 16+ clients, 10 below; the FP8 scripts' TP 4 branch 10 at any load.
  EXPECT_EQ(ri("deepseek-r1", "blackwell", Precision::fp8, 8, false, 16), 30);
  EXPECT_EQ(ri("deepseek-r1", "blackwell", Precision::fp8, 8, false, 15), 10);
  EXPECT_EQ(ri("deepseek-v3", "blackwell_ultra", Precision::nvfp4, 4, false, 64), 30);
  EXPECT_EQ(ri("deepseek-r1", "blackwell", Precision::fp8, 4, false, 64), 10);
  EXPECT_EQ(ri("deepseek-r1", "blackwell_ultra", Precision::fp8, 4, false, 4), 10);
  // Attention-DP runs and other generations keep SGLang's default.
  EXPECT_EQ(ri("deepseek-r1", "blackwell", Precision::fp8, 8, true, 64), 1);
  EXPECT_EQ(ri("deepseek-r1", "hopper", Precision::fp8, 8, false, 64), 1);
  EXPECT_EQ(ri("deepseek-r1", "cdna4", Precision::fp8, 8, false, 64), 1);
  // qwen3.5_*: the common branch, but qwen3.5_fp8_b300.sh passes 10.
  EXPECT_EQ(ri("qwen3.5-397b-a17b", "blackwell", Precision::fp8, 4, false, 32), 30);
  EXPECT_EQ(ri("qwen3.5-397b-a17b", "blackwell_ultra", Precision::bf16, 8, false, 32), 30);
  EXPECT_EQ(ri("qwen3.5-397b-a17b", "blackwell_ultra", Precision::fp8, 4, false, 32), 10);
  // glm5_fp4_*.sh pass 10; the FP8 scripts none; models without a script none.
  EXPECT_EQ(ri("glm-5", "blackwell", Precision::nvfp4, 8, false, 64), 10);
  EXPECT_EQ(ri("glm-5", "blackwell", Precision::fp8, 8, false, 64), 1);
  EXPECT_EQ(ri("llama3.1-70b", "blackwell", Precision::fp8, 8, false, 64), 1);
  // Each interval names the script branch it comes from.
  EXPECT_NE(inferencex_sglang_recv_interval("deepseek-r1", "blackwell", Precision::fp8, 4, false, 64).script.find(
                "TP 4"),
            std::string::npos);
  EXPECT_TRUE(inferencex_sglang_recv_interval("glm-5", "hopper", Precision::fp8, 8, false, 64).script.empty());
}

TEST(InferenceXScripts, TrtllmBatchWaitingByScriptBranch) {
  auto bw = [](const char* model, const char* gpu, Precision p, long long isl, long long osl, long long clients,
               bool dp, const char* date) {
    return inferencex_trtllm_batch_wait(model, gpu, p, isl, osl, clients, dp, date);
  };
  // dsr1_fp8_b200_trt.sh from PR #594 (2026-01-29): 1K/1K at 64+ clients, 40 iterations, 0.8.
  const TrtllmScriptBatchWait on = bw("deepseek-r1", "b200", Precision::fp8, 1024, 1024, 128, false, "2026-01-29");
  EXPECT_EQ(on.iters, 40);
  EXPECT_DOUBLE_EQ(on.tokens_ratio, 0.8);
  EXPECT_NE(on.script.find("dsr1_fp8_b200_trt.sh"), std::string::npos);
  EXPECT_EQ(bw("deepseek-r1", "b200", Precision::fp8, 1024, 1024, 64, false, "2026-05-18").iters, 40);
  // Not before the script set it, below 64 clients, at other lengths, with attention-DP (TensorRT-LLM
  // ignores it there), on other GPUs or precisions, or for a row without a date.
  EXPECT_EQ(bw("deepseek-r1", "b200", Precision::fp8, 1024, 1024, 128, false, "2026-01-28").iters, 0);
  EXPECT_EQ(bw("deepseek-r1", "b200", Precision::fp8, 1024, 1024, 32, false, "2026-02-01").iters, 0);
  EXPECT_EQ(bw("deepseek-r1", "b200", Precision::fp8, 8192, 1024, 128, false, "2026-02-01").iters, 0);
  EXPECT_EQ(bw("deepseek-r1", "b200", Precision::fp8, 1024, 1024, 256, true, "2026-02-01").iters, 0);
  EXPECT_EQ(bw("deepseek-r1", "h200-sxm", Precision::fp8, 1024, 1024, 128, false, "2026-02-01").iters, 0);
  EXPECT_EQ(bw("deepseek-r1", "b200", Precision::nvfp4, 1024, 1024, 128, false, "2026-02-01").iters, 0);
  EXPECT_EQ(bw("deepseek-r1", "b200", Precision::fp8, 1024, 1024, 128, false, "").iters, 0);
  EXPECT_EQ(bw("qwen3.5-397b-a17b", "b200", Precision::fp8, 1024, 1024, 128, false, "2026-02-01").iters, 0);
}

}  // namespace gpuplan

namespace gpuplan {

TEST(InferenceXScripts, SglangMemFractionByScriptBranchAndDate) {
  auto mf = [](const char* model, const char* gpu, Precision p, int tp, int mtp, const char* date) {
    return inferencex_sglang_mem_fraction(model, gpu, p, tp, mtp, date).fraction;
  };
  // dsr1_fp8_b200.sh: 0.82 for every TP until PR #411 (2026-01-13), then 0.82 on TP 8 and 0.95 on TP 4.
  EXPECT_DOUBLE_EQ(mf("deepseek-r1", "b200", Precision::fp8, 4, 0, "2025-11-18"), 0.82);
  EXPECT_DOUBLE_EQ(mf("deepseek-r1", "b200", Precision::fp8, 4, 0, "2026-05-22"), 0.95);
  EXPECT_DOUBLE_EQ(mf("deepseek-r1", "b200", Precision::fp8, 8, 0, "2026-05-22"), 0.82);
  // The MTP scripts from their first commits; dsr1_fp4_b200_mtp.sh 0.82, then 0.85 from 2026-07-02.
  EXPECT_DOUBLE_EQ(mf("deepseek-r1", "b200", Precision::fp8, 8, 1, "2026-03-25"), 0.82);
  EXPECT_EQ(mf("deepseek-r1", "b200", Precision::fp8, 8, 1, "2026-02-04"), 0.0);
  EXPECT_DOUBLE_EQ(mf("deepseek-r1", "b200", Precision::nvfp4, 8, 1, "2026-05-20"), 0.82);
  EXPECT_DOUBLE_EQ(mf("deepseek-r1", "b200", Precision::nvfp4, 8, 1, "2026-07-02"), 0.85);
  EXPECT_DOUBLE_EQ(mf("deepseek-r1", "b200", Precision::nvfp4, 8, 0, "2026-05-20"), 0.85);
  // A row that does not say whether MTP ran: a fraction only where both scripts pass the same.
  EXPECT_DOUBLE_EQ(mf("deepseek-v3", "b200", Precision::fp8, 8, -1, "2026-03-25"), 0.82);
  EXPECT_EQ(mf("deepseek-v3", "b200", Precision::nvfp4, 8, -1, "2026-05-20"), 0.0);
  EXPECT_DOUBLE_EQ(mf("deepseek-v3", "b200", Precision::nvfp4, 8, -1, "2026-07-02"), 0.85);
  // ... or the one script in force: before dsr1_fp8_b200_mtp.sh (2026-02-05) the non-MTP script's.
  EXPECT_DOUBLE_EQ(mf("deepseek-v3", "b200", Precision::fp8, 4, -1, "2026-01-20"), 0.95);
  // H200 from 2025-09-19; none before, none without a date, none for other GPUs or models.
  EXPECT_DOUBLE_EQ(mf("deepseek-r1", "h200-sxm", Precision::fp8, 8, 0, "2026-03-25"), 0.82);
  EXPECT_EQ(mf("deepseek-r1", "h200-sxm", Precision::fp8, 8, 0, "2025-09-18"), 0.0);
  EXPECT_EQ(mf("deepseek-r1", "b200", Precision::fp8, 8, 0, ""), 0.0);
  EXPECT_EQ(mf("deepseek-r1", "gb200", Precision::fp8, 8, 0, "2026-03-25"), 0.0);
  EXPECT_EQ(mf("qwen3.5-397b-a17b", "b200", Precision::fp8, 8, 0, "2026-03-25"), 0.0);
  EXPECT_NE(inferencex_sglang_mem_fraction("deepseek-r1", "b300", Precision::fp8, 4, 0, "2026-05-13").script.find("TP 4"),
            std::string::npos);
}

}  // namespace gpuplan
