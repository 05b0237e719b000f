// Long-context serving end to end (KV per user, chunked prefill at 128K, prefix caching and KV offload
// to host memory), the purchase recommend shows, and --csv: text, JSON, CSV and bad input -> exit 2.
#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "run_cli.h"

namespace {

TEST(LongContextCli, KvPerUserAt128K) {
  for (const char* system : {"hgx-h200", "hgx-b200"}) {
    auto r = run_gpuplan(std::string("infer --model llama3.1-70b --system ") + system +
                         " --isl 131072 --osl 1024 --tp 8 --json");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    auto j = r.json();
    // 80 layers x 8 KV heads x 128 x (K, V) x 1 byte x 132,096 tokens, over 8 GPUs.
    EXPECT_NEAR(j["memory"]["kv_bytes_per_sequence"].get<double>(), 80.0 * 8 * 128 * 2 * 132096 / 8, 0.02e9) << system;
    EXPECT_GT(j["max_concurrency"].get<long long>(), 8) << system;
    EXPECT_GT(j["ttft_s"].get<double>(), j["prefill_s"].get<double>()) << system;  // under load: waits for the budget
  }
  auto t = run_gpuplan("infer --model llama3.1-70b --system hgx-h200 --isl 131072 --osl 1024 --tp 8");
  ASSERT_EQ(t.exit_code, 0) << t.err;
  EXPECT_TRUE(has(t.out, "KV per user")) << t.out;
}

TEST(LongContextCli, PrefixHitsShortenTtft) {
  const std::string base = "infer --model llama3.1-70b --system hgx-h200 --isl 131072 --osl 1024 --tp 8 --concurrency 8 --json";
  auto none = run_gpuplan(base);
  auto hits = run_gpuplan(base + " --prefix-hit 0.9");
  auto host = run_gpuplan(base + " --prefix-hit 0.9 --kv-offload host");
  ASSERT_EQ(none.exit_code, 0) << none.err;
  ASSERT_EQ(hits.exit_code, 0) << hits.err;
  ASSERT_EQ(host.exit_code, 0) << host.err;
  EXPECT_LT(hits.json()["ttft_s"].get<double>(), 0.5 * none.json()["ttft_s"].get<double>());
  EXPECT_GT(host.json()["prefix_load_s"].get<double>(), 0.0);
  EXPECT_GE(host.json()["prefill_s"].get<double>(), hits.json()["prefill_s"].get<double>());
  auto text = run_gpuplan("infer --model llama3.1-70b --system hgx-h200 --isl 131072 --tp 8 --prefix-hit 0.5");
  EXPECT_TRUE(has(text.out, "prefix-cache hits 50 %")) << text.out;
}

TEST(LongContextCli, BadPrefixAndOffloadOptions) {
  for (const char* args : {"infer --prefix-hit 1", "infer --prefix-hit -0.2", "infer --kv-offload ssd --prefix-hit 0.5",
                           "infer --kv-offload host"}) {
    auto r = run_gpuplan(args);
    EXPECT_EQ(r.exit_code, 2) << args;
    EXPECT_TRUE(has(r.err, "--prefix-hit") || has(r.err, "--kv-offload")) << args << ": " << r.err;
  }
}

TEST(RecommendPurchaseCli, BuysWholeUnitsWithCapexAndPower) {
  auto r = run_gpuplan("recommend --model llama3.1-70b --task train --system hgx-h100 --system hgx-h200 --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const auto& x : r.json()["ranked"]) {
    if (!x["feasible"].get<bool>()) continue;
    EXPECT_EQ(x["gpus_bought"].get<int>(), x["units"].get<int>() * x["gpus_per_unit"].get<int>());
    EXPECT_GT(x["capex_usd"].get<double>(), 0.0) << x["name"];
    EXPECT_GT(x["it_kw"].get<double>(), 0.0) << x["name"];
  }
  auto t = run_gpuplan("recommend --model llama3.1-70b --task train --system hgx-h100");
  EXPECT_TRUE(has(t.out, "buys ")) << t.out;
  EXPECT_TRUE(has(t.out, "capex ")) << t.out;
}

TEST(RecommendPurchaseCli, SmallestPurchaseMeetsTheDeadline) {
  // One unit fewer than the purchase does not fit the fixed global batch or misses the deadline.
  auto r = run_gpuplan("recommend --model llama3.1-70b --task train --system hgx-h100 --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = r.json();
  const auto& x = j["ranked"][0];
  ASSERT_TRUE(x["feasible"].get<bool>());
  const int fewer = x["gpus"].get<int>() - 8;
  auto t = run_gpuplan("train --model llama3.1-70b --system hgx-h100 --gpus " + std::to_string(fewer) + " --json");
  ASSERT_TRUE(t.exit_code == 0 || t.exit_code == 3) << t.err;
  if (t.exit_code == 0) {
    const double days = 1.41e12 / t.json()["tokens_per_s"].get<double>() / 86400.0;
    EXPECT_GT(days, 90.0 * 0.9);  // near or past the deadline (train's own search, failures not counted)
  }
}

TEST(RecommendPurchaseCli, RentAgainstOwnForAOneOffJob) {
  auto r = run_gpuplan("recommend --model llama3.1-8b --task finetune --method lora --system hgx-h100 "
                       "--rent-usd-per-gpu-hour hgx-h100=3 --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = r.json();
  const auto& x = j["ranked"][0];
  ASSERT_TRUE(x["feasible"].get<bool>());
  // Rent is the GPUs the job uses for its wall time at the price given.
  EXPECT_NEAR(x["rent_usd"].get<double>(), x["gpus"].get<double>() * x["wall_s"].get<double>() / 3600.0 * 3.0, 1e-6);
  EXPECT_EQ(x["rent_usd_per_gpu_hour"].get<double>(), 3.0);
  auto t = run_gpuplan("recommend --model llama3.1-8b --task finetune --method lora --system hgx-h100");
  EXPECT_TRUE(has(t.out, "or rents ")) << t.out;
  EXPECT_EQ(run_gpuplan("recommend --model llama3.1-8b --task infer --rent-usd-per-gpu-hour hgx-h100=3").exit_code, 2);
  EXPECT_EQ(run_gpuplan("recommend --model llama3.1-8b --task train --rent-usd-per-gpu-hour hgx-h100").exit_code, 2);
}

TEST(CsvCli, RecommendTableAsCsv) {
  auto r = run_gpuplan("recommend --model llama3.1-8b --task infer --system hgx-h100 --system hgx-h200 --csv");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::istringstream lines(r.out);
  std::string header, row;
  std::getline(lines, header);
  EXPECT_EQ(header.rfind("rank,name,", 0), 0u) << header;
  EXPECT_TRUE(has(header, "capex_usd")) << header;
  EXPECT_TRUE(has(header, "usd_per_million_tokens")) << header;
  int rows = 0;
  while (std::getline(lines, row)) ++rows;
  EXPECT_EQ(rows, 2);
}

TEST(CsvCli, RefusedWithJsonOrWithoutATable) {
  EXPECT_EQ(run_gpuplan("recommend --model llama3.1-8b --csv --json").exit_code, 2);
  auto r = run_gpuplan("memory --model llama3.1-8b --csv");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(has(r.err, "--csv")) << r.err;
}

}  // namespace
