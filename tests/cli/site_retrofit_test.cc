// `gpuplan site`: what has to change (positions, CDUs, water, feed, switch racks, floor) and --it-mw.
#include <gtest/gtest.h>

#include <string>

#include "run_cli.h"

namespace {

TEST(SiteRetrofitCli, AirOnlySiteListsTheLiquidRetrofit) {
  auto r = run_gpuplan("site --json --cluster " + kSrc + "/examples/clusters/gb300-h200-mixed.yaml --site " + kSrc +
                       "/examples/sites/air-only.yaml");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = r.json()["retrofit"];
  bool liquid = false;
  for (const auto& p : j["positions"])
    if (p["cooling"] == "liquid") {
      liquid = true;
      EXPECT_EQ(p["needed"], 16);
      EXPECT_EQ(p["to_add"], 16);
    }
  EXPECT_TRUE(liquid);
  EXPECT_GT(j["water_flow_kg_per_s"].get<double>(), 0);
  EXPECT_GT(j["switch_racks"].get<int>(), 0);
  EXPECT_EQ(j["floor"][0]["rack_kg"], 1360);
  auto t = run_gpuplan("site --cluster " + kSrc + "/examples/clusters/gb300-h200-mixed.yaml --site " + kSrc +
                       "/examples/sites/air-only.yaml");
  EXPECT_TRUE(has(t.out, "What has to change")) << t.out;
  EXPECT_TRUE(has(t.out, "add 16 liquid-cooled positions")) << t.out;
}

TEST(SiteRetrofitCli, ItBudgetIsFacilityOverPueAndHeadroom) {
  auto a = run_gpuplan("site --it-mw 5.77 --systems gb300-nvl72 --json");
  ASSERT_EQ(a.exit_code, 0) << a.err;
  auto b = run_gpuplan("site --power-mw 10 --systems gb300-nvl72 --json");
  // 10 MW x 0.75 / 1.3 = 5.77 MW of IT: the same racks.
  EXPECT_EQ(a.json()["budget"]["systems"][0]["units"], b.json()["budget"]["systems"][0]["units"]);
  EXPECT_EQ(run_gpuplan("site --it-mw 0 --systems gb300-nvl72").exit_code, 2);
  EXPECT_EQ(run_gpuplan("site --it-mw 5 --power-mw 5").exit_code, 2);
}

// A mixed fleet: each part gets its share of the budget; a part of 70% of 10 MW buys what 7 MW buys alone.
TEST(SiteRetrofitCli, MixedFleetSplitsTheBudget) {
  auto m = run_gpuplan("site --power-mw 10 --mix gb300-nvl72:70,hgx-h200:30 --json");
  ASSERT_EQ(m.exit_code, 0) << m.err;
  auto j = m.json()["budget"];
  EXPECT_TRUE(j["mixed_fleet"].get<bool>());
  ASSERT_EQ(j["systems"].size(), 2u);
  EXPECT_NEAR(j["systems"][0]["budget_w"].get<double>() + j["systems"][1]["budget_w"].get<double>(), 10e6, 1e-3);
  auto alone = run_gpuplan("site --power-mw 7 --systems gb300-nvl72 --json").json()["budget"]["systems"][0];
  EXPECT_EQ(j["systems"][0]["units"], alone["units"]);
  EXPECT_NEAR(j["systems"][0]["training_tokens_per_s_per_mw"].get<double>(),
              alone["training_tokens_per_s_per_mw"].get<double>(), 1e-6 * alone["training_tokens_per_s_per_mw"].get<double>());
  for (const char* bad : {"gb300-nvl72:70,hgx-h200:20", "gb300-nvl72", "gb300-nvl72:abc,hgx-h200:100", "gb301:100"}) {
    auto r = run_gpuplan(std::string("site --power-mw 10 --mix ") + bad);
    EXPECT_EQ(r.exit_code, 2) << bad;
    EXPECT_TRUE(has(r.err, "--mix")) << bad << ": " << r.err;
  }
}

}  // namespace
