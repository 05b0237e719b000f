#include "training/expert_overlap.h"

#include <gtest/gtest.h>

#include "core/error.h"

namespace gpuplan {
namespace {

ContainerVersion v(const char* s) { return *parse_container_version(s); }

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
}

// The Megatron-Bridge recipes as the table states them: DeepSeek-V3 MXFP8 overlaps on B200 from
// 26.04.01, on GB200 and GB300 from 26.06; the 25.11 Blackwell recipes do not.
TEST(ExpertOverlap, FollowsTheContainersRecipe) {
  EXPECT_FALSE(recipe_overlaps_expert_a2a("DeepSeekV3", "b200", Precision::mxfp8, v("26.04")));
  EXPECT_TRUE(recipe_overlaps_expert_a2a("DeepSeekV3", "b200", Precision::mxfp8, v("26.04.01")));
  EXPECT_TRUE(recipe_overlaps_expert_a2a("deepseek-v3", "gb200", Precision::mxfp8, v("26.08")));
  EXPECT_TRUE(recipe_overlaps_expert_a2a("DeepSeek-V3", "gb300", Precision::mxfp8, v("26.06")));
  EXPECT_FALSE(recipe_overlaps_expert_a2a("DeepSeekV3", "gb300", Precision::mxfp8, v("25.11")));
  EXPECT_FALSE(recipe_overlaps_expert_a2a("DeepSeekV3", "gb300", Precision::bf16, v("26.06")));
  // A recipe that dropped it: DeepSeek-V3 on H100 overlapped with DeepEP in 25.11 only.
  EXPECT_TRUE(recipe_overlaps_expert_a2a("DeepSeekV3", "h100-sxm", Precision::bf16, v("25.11")));
  EXPECT_FALSE(recipe_overlaps_expert_a2a("DeepSeekV3", "h100-sxm", Precision::bf16, v("26.02")));
  // Before Megatron-Core 0.14 no container overlaps; a model no recipe names never does.
  EXPECT_FALSE(recipe_overlaps_expert_a2a("Mixtral-8x7B", "gb200", Precision::fp8, v("25.04")));
  EXPECT_FALSE(recipe_overlaps_expert_a2a("Mixtral-8x7B", "gb200", Precision::mxfp8, newest_container_version()));
  EXPECT_TRUE(recipe_overlaps_expert_a2a("DeepSeekV3", "gb200", Precision::mxfp8, newest_container_version()));
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
