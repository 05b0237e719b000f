// gpuplan cost, compare and recommend end to end: text, versioned JSON, bad input -> exit 2 naming the option.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>

#include "run_cli.h"

namespace {

TEST(CliCost, TcoTableAndJson) {
  const auto t = run_gpuplan("cost");
  ASSERT_EQ(t.exit_code, 0) << t.err;
  for (const char* s : {"hgx-h100", "gb200-nvl72", "/GPU-h", "capital", "electricity", "colocation", "no price"})
    EXPECT_TRUE(has(t.out, s)) << s << "\n" << t.out;
  const auto r = run_gpuplan("cost --system hgx-h100 --system gb200-nvl72 --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = r.json();
  EXPECT_EQ(j["schema"], "gpuplan.cost/v1");
  ASSERT_EQ(j["systems"].size(), 2u);
  const auto& h = j["systems"][0];
  const auto& parts = h["usd_per_gpu_hour"];
  EXPECT_NEAR(parts["total"].get<double>(),
              parts["capital"].get<double>() + parts["electricity"].get<double>() + parts["colocation"].get<double>() +
                  parts["maintenance"].get<double>(),
              1e-9);
  EXPECT_GT(j["systems"][1]["tco_ratio_vs_reference"].get<double>(), 1.0);
  EXPECT_FALSE(j["cost_profile"]["sources"]["electricity_usd_per_kwh"].get<std::string>().empty());
}

TEST(CliCost, TrainingRunCostAndOverrides) {
  const auto r = run_gpuplan("cost --system hgx-h100 --model gpt3-175b --gpus 128 --seq 2048 --global-batch 1536 "
                             "--precision fp8 --tokens 300e9 --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto w = r.json()["systems"][0]["workload"];
  ASSERT_TRUE(w.contains("usd_per_million_tokens")) << w.dump();
  EXPECT_GT(w["usd_per_million_tokens"].get<double>(), 0);
  EXPECT_GT(w["joules_per_token"].get<double>(), 0);
  EXPECT_NEAR(w["run"]["usd"].get<double>(), w["usd_per_million_tokens"].get<double>() * 300e3, 1e-6 * 300e3 * 10);
  // Dearer electricity: dearer tokens.
  const auto dear = run_gpuplan("cost --system hgx-h100 --model gpt3-175b --gpus 128 --seq 2048 --global-batch 1536 "
                                "--precision fp8 --electricity-usd-per-kwh 0.30 --json");
  ASSERT_EQ(dear.exit_code, 0) << dear.err;
  EXPECT_GT(dear.json()["systems"][0]["workload"]["usd_per_million_tokens"].get<double>(),
            w["usd_per_million_tokens"].get<double>());
}

TEST(CliCost, BadInputNamesTheOption) {
  auto r = run_gpuplan("cost --pue 0.5");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(has(r.err, "--pue")) << r.err;
  r = run_gpuplan("cost --cost-of-capital 3");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(has(r.err, "--cost-of-capital")) << r.err;
  r = run_gpuplan("cost --system hgx-h1000");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(has(r.err, "--system")) << r.err;
  const std::string path = testing::TempDir() + "/bad_cost.yaml";
  std::ofstream(path) << "schema: gpuplan.cost/v1\noperating:\n  colocation_usd_per_kw_mnth: 100\n";
  r = run_gpuplan("cost --cost-profile " + path);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(has(r.err, "colocation_usd_per_kw_mnth")) << r.err;
}

TEST(CliSearchCost, RanksByDollarsPerMillionTokens) {
  const std::string job = "search --model llama3.1-8b --gpus 16 --global-batch 64 --seq 4096 --top 3 ";
  const auto r = run_gpuplan(job + "--system hgx-h100 --objective cost --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = r.json();
  EXPECT_EQ(j["objective"], "cost");
  const double rate = j["usd_per_gpu_hour"].get<double>();
  double prev = 0;
  for (const auto& c : j["top"]) {
    const double usd = c["usd_per_million_tokens"].get<double>();
    EXPECT_NEAR(usd, rate / 3600.0 / c["tokens_per_s_per_gpu"].get<double>() * 1e6, 1e-9 * usd);
    EXPECT_GE(usd, prev);  // cheapest first
    prev = usd;
  }
  // A system with no price cannot be ranked by cost: exit 2 naming the option and the way out.
  const auto u = run_gpuplan(job + "--system mi300x-platform --objective cost");
  EXPECT_EQ(u.exit_code, 2);
  EXPECT_TRUE(has(u.err, "--objective") && has(u.err, "price_usd")) << u.err;
}

TEST(CliCompare, DefaultsAnswerTheHeadline) {
  const auto r = run_gpuplan("compare");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* s : {"GB300 NVL72", "HGX H200", "A against B per GPU", "best format", "FP8 dense peak",
                        "Memory bandwidth", "NVLink", "training tokens/s", "serving, 50 tok/s/user", "/system", "/$",
                        "/kW", "Which headline uses which yardstick", "along the throughput/interactivity curve",
                        "llama3.1-70b", "deepseek-r1"})
    EXPECT_TRUE(has(r.out, s)) << s << "\n" << r.out;
}

TEST(CliCompare, JsonRatiosAreConsistent) {
  const auto r = run_gpuplan("compare gb200-nvl72 hgx-h100 --model llama3.1-8b --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = r.json();
  EXPECT_EQ(j["schema"], "gpuplan.compare/v1");
  EXPECT_EQ(j["a"]["system"], "gb200-nvl72");
  bool saw_training = false;
  for (const auto& y : j["yardsticks"]) {
    if (y["a"].is_null() || y["b"].is_null() || y["b"].get<double>() == 0) continue;
    const double ratio = y["a"].get<double>() / y["b"].get<double>();
    EXPECT_NEAR(y["per"]["gpu"]["ratio"].get<double>(), ratio, 1e-9 * ratio) << y["key"];
    if (y["scalable"].get<bool>()) {
      EXPECT_NEAR(y["per"]["system"]["ratio"].get<double>(), ratio * 9, 1e-9 * ratio * 9) << y["key"];
    }
    saw_training |= y["group"] == "training";
  }
  EXPECT_TRUE(saw_training);
  const auto& inf = j["models"][0]["inference"];
  ASSERT_FALSE(inf["frontier_a"].empty());
  ASSERT_FALSE(inf["curve"].empty());
}

TEST(CliCompare, SaysWhenASideIsNotCalibrated) {
  const auto r = run_gpuplan("compare mi300x-platform hgx-h100 --model llama3.1-8b --task train --gpus 8");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(has(r.out, "rough estimates")) << r.out;
  const auto j = run_gpuplan("compare mi300x-platform hgx-h100 --model llama3.1-8b --task train --gpus 8 --json").json();
  EXPECT_EQ(j["a"]["training_efficiency_fitted_on"], "");
  EXPECT_NE(j["b"]["training_efficiency_fitted_on"], "");
  const auto d = run_gpuplan("compare");
  EXPECT_FALSE(has(d.out, "rough estimates")) << d.out;  // both defaults are fitted
}

// Each modelled ratio carries the chance that A is ahead under its band: above one half where the ratio
// is above 1, below where it is below.
TEST(CliCompare, RatiosSayTheChanceAIsAhead) {
  const auto r = run_gpuplan("compare hgx-h200 hgx-h100 --model llama3.1-70b --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto band = r.json()["models"][0]["band"];
  for (const char* k : {"training_ratio", "serving_ratio_at_interactivity"}) {
    ASSERT_TRUE(band.contains(k)) << band.dump();
    const double value = band[k]["value"].get<double>(), p = band[k]["p_a_ahead"].get<double>();
    EXPECT_GE(p, 0.0);
    EXPECT_LE(p, 1.0);
    if (band[k]["low"].get<double>() > 1) {
      EXPECT_GT(p, 0.9) << k;
    }
    if (value > 1) {
      EXPECT_GT(p, 0.5) << k;
    } else if (value < 1) {
      EXPECT_LT(p, 0.5) << k;
    }
  }
  EXPECT_TRUE(has(run_gpuplan("compare hgx-h200 hgx-h100 --model llama3.1-70b").out, "P(A ahead)"));
}

TEST(CliCompare, ClaimsReplayed) {
  const auto r = run_gpuplan("compare --claim h200-1.9x-llama70b --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto c = r.json()["claims"][0];
  EXPECT_EQ(c["claimed_ratio"].get<double>(), 1.9);
  ASSERT_TRUE(c["evaluated"].get<bool>()) << c.dump();
  EXPECT_GT(c["ratio"].get<double>(), 1.0);
  // The model's ratio with its band, and the chance the claimed ratio holds under it: the claim lies
  // above the band's top, so well under the band's 10%.
  const double ratio = c["ratio"].get<double>(), low = c["ratio_band"]["low"].get<double>(),
               high = c["ratio_band"]["high"].get<double>(), p = c["p_at_least_claimed"].get<double>();
  EXPECT_LT(low, ratio);
  EXPECT_GT(high, ratio);
  ASSERT_LT(high, 1.9);
  EXPECT_GE(p, 0.0);
  EXPECT_LT(p, 0.1);
  const auto t = run_gpuplan("compare --claim builtin");
  ASSERT_EQ(t.exit_code, 0) << t.err;
  for (const char* s : {"claimed 30x", "claimed 4x", "claimed 1.9x", "per watt", "source:", "P(ratio >= 1.9x claimed)"})
    EXPECT_TRUE(has(t.out, s)) << s << "\n" << t.out;
}

TEST(CliCompare, BadInputNamesTheOption) {
  auto r = run_gpuplan("compare --per furlong");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(has(r.err, "--per")) << r.err;
  r = run_gpuplan("compare gb300-nvl72");
  EXPECT_EQ(r.exit_code, 2);
  r = run_gpuplan("compare --claim no-such-claim");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(has(r.err, "--claim")) << r.err;
  r = run_gpuplan("compare --tokens-per-user 0");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(has(r.err, "--tokens-per-user")) << r.err;
}

// A claim states its own systems, model and conditions: what the side-by-side comparison reads is refused
// with --claim, naming the first option given; the cost inputs (its per-$ ratio) still apply.
TEST(CliCompare, ClaimRefusesTheComparisonsOptions) {
  auto r = run_gpuplan("compare hgx-b200 hgx-a100 --claim h200-1.9x-llama70b");
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_TRUE(has(r.err, "systems: do not apply with --claim")) << r.err;
  for (const char* o : {"--model llama3.1-8b", "--isl 100", "--gpus 64", "--precision fp4", "--per usd", "--task train",
                        "--fabric-topology rail-only", "--long-context 4096"}) {
    r = run_gpuplan(std::string("compare --claim h200-1.9x-llama70b ") + o);
    EXPECT_EQ(r.exit_code, 2) << o << "\n" << r.out;
    const std::string name = std::string(o).substr(0, std::string(o).find(' '));
    EXPECT_TRUE(has(r.err, name + ": does not apply with --claim")) << o << ": " << r.err;
  }
  r = run_gpuplan("compare --claim h200-1.9x-llama70b --isl 100 --osl 7");
  EXPECT_TRUE(has(r.err, "--isl: ") && has(r.err, "also given: --osl")) << r.err;
  r = run_gpuplan("compare --claim h200-1.9x-llama70b --pue 2 --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.json()["cost_profile"]["pue"].get<double>(), 2.0);
}

// Options of the task not asked are refused, as cost and recommend refuse them.
TEST(CliCompare, OtherTasksOptionsAreRefused) {
  auto r = run_gpuplan("compare --task train --isl 100 --osl 7 --precision fp4 --tokens-per-user-per-s 10 --ttft-ms 5");
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_TRUE(has(r.err, "--isl: applies to --task infer or both (serving)")) << r.err;
  for (const char* o : {"--osl 7", "--precision fp4", "--tokens-per-user 10", "--ttft-ms 5", "--tpot-ms 5"}) {
    r = run_gpuplan(std::string("compare --task train ") + o);
    EXPECT_EQ(r.exit_code, 2) << o << "\n" << r.out;
    EXPECT_TRUE(has(r.err, std::string(o).substr(0, std::string(o).find(' ')))) << o << ": " << r.err;
  }
  r = run_gpuplan("compare --task train --prefix-hit 0.5");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(has(r.err, "--prefix-hit: applies to --task infer")) << r.err;
  r = run_gpuplan("compare --task infer --gpus 64 --train-precision fp8 --seq 4096");
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_TRUE(has(r.err, "--gpus: applies to --task train or both (a training run)")) << r.err;
  for (const char* o : {"--train-precision fp8", "--seq 4096", "--global-batch 64"}) {
    r = run_gpuplan(std::string("compare --task infer ") + o);
    EXPECT_EQ(r.exit_code, 2) << o << "\n" << r.out;
    EXPECT_TRUE(has(r.err, std::string(o).substr(0, std::string(o).find(' ')))) << o << ": " << r.err;
  }
}

TEST(CliRecommend, ServingAndTraining) {
  auto r = run_gpuplan("recommend --model llama3.1-8b --task infer --users 16 --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = r.json();
  EXPECT_EQ(j["schema"], "gpuplan.recommend/v1");
  ASSERT_FALSE(j["ranked"].empty());
  EXPECT_TRUE(j["ranked"][0]["feasible"].get<bool>());
  EXPECT_LT(j["ranked"][0]["gpus_per_unit"].get<int>(), 72);
  EXPECT_FALSE(j["ranked"][0]["reasons"].empty());
  r = run_gpuplan("recommend --model llama3.1-70b --task finetune --system hgx-h100 --system hgx-h200 --system a10");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* s : {"#1", "GPUs", "days", "J/token", "a10", "no power figure"}) EXPECT_TRUE(has(r.out, s)) << s << "\n" << r.out;
}

TEST(CliRecommend, BadInputNamesTheOption) {
  auto r = run_gpuplan("recommend --model llama3.1-8b --task deploy");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(has(r.err, "--task")) << r.err;
  r = run_gpuplan("recommend --model llama3.1-8b --users 0");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(has(r.err, "--users")) << r.err;
  r = run_gpuplan("recommend --model llama3.1-8b --task infer --tokens 1e12");
  EXPECT_EQ(r.exit_code, 2);
  r = run_gpuplan("recommend --model llama3.1-8b --system nope");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(has(r.err, "--system")) << r.err;
}

}  // namespace
