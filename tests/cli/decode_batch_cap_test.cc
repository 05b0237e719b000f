// infer --disagg --decode-max-batch end to end: the cap in text and JSON, the queue it makes in TTFT,
// bad values -> exit 2 naming the option; validate scores the inference schema's disaggregated rows.
#include <gtest/gtest.h>

#include <string>

#include "run_cli.h"

namespace {

const std::string kPoint =
    "infer --model deepseek-r1 --system gb200-nvl72 --precision fp8 --isl 922 --osl 922 --concurrency 1127 "
    "--arrival closed_loop --engine dynamo+tensorrt-llm --disagg --prefill-gpus 8 --prefill-tp 1 --prefill-ep 8 "
    "--decode-gpus 32 --decode-tp 1 --decode-ep 32";

TEST(DecodeBatchCapCli, TheCapQueuesClientsBeforeDecode) {
  auto t = run_gpuplan(kPoint + " --decode-max-batch 32");
  ASSERT_EQ(t.exit_code, 0) << t.err;
  EXPECT_TRUE(has(t.out, "decode pool holds 1024, at most 32 per rank")) << t.out;
  auto capped = run_gpuplan(kPoint + " --decode-max-batch 32 --json").json();
  auto free = run_gpuplan(kPoint + " --json").json();
  EXPECT_EQ(capped["decode_max_batch"], 32);
  EXPECT_EQ(free["decode_max_batch"], 0);
  EXPECT_EQ(capped["max_concurrency"], 1024);
  // (2x: without the cap the prefill pool's batched steps already hold the prompts ~0.6 s at this
  // load, prefill_pool_sojourn_s; the cap's queue adds a decode lifetime's wait for the clients beyond)
  EXPECT_GT(capped["ttft_s"].get<double>(), 2 * free["ttft_s"].get<double>());
  EXPECT_GT(capped["queue_wait_s"].get<double>(), 0);
  EXPECT_LE(capped["tokens_per_s_total"].get<double>(), free["tokens_per_s_total"].get<double>());
  EXPECT_TRUE(capped["violations"].empty()) << capped["violations"].dump();  // a recipe's queue, not a full cache
}

TEST(DecodeBatchCapCli, BadValuesNameTheOption) {
  for (const std::string& args : {kPoint + " --decode-max-batch -1", kPoint + " --decode-max-batch 2000000",
                                  kPoint + " --decode-max-batch x",
                                  std::string("infer --model deepseek-r1 --system hgx-h200 --decode-max-batch 8")}) {
    auto r = run_gpuplan(args);
    EXPECT_EQ(r.exit_code, 2) << args << ": " << r.out;
    EXPECT_TRUE(has(r.err, "--decode-max-batch")) << args << ": " << r.err;
  }
}

TEST(DecodeBatchCapCli, ValidateScoresTheDisaggregatedRowsOfTheInferenceSchema) {
  auto r = run_gpuplan("validate --dataset " + std::string(GPUPLAN_SHARED_DATA_DIR) + "/benchmarks/inference.csv --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = r.json();
  EXPECT_TRUE(j["groups"]["deployment"].contains("disaggregated"));
  EXPECT_GE(j["groups"]["deployment"]["disaggregated"]["rows"].get<int>(), 24);
  for (const auto& [reason, n] : j["skip_reasons"].items()) EXPECT_FALSE(has(reason, "disaggregated")) << reason;
}

}  // namespace
