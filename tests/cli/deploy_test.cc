#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "run_cli.h"

namespace {

TEST(SiteCli, MixedClusterOnAirAndLiquidHall) {
  auto r = run_gpuplan("site --cluster " + kSrc + "/examples/clusters/gb300-h200-mixed.yaml --site " + kSrc +
                       "/examples/sites/hall-air-liquid.yaml");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(has(r.out, "gb300-nvl72")) << r.out;
  EXPECT_TRUE(has(r.out, "142.0 kW")) << r.out;
  EXPECT_TRUE(has(r.out, "Fits.")) << r.out;
}

TEST(SiteCli, AirOnlySiteSaysWhy) {
  auto r = run_gpuplan("site --cluster " + kSrc + "/examples/clusters/gb300-h200-mixed.yaml --site " + kSrc +
                       "/examples/sites/air-only.yaml");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(has(r.out, "needs liquid cooling; your air positions take 20 kW")) << r.out;
  auto j = run_gpuplan("site --json --cluster " + kSrc + "/examples/clusters/gb300-h200-mixed.yaml --site " + kSrc +
                       "/examples/sites/air-only.yaml").json();
  EXPECT_EQ(j["schema"], "gpuplan.site/v1");
  EXPECT_FALSE(j["cluster"]["fits"].get<bool>());
  EXPECT_EQ(j["cluster"]["violations"][0]["code"], "site.cooling");
  EXPECT_EQ(j["cluster"]["groups"][0]["site_capacity"]["units"], 0);
}

TEST(SiteCli, PowerBudget) {
  auto r = run_gpuplan("site --power-mw 10 --systems hgx-h200,gb300-nvl72 --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = r.json();
  ASSERT_EQ(j["budget"]["systems"].size(), 2u);
  for (const auto& s : j["budget"]["systems"]) {
    EXPECT_GT(s["gpus"].get<int>(), 0);
    EXPECT_GT(s["training_tokens_per_s_per_mw"].get<double>(), 0);
  }
  // 10 MW x 0.75 / 1.3 = 5.77 MW of IT; a GB300 rack with switch and storage shares: 153.4 kW -> 37 racks.
  EXPECT_EQ(j["budget"]["systems"][1]["units"], 37);
}

TEST(SiteCli, PowerBudgetServing) {
  // Default operating point: llama3.1-70b, fp8, ISL/OSL 1024/1024, no latency limit.
  auto r = run_gpuplan("site --power-mw 10 --systems hgx-h200,gb300-nvl72 --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = r.json();
  EXPECT_EQ(j["budget"]["serving"]["model"], "llama3.1-70b");
  EXPECT_EQ(j["budget"]["serving"]["isl"], 1024);
  std::vector<double> unlimited;
  for (const auto& s : j["budget"]["systems"]) {
    const auto& sv = s["serving"];
    ASSERT_TRUE(sv["feasible"].get<bool>()) << sv.dump();
    const double total = sv["output_tokens_per_s"].get<double>();
    EXPECT_GT(total, 0);
    // Per GPU at one unit, times the GPUs the budget buys; per MW of the 10 MW budget.
    EXPECT_NEAR(total, sv["tokens_per_s_per_gpu"].get<double>() * s["gpus"].get<int>(), 1e-6 * total);
    EXPECT_NEAR(sv["output_tokens_per_s_per_mw"].get<double>(), total / 10, 1e-6 * total);
    EXPECT_EQ(sv["swept_gpus"], s["system"] == "hgx-h200" ? 8 : 72);
    unlimited.push_back(sv["tokens_per_s_per_gpu"].get<double>());
  }
  // A stated interactivity: every user gets at least 100 tokens/s, so no more throughput than unlimited.
  auto limited = run_gpuplan("site --power-mw 10 --systems hgx-h200,gb300-nvl72 --tokens-per-user-per-s 100 --json");
  ASSERT_EQ(limited.exit_code, 0) << limited.err;
  auto lj = limited.json();
  EXPECT_EQ(lj["budget"]["serving"]["tokens_per_s_per_user"].get<double>(), 100.0);
  EXPECT_EQ(lj["budget"]["serving"]["tpot_limit_s"].get<double>(), 0.0);
  for (std::size_t i = 0; i < 2; ++i) {
    const auto& sv = lj["budget"]["systems"][i]["serving"];
    ASSERT_TRUE(sv["feasible"].get<bool>()) << sv.dump();
    EXPECT_GE(sv["tokens_per_s_per_user"].get<double>(), 100.0);
    EXPECT_LE(sv["tokens_per_s_per_gpu"].get<double>(), unlimited[i]);
  }
  // The text table shows both columns.
  auto text = run_gpuplan("site --power-mw 10 --systems hgx-h200,gb300-nvl72 --isl 8192 --osl 1024");
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_TRUE(has(text.out, "serving llama3.1-70b fp8 ISL/OSL 8192/1024")) << text.out;
  EXPECT_TRUE(has(text.out, "tok/s/MW")) << text.out;
}

TEST(SiteCli, BudgetOptionsNeedABudget) {
  for (const std::string opt : {"--isl 2048", "--tokens-per-user-per-s 50", "--model llama3.1-8b", "--systems hgx-h200"}) {
    auto r = run_gpuplan("site --cluster " + kSrc + "/examples/clusters/hgx-h100-256.yaml " + opt);
    EXPECT_EQ(r.exit_code, 2) << opt;
    EXPECT_TRUE(has(r.err, opt.substr(0, opt.find(' ')))) << r.err;
    EXPECT_TRUE(has(r.err, "--power-mw")) << r.err;
  }
  auto r = run_gpuplan("site --power-mw 10 --tpot-ms 20 --tokens-per-user-per-s 50");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(has(r.err, "--tpot-ms")) << r.err;
  r = run_gpuplan("site --power-mw 10 --infer-precision mxfp8");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(has(r.err, "--infer-precision")) << r.err;
  r = run_gpuplan("site --power-mw 10 --isl 0");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(has(r.err, "--isl")) << r.err;
  r = run_gpuplan("site --power-mw -3");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(has(r.err, "--power-mw")) << r.err;
}

TEST(SiteCli, BadSiteFileNamesTheField) {
  const std::string path = testing::TempDir() + "bad_site.yaml";
  std::ofstream(path) << "positions:\n  - count: 4\n    cooling: air\n    max_kw: 20\n    max_kwh: 5\n";
  auto r = run_gpuplan("site --cluster " + kSrc + "/examples/clusters/hgx-h100-256.yaml --site " + path);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(has(r.err, "positions[0].max_kwh")) << r.err;
  std::ofstream(path) << "positions:\n  - count: 4\n    cooling: water\n    max_kw: 20\n";
  r = run_gpuplan("site --cluster " + kSrc + "/examples/clusters/hgx-h100-256.yaml --site " + path);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(has(r.err, "cooling")) << r.err;
  EXPECT_TRUE(has(r.err, "air or liquid")) << r.err;
  std::ofstream(path) << "positions:\n  - count: 4\n    cooling: air\n    max_kw: -20\n";
  r = run_gpuplan("site --cluster " + kSrc + "/examples/clusters/hgx-h100-256.yaml --site " + path);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(has(r.err, "positions[0].max_kw")) << r.err;
  EXPECT_TRUE(has(r.err, "between 0.1 and 10000")) << r.err;  // the allowed range
  EXPECT_EQ(run_gpuplan("site").exit_code, 2);
}

TEST(GoodputCli, CompareTextAndJson) {
  const std::string args = "goodput --model llama3.1-405b --system gb300-nvl72 --compare hgx-h200 --gpus 16128 "
                           "--global-batch 2016 --plan tp=8,pp=16";
  auto r = run_gpuplan(args);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(has(r.out, "nvlink")) << r.out;
  EXPECT_TRUE(has(r.out, "Daly")) << r.out;
  EXPECT_TRUE(has(r.out, "with spares")) << r.out;
  auto j = run_gpuplan(args + " --json").json();
  EXPECT_EQ(j["schema"], "gpuplan.goodput/v1");
  ASSERT_EQ(j["systems"].size(), 2u);
  const auto& nvl = j["systems"][0];
  const auto& hgx = j["systems"][1];
  EXPECT_GT(nvl["failures_per_hour"].get<double>(), hgx["failures_per_hour"].get<double>());
  for (const auto& s : {nvl, hgx}) {
    const double g = s["with_spares"]["goodput"].get<double>();
    EXPECT_GT(g, 0.5);
    EXPECT_LT(g, 1.0);
    // Without spares the job waits for each repair: slower, but it finishes.
    const auto& none = s["without_spares"];
    EXPECT_GT(none["goodput"].get<double>(), 0.1);
    EXPECT_LT(none["goodput"].get<double>(), g);
    EXPECT_GT(none["wall_s"].get<double>(), s["with_spares"]["wall_s"].get<double>());
    EXPECT_GT(none["restart_s"].get<double>(), s["with_spares"]["restart_s"].get<double>());
    const auto& sh = none["time_shares"];
    EXPECT_NEAR(sh["useful"].get<double>() + sh["checkpoint"].get<double>() + sh["down"].get<double>() +
                    sh["rework"].get<double>(), 1.0, 1e-9);
  }
  // One number each way: effective tokens/s (failure-free x goodput) of the first over the second.
  const auto& c = j["comparison"];
  EXPECT_EQ(c["system"], "gb300-nvl72");
  EXPECT_EQ(c["versus"], "hgx-h200");
  for (const char* k : {"with_spares", "without_spares"}) {
    const double want = nvl[k]["effective_tokens_per_s"].get<double>() / hgx[k]["effective_tokens_per_s"].get<double>();
    EXPECT_NEAR(c[std::string(k) + "_speedup"].get<double>(), want, 1e-9 * want) << k;
  }
  EXPECT_NEAR(c["failure_free_speedup"].get<double>(),
              nvl["tokens_per_s"].get<double>() / hgx["tokens_per_s"].get<double>(), 1e-9);
  EXPECT_TRUE(has(r.out, "Side by side")) << r.out;
  EXPECT_TRUE(has(r.out, "without")) << r.out;
  EXPECT_FALSE(has(r.out, "never finishes")) << r.out;
}

TEST(GoodputCli, MtbfAndBadInput) {
  auto j = run_gpuplan("goodput --model llama3.1-70b --system hgx-h100 --gpus 16384 --plan tp=8,pp=4 "
                       "--global-batch 2048 --mtbf 50000 --checkpoint 60 --json").json();
  EXPECT_NEAR(j["systems"][0]["failures_per_hour"].get<double>(), 16384.0 / 50000, 1e-9);
  EXPECT_DOUBLE_EQ(j["systems"][0]["checkpoint_s"].get<double>(), 60);
  for (const std::string opt : {"--mtbf 0.5", "--mtbf 0", "--checkpoint 0", "--checkpoint -4"}) {
    auto bad = run_gpuplan("goodput " + opt);
    EXPECT_EQ(bad.exit_code, 2) << opt;
    EXPECT_TRUE(has(bad.err, opt.substr(0, opt.find(' ')))) << bad.err;
  }
  auto bad = run_gpuplan("goodput --mtbf 0.5");
  bad = run_gpuplan("goodput --system gb300-nvl72 --compare hgx-h900 --gpus 72 --plan tp=8 --global-batch 72");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_TRUE(has(bad.err, "--compare")) << bad.err;
}

// A price given replaces the TCO, the only figure the cost options price: given with one, they are refused,
// naming them; without one, they price the TCO.
TEST(GoodputCli, CostOptionsWithAPriceAreRefused) {
  const std::string q = "goodput --model llama3.1-8b --system hgx-h100 --gpus 64";
  auto r = run_gpuplan(q + " --usd-per-gpu-hour 2 --pue 2 --maintenance-fraction 0.5");
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_TRUE(has(r.err, "--pue: prices each system's TCO, which --usd-per-gpu-hour replaces")) << r.err;
  EXPECT_TRUE(has(r.err, "also given: --maintenance-fraction")) << r.err;
  r = run_gpuplan(q + " --usd-per-gpu-hour 2 --electricity-usd-per-kwh 0.2");
  EXPECT_TRUE(has(r.err, "--electricity-usd-per-kwh: prices each system's TCO")) << r.err;
  const auto tco = run_gpuplan(q + " --json"), pue = run_gpuplan(q + " --pue 2 --json");
  ASSERT_EQ(pue.exit_code, 0) << pue.err;
  EXPECT_GT(pue.json()["systems"][0]["usd_per_gpu_hour"].get<double>(),
            tco.json()["systems"][0]["usd_per_gpu_hour"].get<double>());
}

// --tokens has cost's limit: 1e16 tokens.
TEST(GoodputCli, TokensAreCappedAsCostCapsThem) {
  const std::string q = "goodput --model llama3.1-8b --system hgx-h100 --gpus 64 --tokens ";
  for (const char* t : {"1e308", "2e16", "0"}) {
    const auto r = run_gpuplan(q + t);
    EXPECT_EQ(r.exit_code, 2) << t << "\n" << r.out;
    EXPECT_TRUE(has(r.err, "--tokens: must be above 0 and at most 1e16")) << t << ": " << r.err;
  }
  EXPECT_EQ(run_gpuplan(q + "1e16").exit_code, 0);
}

}  // namespace
