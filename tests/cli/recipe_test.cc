#include <gtest/gtest.h>

#include "run_cli.h"

namespace {

const std::string kRecipe = "trtllm/b200-fp4/1k1k/mtp/ctx1_gen2_dep8_batch64_eplb0_mtp2";

TEST(CliRecipe, ListTableAndJson) {
  auto r = run_gpuplan("recipe list --kind deployment");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(has(r.out, kRecipe)) << r.out.substr(0, 2000);
  EXPECT_TRUE(has(r.out, "dynamo+tensorrt-llm"));
  EXPECT_TRUE(has(r.out, "NVIDIA/srt-slurm"));
  auto j = run_gpuplan("recipe list --json");
  ASSERT_EQ(j.exit_code, 0) << j.err;
  const auto doc = j.json();
  EXPECT_EQ(doc["schema"], "gpuplan.recipe_list/v1");
  ASSERT_GT(doc["recipes"].size(), 500u);
  for (const auto& e : doc["recipes"]) {
    ASSERT_TRUE(e.contains("name") && e.contains("source") && e.contains("kind")) << e.dump();
  }
  EXPECT_EQ(run_gpuplan("recipe list --kind deploymnt").exit_code, 2);
}

TEST(CliRecipe, ShowTextJsonAndUnknownName) {
  auto r = run_gpuplan("recipe show " + kRecipe);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(has(r.out, "max batch 64")) << r.out;
  EXPECT_TRUE(has(r.out, "4a22a1816f8e1ca6bc41dfca0fbf709782a45fee")) << r.out;
  auto j = run_gpuplan("recipe show " + kRecipe + " --json");
  ASSERT_EQ(j.exit_code, 0) << j.err;
  const auto doc = j.json();
  EXPECT_EQ(doc["schema"], "gpuplan.recipe/v1");
  EXPECT_EQ(doc["recipe"]["decode"]["max_batch"], 64);
  EXPECT_EQ(doc["recipe"]["mtp_draft_tokens"], 2);
  auto u = run_gpuplan("recipe show ctx1_gen2_dep8_batch64");
  EXPECT_EQ(u.exit_code, 2);
  EXPECT_TRUE(has(u.err, "close names")) << u.err;
  EXPECT_TRUE(has(u.err, kRecipe)) << u.err;
}

TEST(CliRecipe, InferEvaluatesTheRecipesDeployment) {
  auto r = run_gpuplan("infer --recipe " + kRecipe + " --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto doc = r.json();
  EXPECT_EQ(doc["mode"], "disaggregated");
  EXPECT_EQ(doc["gpus"], 20);
  EXPECT_EQ(doc["mtp_draft_tokens"], 2);
  EXPECT_EQ(doc["decode_max_batch"], 64);
  EXPECT_EQ(doc["concurrency"], 1214);
  EXPECT_EQ(doc["recipe"]["name"], kRecipe);
  // The same deployment given as options: the same figures.
  auto same = run_gpuplan(
      "infer --model deepseek-r1 --system b200 --precision nvfp4 --engine dynamo+tensorrt-llm --disagg "
      "--prefill-gpus 4 --prefill-tp 4 --prefill-attn-dp --prefill-max-batch 8 --prefill-max-tokens 10240 "
      "--decode-gpus 16 --decode-tp 8 --decode-attn-dp --decode-max-batch 64 --mtp 2 --concurrency 1214 --json");
  ASSERT_EQ(same.exit_code, 0) << same.err;
  EXPECT_DOUBLE_EQ(same.json()["tokens_per_s_per_gpu"].get<double>(), doc["tokens_per_s_per_gpu"].get<double>());
  // A given option overrides, and says so.
  auto o = run_gpuplan("infer --recipe " + kRecipe + " --concurrency 64 --json");
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_EQ(o.json()["concurrency"], 64);
  EXPECT_EQ(o.json()["recipe"]["overridden"][0], "--concurrency 64 (recipe: 1214)");
}

// A MoRI run's launch script in force on the recipe's date put EP over the whole worker whatever the
// sweep config said (data/recipes/inferencex_mori.yaml launch rows): infer applies it, as validation does.
TEST(CliRecipe, InferAppliesTheLaunchRowInForce) {
  auto r = run_gpuplan("infer --recipe mori/mtp/fp4/1024-1024/1ptp8-2dtp8@2026-02-13 --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto doc = r.json();
  bool launch_note = false;
  for (const auto& n : doc["recipe"]["notes"]) launch_note |= has(n.get<std::string>(), "launch: recipe mori/launch/fp4");
  EXPECT_TRUE(launch_note) << doc["recipe"].dump();
  for (const auto& o : doc["recipe"]["options"]) EXPECT_FALSE(has(o.get<std::string>(), "-ep 1")) << o;
  // After the scripts passed the config's values: no launch row, the config's no-EP stands.
  auto later = run_gpuplan("infer --recipe mori/mtp/fp4/1024-1024/1ptp4-2dtp8@2026-03-04 --json");
  ASSERT_EQ(later.exit_code, 0) << later.err;
  const auto later_doc = later.json();
  bool ep1 = false;
  for (const auto& o : later_doc["recipe"]["options"]) ep1 |= has(o.get<std::string>(), "--decode-ep 1");
  EXPECT_TRUE(ep1) << later_doc["recipe"].dump();
}

TEST(CliRecipe, InferConflictsAreErrors) {
  auto s = run_gpuplan("infer --recipe " + kRecipe + " --sweep");
  EXPECT_EQ(s.exit_code, 2);
  EXPECT_TRUE(has(s.err, "--sweep")) << s.err;
  auto d = run_gpuplan("infer --recipe " + kRecipe + " --as-of 2025-01-01");
  EXPECT_EQ(d.exit_code, 2);
  EXPECT_TRUE(has(d.err, "2026-01-28 to 2026-03-24")) << d.err;
  EXPECT_EQ(run_gpuplan("infer --as-of 2026-02-01").exit_code, 2);
  auto k = run_gpuplan("infer --recipe mori/launch/fp8@2026-01-08");
  EXPECT_EQ(k.exit_code, 2);
  EXPECT_TRUE(has(k.err, "not a whole deployment")) << k.err;
  EXPECT_TRUE(has(k.err, "TP over the whole worker")) << k.err;  // what the row says, and why it is no deployment
  EXPECT_TRUE(has(k.err, "states no pools")) << k.err;
  auto u = run_gpuplan("infer --recipe nope");
  EXPECT_EQ(u.exit_code, 2);
  EXPECT_TRUE(has(u.err, "--recipe")) << u.err;
}

}  // namespace
