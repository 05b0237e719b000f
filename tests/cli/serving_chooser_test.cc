// One serving answer: infer's point mode, compare, cost, recommend and site ask one operating-point
// chooser, so one question gets one figure; every chosen figure meets its target within its TTFT limit;
// a target no deployment meets is exit 3; one serving memory reserve.
#include <gtest/gtest.h>

#include <string>

#include "run_cli.h"

namespace {

nlohmann::json yardstick(const nlohmann::json& doc, const std::string& key) {
  for (const auto& y : doc["yardsticks"])
    if (y["key"] == key) return y;
  return {};
}

// The README's example meets its target on one node, with the --gpus 8 figure.
TEST(ServingChooserCli, ReadmeExampleMeetsItsTargetOnOneNode) {
  const std::string q = "infer --model llama3.1-70b --system hgx-h200 --isl 8192 --osl 1024 --tokens-per-user-per-s 50";
  auto whole = run_gpuplan(q + " --json");
  auto eight = run_gpuplan(q + " --gpus 8 --json");
  ASSERT_EQ(whole.exit_code, 0) << whole.err;
  ASSERT_EQ(eight.exit_code, 0) << eight.err;
  const auto w = whole.json(), e = eight.json();
  EXPECT_TRUE(w["met"].get<bool>());
  EXPECT_EQ(w["units"], 1);
  EXPECT_EQ(w["gpus"], 8);
  EXPECT_GE(w["tokens_per_s_per_user"].get<double>(), 50 * (1 - 1e-9));
  EXPECT_LE(w["ttft_s"].get<double>(), w["ttft_limit_s"].get<double>());
  EXPECT_GE(w["tokens_per_s_per_gpu"].get<double>(), 0.97 * e["tokens_per_s_per_gpu"].get<double>());
  // The text says the TTFT beside the figure, the limit and its basis.
  auto text = run_gpuplan(q);
  EXPECT_TRUE(has(text.out, "TTFT limit 3.37 s (MLPerf Server")) << text.out;
  EXPECT_TRUE(has(text.out, "(TTFT ")) << text.out;
}

// infer and compare at equal inputs: the same figure, the same deployment.
TEST(ServingChooserCli, InferAndCompareAgreeAtEqualInputs) {
  for (const char* model : {"llama3.1-70b", "deepseek-r1"}) {
    auto cmp = run_gpuplan(std::string("compare gb300-nvl72 hgx-h200 --task infer --isl 8192 --osl 1024 "
                                       "--tokens-per-user 50 --model ") + model + " --json");
    ASSERT_EQ(cmp.exit_code, 0) << cmp.err;
    const auto doc = cmp.json();
    const auto y = yardstick(doc, std::string("infer_at_interactivity:") + model);
    ASSERT_FALSE(y.is_null()) << cmp.out;
    for (const auto& [sys, side] : {std::pair{"gb300-nvl72", "a"}, std::pair{"hgx-h200", "b"}}) {
      auto inf = run_gpuplan(std::string("infer --isl 8192 --osl 1024 --tokens-per-user-per-s 50 --model ") + model +
                             " --system " + sys + " --json");
      ASSERT_EQ(inf.exit_code, 0) << inf.err;
      const auto j = inf.json();
      EXPECT_DOUBLE_EQ(j["tokens_per_s_per_gpu"].get<double>(), y[side].get<double>()) << model << " on " << sys;
      const auto at = doc["models"][0]["inference"][std::string("at_interactivity_") + side];
      EXPECT_EQ(at["plan_text"], j["plan"]) << model << " on " << sys;
      EXPECT_EQ(at["gpus"], j["gpus"]) << model << " on " << sys;
      EXPECT_LE(j["ttft_s"].get<double>(), j["ttft_limit_s"].get<double>()) << model << " on " << sys;
    }
  }
}

// Every chosen serving figure meets its target within its TTFT limit, in cost, recommend and site.
TEST(ServingChooserCli, EveryServingFigureMeetsItsTtftLimit) {
  auto cost = run_gpuplan("cost --model deepseek-r1 --task infer --system gb300-nvl72 --system hgx-h200 --isl 8192 "
                          "--osl 1024 --tokens-per-user-per-s 50 --json");
  ASSERT_EQ(cost.exit_code, 0) << cost.err;
  const auto cdoc = cost.json();
  for (const auto& s : cdoc["systems"]) {
    const auto& w = s["workload"];
    ASSERT_TRUE(w.contains("ttft_s")) << w.dump();
    EXPECT_LE(w["ttft_s"].get<double>(), w["ttft_limit_s"].get<double>()) << w.dump();
    EXPECT_GE(w["tokens_per_s_per_user_at_point"].get<double>(), 50 * (1 - 1e-9)) << w.dump();
  }
  auto rec = run_gpuplan("recommend --model deepseek-r1 --task infer --users 1000 --json");
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  const auto rdoc = rec.json();
  const double limit = rdoc["spec"]["ttft_limit_s"].get<double>();
  EXPECT_DOUBLE_EQ(limit, 2.0);
  for (const auto& r : rdoc["ranked"])
    if (r["feasible"].get<bool>()) {
      EXPECT_LE(r["ttft_s"].get<double>(), limit) << r.dump();
    }
  auto site = run_gpuplan("site --power-mw 5 --systems hgx-h200 --infer-model llama3.1-70b --tokens-per-user-per-s 50 "
                          "--json");
  ASSERT_EQ(site.exit_code, 0) << site.err;
  const auto sdoc = site.json();
  const auto sv = sdoc["budget"]["systems"][0]["serving"];
  ASSERT_TRUE(sv["feasible"].get<bool>()) << sv.dump();
  EXPECT_LE(sv["ttft_s"].get<double>(), sdoc["budget"]["serving"]["ttft_limit_s"].get<double>());
  // A stated limit is the one applied; 0 turns it off.
  auto tight = run_gpuplan("infer --model llama3.1-70b --system hgx-h200 --tokens-per-user 50 --ttft-ms 100 --json");
  ASSERT_EQ(tight.exit_code, 0) << tight.err;
  EXPECT_DOUBLE_EQ(tight.json()["ttft_limit_s"].get<double>(), 0.1);
  EXPECT_LE(tight.json()["ttft_s"].get<double>(), 0.1);
  auto none = run_gpuplan("infer --model llama3.1-70b --system hgx-h200 --tokens-per-user 50 --ttft-ms 0 --json");
  ASSERT_EQ(none.exit_code, 0) << none.err;
  EXPECT_DOUBLE_EQ(none.json()["ttft_limit_s"].get<double>(), 0.0);
}

// A target no deployment meets: said, and exit 3 (as training when nothing fits), in text and JSON.
TEST(ServingChooserCli, NoDeploymentMeetingTheTargetIsExitThree) {
  auto r = run_gpuplan("infer --model llama3.1-70b --system hgx-h100 --tokens-per-user-per-s 5000 --json");
  EXPECT_EQ(r.exit_code, 3) << r.out << r.err;
  EXPECT_FALSE(r.json()["met"].get<bool>());
  EXPECT_TRUE(has(r.json()["why_not"].get<std::string>(), "below the 5000 asked")) << r.out;
  auto t = run_gpuplan("infer --model llama3.1-70b --system hgx-h100 --tokens-per-user-per-s 5000");
  EXPECT_EQ(t.exit_code, 3);
  EXPECT_TRUE(has(t.out, "no deployment meets 5000 tokens/s per user")) << t.out;
}

// One serving memory reserve: memory --inference holds what infer's evaluator holds.
TEST(ServingChooserCli, OneServingMemoryReserve) {
  auto m = run_gpuplan("memory --inference --model llama3.1-8b --gpu h100-sxm --json");
  ASSERT_EQ(m.exit_code, 0) << m.err;
  auto i = run_gpuplan("infer --model llama3.1-8b --system hgx-h100 --tp 1 --json");
  ASSERT_EQ(i.exit_code, 0) << i.err;
  EXPECT_DOUBLE_EQ(m.json()["parts"]["reserve_bytes"].get<double>(),
                   i.json()["memory"]["reserve_bytes"].get<double>());
}

}  // namespace
