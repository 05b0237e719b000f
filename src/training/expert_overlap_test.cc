#include "training/expert_overlap.h"

#include <gtest/gtest.h>

#include "catalog/catalog.h"
#include "core/error.h"
#include "model/model_registry.h"
#include "physics/hardware.h"
#include "training/training_step.h"
#include "recipe/ep_overlap_recipes.h"

namespace gpuplan {
namespace {

ContainerVersion v(const char* s) { return *parse_container_version(s); }

bool recipe_on(const char* model, const char* gpu, const char* precision, const char* container) {
  const auto r = recipe_ep_overlap(model, gpu, precision, v(container));
  return r && r->overlaps;
}

TEST(ExpertOverlap, ContainerVersionsParseAndOrder) {
  EXPECT_EQ(to_string(v("26.04.01")), "26.04.01");
  EXPECT_EQ(to_string(v("v25.11")), "25.11");
  EXPECT_LT(v("26.04"), v("26.04.01"));
  EXPECT_LT(v("25.11"), v("26.02"));
  for (const char* bad : {"", "2026", "26.13", "26.4", "26.04.01.02", "x26.04"})
    EXPECT_FALSE(parse_container_version(bad).has_value()) << bad;
}

TEST(ExpertOverlap, SourceIdsNameNeMoContainers) {
  EXPECT_EQ(to_string(*nemo_container_of_source("MBRIDGE-26.04.01")), "26.04.01");
  EXPECT_EQ(to_string(*nemo_container_of_source("NEMOFW-25.02")), "25.02");
  EXPECT_FALSE(nemo_container_of_source("DGXC-v25.05.04").has_value());  // another framework's tag
  EXPECT_FALSE(nemo_container_of_source("NARAYANAN-2021-T1").has_value());
  // ... which still dates the release.
  EXPECT_EQ(to_string(*release_tag_of_source("DGXC-v25.05.04")), "25.05.04");
  EXPECT_EQ(to_string(*release_tag_of_source("NEMO-24.07")), "24.07");
  EXPECT_FALSE(release_tag_of_source("NARAYANAN-2021-T1").has_value());
}

// The Megatron-Bridge recipes as data/recipes/megatron_bridge_ep_overlap.yaml states them: DeepSeek-V3
// MXFP8 overlaps on B200 from 26.04.01, on GB200 and GB300 from 26.06; the 25.11 Blackwell recipes do not.
TEST(ExpertOverlap, FollowsTheContainersRecipe) {
  EXPECT_FALSE(recipe_on("DeepSeekV3", "b200", "mxfp8", "26.04"));
  EXPECT_TRUE(recipe_on("DeepSeekV3", "b200", "mxfp8", "26.04.01"));
  EXPECT_TRUE(recipe_on("deepseek-v3", "gb200", "mxfp8", "26.08"));
  EXPECT_TRUE(recipe_on("DeepSeek-V3", "gb300", "mxfp8", "26.06"));
  EXPECT_FALSE(recipe_on("DeepSeekV3", "gb300", "mxfp8", "25.11"));
  EXPECT_FALSE(recipe_on("DeepSeekV3", "gb300", "bf16", "26.06"));
  // A recipe that dropped it: DeepSeek-V3 on H100 overlapped with DeepEP in 25.11 only.
  EXPECT_TRUE(recipe_on("DeepSeekV3", "h100-sxm", "bf16", "25.11"));
  EXPECT_FALSE(recipe_on("DeepSeekV3", "h100-sxm", "bf16", "26.02"));
  // A model the table names runs its default (off) where no row covers it; a model it does not name,
  // or a container outside those it read, is left to the release.
  const auto dflt = recipe_ep_overlap("GPT-OSS-120B", "b200", "bf16", v("26.04.01"));
  ASSERT_TRUE(dflt.has_value());
  EXPECT_FALSE(dflt->overlaps);
  EXPECT_EQ(dflt->row, nullptr);
  EXPECT_FALSE(recipe_ep_overlap("Mixtral-8x7B", "gb200", "mxfp8", v("26.08")).has_value());
  EXPECT_FALSE(recipe_ep_overlap("DeepSeekV3", "gb200", "mxfp8", v("25.09")).has_value());
}

TEST(ExpertOverlap, TheReleaseDecidesForAnyMoeModel) {
  const ModelArch moe = resolve_model("mixtral-8x7b"), dense = resolve_model("llama3.1-8b");
  TrainingPlan p;
  p.ep = 8;
  EXPECT_TRUE(release_overlaps_expert_a2a(moe, p, parse_framework_release("25.09")));
  EXPECT_TRUE(release_overlaps_expert_a2a(moe, p, parse_framework_release("2026")));
  EXPECT_TRUE(release_overlaps_expert_a2a(moe, p, parse_framework_release("2025")));  // a year: its newest release
  EXPECT_FALSE(release_overlaps_expert_a2a(moe, p, parse_framework_release("25.07")));
  EXPECT_FALSE(release_overlaps_expert_a2a(moe, p, parse_framework_release("2024")));
  EXPECT_FALSE(release_overlaps_expert_a2a(dense, p, parse_framework_release("2026")));
  p.ep = 1;
  EXPECT_FALSE(release_overlaps_expert_a2a(moe, p, parse_framework_release("2026")));
}

TEST(ExpertOverlap, RowsFollowTheirContainersRecipeElseTheRelease) {
  const ModelArch ds = resolve_model("deepseek-v3"), mixtral = resolve_model("mixtral-8x7b");
  TrainingPlan p;
  p.ep = 8;
  const FrameworkRelease r2604 = parse_framework_release("26.04");
  // The 26.04 DeepSeek-V3 B200 recipe runs without it, though the release has it.
  EXPECT_FALSE(expert_a2a_overlap_for_row(ds, p, r2604, v("26.04"), "DeepSeekV3", "b200", Precision::mxfp8).overlap);
  const ExpertOverlapChoice on =
      expert_a2a_overlap_for_row(ds, p, parse_framework_release("26.04.01"), v("26.04.01"), "DeepSeekV3", "b200",
                                 Precision::mxfp8);
  EXPECT_TRUE(on.overlap);
  EXPECT_NE(on.why.find("megatron_bridge_ep_overlap.yaml"), std::string::npos) << on.why;
  // A model no table names: the release.
  EXPECT_TRUE(expert_a2a_overlap_for_row(mixtral, p, r2604, v("26.04"), "Mixtral-8x7B", "b200", Precision::fp8).overlap);
  // Before Megatron-Core 0.14 nothing overlaps.
  EXPECT_FALSE(expert_a2a_overlap_for_row(mixtral, p, parse_framework_release("25.04"), v("25.04"), "Mixtral-8x7B",
                                          "gb200", Precision::fp8)
                   .overlap);
}

// Each overlapped all-to-all hides behind the one block of the other micro-batch it runs beside
// (Megatron-Core's schedule_layer_1f1b): where the compute dwarfs it, overlap_eff of it hides; where it
// outlasts its block (Qwen3-235B-A22B at EP32 over H100's InfiniBand), less.
TEST(ExpertOverlap, HidesBehindTheBlockItRunsBeside) {
  static const Catalog catalog = Catalog::builtin();
  auto exposed = [&](const char* model, const char* system, int gpus, const char* plan, bool overlap) {
    TrainingWorkload w;
    w.num_gpus = gpus;
    w.global_batch = 2048;
    w.seq_len = 4096;
    w.precision = Precision::fp8;
    TrainingPlan p = parse_training_plan(plan);
    p.ep_overlap = overlap;
    const Hardware hw = resolve_hardware(catalog, system);
    const TrainingResult r = evaluate_training(resolve_model(model), hw, p, w);
    EXPECT_TRUE(r.valid()) << model;
    return std::pair{r.parts.ep_comm_s, hw.efficiency.overlap_eff};
  };
  const auto [far_off, ov] = exposed("qwen3-235b-a22b", "hgx-h100", 256, "tp=2,pp=8,vp=4,ep=32,dp=16", false);
  const auto [far_on, ov2] = exposed("qwen3-235b-a22b", "hgx-h100", 256, "tp=2,pp=8,vp=4,ep=32,dp=16", true);
  EXPECT_LT(far_on, far_off);
  EXPECT_GT(far_on, 1.5 * (1.0 - ov) * far_off);  // the combine outlasts the attention forward it runs beside
  const auto [near_off, ov3] = exposed("mixtral-8x7b", "gb200-nvl72", 64, "tp=1,pp=1,ep=8,dp=64", false);
  const auto [near_on, ov4] = exposed("mixtral-8x7b", "gb200-nvl72", 64, "tp=1,pp=1,ep=8,dp=64", true);
  EXPECT_NEAR(near_on, (1.0 - ov3) * near_off, 1e-9 * near_off);  // top-2 over NVLink: each block outlasts its all-to-all
  (void)ov2;
  (void)ov4;
}

TEST(ExpertOverlap, OnOffNamesTheField) {
  EXPECT_TRUE(parse_on_off("on", "--ep-overlap"));
  EXPECT_FALSE(parse_on_off("off", "--ep-overlap"));
  try {
    parse_on_off("yes", "--ep-overlap");
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("on or off"), std::string::npos) << e.what();
    EXPECT_EQ(e.field(), "--ep-overlap");
  }
}

}  // namespace
}  // namespace gpuplan
