// infer --disagg --prefill-max-batch / --prefill-max-tokens end to end: the limits in text and JSON,
// the saturated pool they make (longer TTFT, never more throughput), bad values -> exit 2 naming the
// option, and the options refused without --disagg.
#include <gtest/gtest.h>

#include <string>

#include "run_cli.h"

namespace {

// H100 Dynamo + SGLang 8K/1K at 32 clients: one TP16 prefill worker, one TP16 decode worker.
const std::string kPrefillPoint =
    "infer --model deepseek-r1 --system hgx-h100 --precision fp8 --kv-precision bf16 --isl 7373 --osl 922 "
    "--concurrency 32 --arrival closed_loop --engine dynamo+sglang --mtp 2 --disagg --prefill-gpus 16 "
    "--prefill-tp 16 --prefill-ep 1 --decode-gpus 16 --decode-tp 16 --decode-ep 1";

TEST(PrefillPoolCapCli, TheRecipeLimitsSlowThePrefillPool) {
  auto t = run_gpuplan(kPrefillPoint + " --prefill-max-batch 2 --prefill-max-tokens 2048");
  ASSERT_EQ(t.exit_code, 0) << t.err;
  EXPECT_TRUE(has(t.out, "at most 2 requests held through the KV hand-off, 2048 prompt tokens a step per prefill rank"))
      << t.out;
  auto capped = run_gpuplan(kPrefillPoint + " --prefill-max-batch 2 --prefill-max-tokens 2048 --json").json();
  auto free = run_gpuplan(kPrefillPoint + " --json").json();
  EXPECT_EQ(capped["prefill_max_batch"], 2);
  EXPECT_EQ(capped["prefill_max_tokens"], 2048);
  EXPECT_EQ(free["prefill_max_batch"], 0);
  EXPECT_EQ(free["prefill_max_tokens"], 0);
  EXPECT_GT(capped["prefill_utilization"].get<double>(), free["prefill_utilization"].get<double>());
  EXPECT_GT(capped["ttft_s"].get<double>(), free["ttft_s"].get<double>());
  // Throughput moves by well under 1% at this load (the decode batch's whole-sequence split, not the
  // prefill pool, sets it; the property at saturating loads is PrefillCapacity.*).
  EXPECT_NEAR(capped["tokens_per_s_total"].get<double>(), free["tokens_per_s_total"].get<double>(),
              0.01 * free["tokens_per_s_total"].get<double>());
}

TEST(PrefillPoolCapCli, BadValuesNameTheOption) {
  for (const char* opt : {"--prefill-max-batch", "--prefill-max-tokens"}) {
    for (const char* v : {"-1", "99999999999", "x"}) {
      const std::string args = kPrefillPoint + " " + opt + " " + std::string(v);
      auto r = run_gpuplan(args);
      EXPECT_EQ(r.exit_code, 2) << args << ": " << r.out;
      EXPECT_TRUE(has(r.err, opt)) << args << ": " << r.err;
    }
    auto r = run_gpuplan(std::string("infer --model deepseek-r1 --system hgx-h200 ") + opt + " 8");
    EXPECT_EQ(r.exit_code, 2) << opt;
    EXPECT_TRUE(has(r.err, opt)) << r.err;
    EXPECT_TRUE(has(r.err, "--disagg")) << r.err;
  }
}

}  // namespace
