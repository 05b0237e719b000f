// gpuplan search and gpuplan scale end to end: text, JSON, bad input -> exit 2 naming the option.
#include <gtest/gtest.h>

#include "run_cli.h"

namespace {

TEST(CliSearch, Text) {
  const auto r = run_gpuplan(
      "search --model llama3.1-70b --system hgx-h100 --gpus 64 --global-batch 128 --seq 4096 --precision bf16 --top 3");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* s : {"enumerated", "dropped", "divisibility", "memory", "evaluated", "#1", "#3", "tokens/s/GPU",
                        "MFU", "compute", "exposed comm", "bubble", "optimizer", "tp=", "of 85.5 GB"})
    EXPECT_TRUE(has(r.out, s)) << s << "\n" << r.out;
  EXPECT_FALSE(has(r.out, "#4")) << r.out;
}

TEST(CliSearch, Json) {
  const auto r = run_gpuplan(
      "search --model llama3.1-70b --system hgx-h100 --gpus 64 --global-batch 128 --seq 4096 --top 4 --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = r.json();
  EXPECT_EQ(j["schema"], "gpuplan.search/v1");
  const auto n = j["enumerated"].get<long long>();
  EXPECT_EQ(n, j["evaluated"].get<long long>() + j["dropped"]["divisibility"].get<long long>() +
                   j["dropped"]["memory"].get<long long>());
  ASSERT_EQ(j["top"].size(), 4u);
  double prev = 1e300;
  for (const auto& c : j["top"]) {
    const double t = c["tokens_per_s"].get<double>();
    EXPECT_LE(t, prev);
    prev = t;
    EXPECT_TRUE(c["memory"]["fits"].get<bool>());
    EXPECT_LE(c["memory"]["total_bytes"].get<double>(), c["memory"]["capacity_bytes"].get<double>());
    EXPECT_NEAR(c["breakdown"]["total_s"].get<double>(), c["step_time_s"].get<double>(), 1e-9);
    const auto& p = c["plan"];
    EXPECT_EQ(p["tp"].get<int>() * p["pp"].get<int>() * p["cp"].get<int>() * p["dp"].get<int>(), 64);
  }
}

TEST(CliSearch, NothingFitsExits3AsTrain) {
  const auto r = run_gpuplan("search --model llama3.1-405b --system hgx-h100 --gpus 8 --global-batch 64 --seq 8192 --json");
  ASSERT_EQ(r.exit_code, 3) << r.err;
  const auto j = r.json();
  EXPECT_TRUE(j["top"].empty());
  EXPECT_EQ(j["evaluated"], 0);
  EXPECT_GT(j["dropped"]["memory"].get<long long>(), 0);
  EXPECT_FALSE(j["closest"]["memory"]["fits"].get<bool>());
  const auto t = run_gpuplan("search --model llama3.1-405b --system hgx-h100 --gpus 8 --global-batch 64 --seq 8192");
  EXPECT_EQ(t.exit_code, 3);
  EXPECT_TRUE(has(t.out, "No plan fits in memory")) << t.out;
  EXPECT_EQ(run_gpuplan("train --model llama3.1-405b --system hgx-h100 --gpus 8 --global-batch 64 --seq 8192").exit_code, 3);
}

TEST(CliSearch, BadInputExits2NamingTheOption) {
  const std::string base = "search --model llama3.1-8b --system hgx-h100 ";
  struct Case {
    std::string args, option;
  } cases[] = {
      {base + "--gpus 0 --global-batch 8", "--gpus"},
      {base + "--gpus 8 --global-batch -1", "--global-batch"},
      {base + "--gpus 8 --global-batch 8 --seq 0", "--seq"},
      {base + "--gpus 8 --global-batch 8 --top 0", "--top"},
      {base + "--gpus 8 --global-batch 8 --precision fp7", "--precision"},
      {base + "--gpus 8 --global-batch 8 --objective speed", "--objective"},
      {"search --model nosuchmodel --system hgx-h100 --gpus 8 --global-batch 8", "--model"},
      {"search --model llama3.1-8b --system nosuch --gpus 8 --global-batch 8", "--system"},
  };
  for (const auto& c : cases) {
    const auto r = run_gpuplan(c.args);
    EXPECT_EQ(r.exit_code, 2) << c.args << "\n" << r.out << r.err;
    EXPECT_TRUE(has(r.err, c.option)) << c.args << "\n" << r.err;
  }
  EXPECT_EQ(run_gpuplan("search --system hgx-h100 --gpus 8 --global-batch 8").exit_code, 2);
}

TEST(CliScale, WeakText) {
  const auto r = run_gpuplan(
      "scale --model llama3.1-8b --system hgx-h100 --gpus 8,16,32 --mode weak --batch-per-gpu 2 --seq 4096");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* s : {"weak scaling", "GPUs", "tokens/s/GPU", "MFU", "step s", "tp="})
    EXPECT_TRUE(has(r.out, s)) << s << "\n" << r.out;
  EXPECT_TRUE(r.err.empty()) << r.err;  // no progress when stderr is not a terminal
}

