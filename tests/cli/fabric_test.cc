// End-to-end tests of `gpuplan fabric`: text, JSON (gpuplan.fabric/v1) and bad input.
#include <gtest/gtest.h>

#include <string>

#include "run_cli.h"

namespace {

TEST(FabricCli, DgxH100FourScalableUnits) {
  auto r = run_gpuplan("fabric --system hgx-h100 --gpus 1016 --node-optics twin-port");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(has(r.out, "Switches: 32 leaf 16 spine = 48")) << r.out;
  EXPECT_TRUE(has(r.out, "1020 links")) << r.out;
  EXPECT_TRUE(has(r.out, "Assumptions used")) << r.out;
  EXPECT_TRUE(has(r.out, "node_leaf_m = 20")) << r.out;
}

TEST(FabricCli, JsonSchemaAndParts) {
  auto r = run_gpuplan("fabric --system gb300-nvl72 --gpus 9216 --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = r.json();
  EXPECT_EQ(j["schema"], "gpuplan.fabric/v1");
  EXPECT_EQ(j["kind"], "ib-xdr");
  EXPECT_TRUE(j["feasible"].get<bool>());
  EXPECT_EQ(j["rails"], 4);
  double sum = 0;
  for (const char* k : {"switches", "optics", "nics"}) sum += j["power_w"][k].get<double>();
  EXPECT_NEAR(sum, j["power_w"]["total"].get<double>(), 1e-6);
  bool q3400 = false;
  for (const auto& a : j["assumptions"]) q3400 = q3400 || a["name"] == "q3400_power_w";
  EXPECT_TRUE(q3400);
  EXPECT_EQ(j["per_gpu"]["injection_bytes_per_s"].get<double>(), 100e9);
  EXPECT_EQ(j["max_endpoints"]["two_tiers"], 144 * 144 / 2);  // R1 for the Q3400
}

TEST(FabricCli, OversubscriptionAndAssumptionOverride) {
  auto a = run_gpuplan("fabric --system hgx-h200 --gpus 4096 --oversubscription 3:1 --json").json();
  EXPECT_NEAR(a["per_gpu"]["beyond_leaf_bytes_per_s"].get<double>(), 50e9 / 3, 1e3);
  auto b = run_gpuplan("fabric --system hgx-h200 --gpus 4096 --assume nic_400g_power_w=40 --json").json();
  auto c = run_gpuplan("fabric --system hgx-h200 --gpus 4096 --json").json();
  EXPECT_NEAR(b["power_w"]["nics"].get<double>() - c["power_w"]["nics"].get<double>(), 4096 * 15.0, 1e-6);
}

TEST(FabricCli, BadInputExitsTwoNamingTheField) {
  struct Case { const char* args; const char* field; };
  const Case cases[] = {{"fabric --system hgx-h100 --gpus 0", "--gpus"},
                        {"fabric --system hgx-h100 --gpus 8 --oversubscription 0", "--oversubscription"},
                        {"fabric --system hgx-h100 --gpus 8 --oversubscription x:1", "--oversubscription"},
                        {"fabric --system hgx-h100 --gpus 8 --topology mesh", "--topology"},
                        {"fabric --system hgx-h100 --gpus 8 --kind ib-nrd", "--kind"},
                        {"fabric --system hgx-h100 --gpus 8 --assume nic_w=3", "--assume"},
                        {"fabric --system hgx-h100 --gpus 8 --max-tiers 9", "--max-tiers"},
                        {"fabric --system hgx-h1000 --gpus 8", "--system"},
                        {"fabric --gpus 8", "--system"}};
  for (const auto& c : cases) {
    auto r = run_gpuplan(c.args);
    EXPECT_EQ(r.exit_code, 2) << c.args << "\n" << r.out << r.err;
    EXPECT_TRUE(has(r.err, c.field)) << c.args << ": " << r.err;
  }
}

TEST(FabricCli, FrontEndNetworkIsSeparate) {
  auto r = run_gpuplan("fabric --system gb300-nvl72 --gpus 1152 --frontend eth-frontend-400g --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = r.json();
  ASSERT_TRUE(j.contains("frontend"));
  EXPECT_EQ(j["frontend"]["endpoints_are"], "nodes");
  EXPECT_EQ(j["frontend"]["gpus"], j["nodes"]);              // one endpoint per compute tray
  EXPECT_EQ(j["frontend"]["endpoints"].get<int>(), 2 * j["nodes"].get<int>());  // two 400GbE ports each
  EXPECT_GT(j["frontend"]["power_w"]["total"].get<double>(), 0);
  EXPECT_EQ(run_gpuplan("fabric --system gb300-nvl72 --gpus 72 --frontend ib-xdr").exit_code, 2);
  EXPECT_EQ(run_gpuplan("fabric --system gb300-nvl72 --gpus 72 --kind eth-frontend-400g").exit_code, 2);
  EXPECT_TRUE(has(run_gpuplan("fabric --system hgx-h100 --gpus 64 --frontend eth-frontend-200g").out, "Front-end network"));
}

TEST(FabricCli, TooFewTiersIsReportedNotCrashed) {
  auto r = run_gpuplan("fabric --system hgx-h100 --gpus 100000 --max-tiers 2 --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = r.json();
  EXPECT_FALSE(j["feasible"].get<bool>());
  EXPECT_TRUE(j.contains("why_not"));
}

// The fabric as an input elsewhere: an 8:1 leaf slows a 512-GPU data-parallel job (wider than one 256-GPU SU)
// in train and compare; a bad ratio is exit 2 naming the option.
TEST(FabricCli, OversubscriptionReachesTrainCompareRecommend) {
  const std::string job = "--system hgx-h100 --gpus 512 --model llama3.1-70b --global-batch 512 --plan tp=8,pp=2 --json";
  auto flat = run_gpuplan("train " + job);
  auto over = run_gpuplan("train " + job + " --fabric-oversubscription 8:1");
  ASSERT_EQ(flat.exit_code, 0) << flat.err;
  ASSERT_EQ(over.exit_code, 0) << over.err;
  EXPECT_LT(over.json()["tokens_per_s_per_gpu"].get<double>(), flat.json()["tokens_per_s_per_gpu"].get<double>());
  auto c1 = run_gpuplan("compare hgx-h100 hgx-h200 --task train --model llama3.1-70b --json").json();
  auto c8 = run_gpuplan("compare hgx-h100 hgx-h200 --task train --model llama3.1-70b --fabric-oversubscription 8 --json").json();
  EXPECT_LT(c8["models"][0]["training"]["a"]["tokens_per_s_per_gpu"].get<double>(),
            c1["models"][0]["training"]["a"]["tokens_per_s_per_gpu"].get<double>());
  EXPECT_EQ(run_gpuplan("train " + job + " --fabric-oversubscription 0.5").exit_code, 2);
  EXPECT_EQ(run_gpuplan("train " + job + " --fabric-topology mesh").exit_code, 2);
  EXPECT_EQ(run_gpuplan("infer --system hgx-h200 --fabric-topology rail-only --json").exit_code, 0);
  auto rec = run_gpuplan("recommend --model llama3.1-8b --task train --system hgx-h100 --fabric-oversubscription 2 --json");
  EXPECT_EQ(rec.exit_code, 0) << rec.err;
  EXPECT_EQ(run_gpuplan("recommend --model llama3.1-8b --fabric-oversubscription x").exit_code, 2);
}

}  // namespace
