#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <string>

#include "run_cli.h"

namespace {

bool has(const std::string& text, const std::string& what) { return text.find(what) != std::string::npos; }
const std::string kSrc = GPUPLAN_SOURCE_DIR;

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
    EXPECT_LE(s["without_spares"]["goodput"].get<double>(), g);
  }
}

TEST(GoodputCli, MtbfAndBadInput) {
  auto j = run_gpuplan("goodput --model llama3.1-70b --system hgx-h100 --gpus 16384 --plan tp=8,pp=4 "
                       "--mtbf 50000 --checkpoint 60 --json").json();
  EXPECT_NEAR(j["systems"][0]["failures_per_hour"].get<double>(), 16384.0 / 50000, 1e-9);
  EXPECT_DOUBLE_EQ(j["systems"][0]["checkpoint_s"].get<double>(), 60);
  auto bad = run_gpuplan("goodput --mtbf 0.5");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_TRUE(has(bad.err, "--mtbf")) << bad.err;
  bad = run_gpuplan("goodput --system gb300-nvl72 --compare hgx-h20 --gpus 72 --plan tp=8 --global-batch 72");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_TRUE(has(bad.err, "--compare")) << bad.err;
}

}  // namespace