TEST(CliScale, StrongJsonWithFixedPlan) {
  const auto r = run_gpuplan(
      "scale --model llama3.1-70b --system hgx-h100 --gpus 64,128,24 --mode strong --global-batch 512 "
      "--plan tp=8,pp=4 --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = r.json();
  EXPECT_EQ(j["schema"], "gpuplan.scale/v1");
  EXPECT_EQ(j["mode"], "strong");
  EXPECT_EQ(j["plan_source"], "fixed");
  ASSERT_EQ(j["points"].size(), 3u);
  EXPECT_TRUE(j["points"][0]["found"].get<bool>());
  EXPECT_EQ(j["points"][0]["plan"]["dp"], 2);
  EXPECT_EQ(j["points"][1]["plan"]["dp"], 4);
  EXPECT_EQ(j["points"][1]["global_batch"], 512);
  EXPECT_GT(j["points"][0]["mfu_6n"].get<double>(), 0.0);
  EXPECT_FALSE(j["points"][2]["found"].get<bool>());
  EXPECT_TRUE(has(j["points"][2]["reason"].get<std::string>(), "divisibility"));
}

TEST(CliScale, NoPlanAtAnyCountExits3) {
  // Some counts without a plan is an answer (exit 0, above); none at any count is train's exit 3.
  const auto r = run_gpuplan(
      "scale --model llama3.1-405b --system hgx-h100 --gpus 8,16 --mode weak --batch-per-gpu 1 --json");
  ASSERT_EQ(r.exit_code, 3) << r.err;
  const auto j = r.json();
  ASSERT_EQ(j["points"].size(), 2u);
  for (const auto& p : j["points"]) EXPECT_FALSE(p["found"].get<bool>());
}

TEST(CliScale, BadInputExits2NamingTheOption) {
  const std::string base = "scale --model llama3.1-8b --system hgx-h100 ";
  struct Case {
    std::string args, option;
  } cases[] = {
      {base + "--gpus 8,x --mode strong --global-batch 64", "--gpus"},
      {base + "--gpus 8,0 --mode strong --global-batch 64", "--gpus"},
      {base + "--gpus 8, --mode strong --global-batch 64", "--gpus"},
      {base + "--gpus 8 --mode sideways --global-batch 64", "--mode"},
      {base + "--gpus 8 --mode strong --global-batch 0", "--global-batch"},
      {base + "--gpus 8 --mode strong --global-batch 64 --batch-per-gpu 1", "--batch-per-gpu"},
      {base + "--gpus 8 --mode weak", "--batch-per-gpu"},
      {base + "--gpus 8 --mode weak --batch-per-gpu -1", "--batch-per-gpu"},
      {base + "--gpus 8 --mode weak --batch-per-gpu 1 --global-batch 8", "--global-batch"},
      {base + "--gpus 8 --mode weak --batch-per-gpu 1 --seq 0", "--seq"},
      {base + "--gpus 8 --mode weak --batch-per-gpu 1 --plan tp=banana", "--plan"},
  };
  for (const auto& c : cases) {
    const auto r = run_gpuplan(c.args);
    EXPECT_EQ(r.exit_code, 2) << c.args << "\n" << r.out << r.err;
    EXPECT_TRUE(has(r.err, c.option)) << c.args << "\n" << r.err;
  }
}

// Without --global-batch every training command runs the model's default (published schedules), the
// same sequence count whatever the GPU count, and says so.
TEST(CliDefaultBatch, OneDefaultThatFollowsTheModelEverywhere) {
  const std::string job = "--model llama3.1-70b --system hgx-h100 --seq 8192 --json";
  const auto t = run_gpuplan("train --gpus 64 " + job);
  ASSERT_EQ(t.exit_code, 0) << t.err;
  const long long batch = t.json()["global_batch"].get<long long>();
  EXPECT_EQ(t.json()["global_batch_basis"]["source"], "default");
  const auto s = run_gpuplan("search --gpus 128 --top 1 " + job);
  ASSERT_EQ(s.exit_code, 0) << s.err;
  EXPECT_EQ(s.json()["global_batch"].get<long long>(), batch);  // not a multiple of the GPUs
  const auto sc = run_gpuplan("scale --gpus 64,128 --mode strong " + job);
  ASSERT_EQ(sc.exit_code, 0) << sc.err;
  EXPECT_EQ(sc.json()["global_batch"].get<long long>(), batch);
  const auto c =
      run_gpuplan("cost --system hgx-h100 --model llama3.1-70b --gpus 64 --seq 8192 --plan tp=8,pp=2,vp=5 --json");
  ASSERT_EQ(c.exit_code, 0) << c.err;
  const nlohmann::json cost_doc = c.json();
  const nlohmann::json& w = cost_doc["systems"][0]["workload"];
  EXPECT_EQ(w["global_batch"].get<long long>(), batch) << w.dump();
  EXPECT_EQ(w["plan_source"], "user") << w.dump();
  const auto text = run_gpuplan("train --gpus 64 --model llama3.1-70b --system hgx-h100 --seq 8192");
  EXPECT_TRUE(has(text.out, "--global-batch to change")) << text.out;
}

TEST(CliDefaultBatch, UnknownSystemListsTheSystems) {
  const auto r = run_gpuplan("train --model llama3.1-8b --system hgx-h900 --gpus 8");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(has(r.err, "--system")) << r.err;
  EXPECT_TRUE(has(r.err, "hgx-h100")) << r.err;
}

}  // namespace
