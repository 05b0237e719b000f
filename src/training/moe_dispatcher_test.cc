// The Megatron-Bridge recipes' MoE token dispatcher by container (data/recipes/megatron_bridge_moe_dispatcher.yaml).
#include <gtest/gtest.h>

#include "training/moe_dispatcher.h"

namespace gpuplan {
namespace {

ContainerVersion container(const char* text) { return *parse_container_version(text); }

TEST(MoeDispatcherRecipes, AlltoallWhereTheRecipeNamesNoFlexBackend) {
  // Qwen3-235B-A22B on B200: the alltoall dispatcher from 25.11 (the model's default) through 26.04.01
  // (qwen3_llm_pretrain.py sets it); the row's spelling of the model matches the catalog name.
  const auto b200 = recipe_moe_dispatcher("Qwen3-235B-A22B", "b200", "mxfp8", container("26.04.01"));
  ASSERT_TRUE(b200.has_value());
  EXPECT_EQ(b200->dispatcher, MoeDispatcher::alltoall);
  EXPECT_NE(b200->why.find("megatron_bridge_moe_dispatcher.yaml"), std::string::npos) << b200->why;
  // GPT-OSS-120B: GB200's V2 recipe had a HybridEP backend in 26.04 alone.
  EXPECT_TRUE(recipe_moe_dispatcher("GPT-OSS-120B", "gb200", "bf16", container("26.02")).has_value());
  EXPECT_FALSE(recipe_moe_dispatcher("GPT-OSS-120B", "gb200", "bf16", container("26.04")).has_value());
  EXPECT_TRUE(recipe_moe_dispatcher("GPT-OSS-120B", "gb200", "bf16", container("26.04.01")).has_value());
}

TEST(MoeDispatcherRecipes, NoRowNoReading) {
  // HybridEP recipes (Qwen3-235B-A22B on GB200), precisions and containers outside a row, other models.
  EXPECT_FALSE(recipe_moe_dispatcher("Qwen3-235B-A22B", "gb200", "mxfp8", container("26.04.01")).has_value());
  EXPECT_FALSE(recipe_moe_dispatcher("GPT-OSS-120B", "gb300", "mxfp8", container("26.08")).has_value());
  EXPECT_FALSE(recipe_moe_dispatcher("Qwen3-30B-A3B", "b200", "mxfp8", container("26.04.01")).has_value());
  EXPECT_FALSE(recipe_moe_dispatcher("DeepSeekV3", "b200", "mxfp8", container("26.04.01")).has_value());
}

}  // namespace
}  // namespace gpuplan
