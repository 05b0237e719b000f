#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>

#include "run_cli.h"

TEST(CliModel, ListTable) {
  auto r = run_gpuplan("model list");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("experts/top-k"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("llama3.1-405b"), std::string::npos);
  EXPECT_NE(r.out.find("256/8"), std::string::npos);  // DeepSeek-V3's experts
  EXPECT_NE(r.out.find("671.03"), std::string::npos);
}

TEST(CliModel, ListJson) {
  auto r = run_gpuplan("model list --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = r.json();
  EXPECT_EQ(j["schema"], "gpuplan.model/v1");
  ASSERT_GE(j["models"].size(), 40u);
  bool found = false;
  for (const auto& m : j["models"])
    if (m["name"] == "mixtral-8x7b") {
      found = true;
      EXPECT_EQ(m["moe"]["top_k"], 2);
      EXPECT_NEAR(m["total_params"].get<double>() / 1e9, 46.7, 0.05);
    }
  EXPECT_TRUE(found);
}

TEST(CliModel, ShowText) {
  auto r = run_gpuplan("model show LLAMA3_70B --seq 8192");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("Llama 3 70B"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("published 70.600 B"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("bf16: 327680 bytes"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("seq 8192"), std::string::npos) << r.out;
}

TEST(CliModel, ShowJson) {
  auto r = run_gpuplan("model show deepseek-v3 --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = r.json();
  EXPECT_EQ(j["schema"], "gpuplan.model/v1");
  EXPECT_EQ(j["model"]["attention"], "mla");
  EXPECT_EQ(j["model"]["moe"]["moe_layers"], 58);
  EXPECT_NEAR(j["params"]["total"]["computed"].get<double>() / 1e9, 671.0, 0.1);
  EXPECT_NEAR(j["params"]["total"]["diff_pct"].get<double>(), 0.0, 0.1);
  EXPECT_EQ(j["flops_per_token"]["seq"], 4096);
  EXPECT_DOUBLE_EQ(j["kv_cache_bytes_per_token"]["bf16"].get<double>(), 61.0 * 576 * 2);
  const double fwd = j["flops_per_token"]["forward_total"].get<double>();
  EXPECT_DOUBLE_EQ(j["flops_per_token"]["training_total"].get<double>(), 3 * fwd);
}

TEST(CliModel, ShowHfConfig) {
  auto r = run_gpuplan(std::string("model show ") + GPUPLAN_SHARED_DATA_DIR +
                       "/models/openai--gpt-oss-20b.json --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.json()["model"]["moe"]["num_experts"], 32);
}

TEST(CliModel, UnknownNameIsBadInput) {
  auto r = run_gpuplan("model show llama3.1-70c");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("unknown model 'llama3.1-70c'"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("did you mean"), std::string::npos) << r.err;
  EXPECT_EQ(run_gpuplan("model show llama3-70b --seq 0").exit_code, 2);
  EXPECT_EQ(run_gpuplan("model lst").exit_code, 2);
  EXPECT_EQ(run_gpuplan("model show /no/such/config.json").exit_code, 2);
}

TEST(CliModel, ShowHybridAndSparseModels) {
  auto q = run_gpuplan("model show Qwen3.5-397B-A17B --json");
  ASSERT_EQ(q.exit_code, 0) << q.err;
  const auto jq = q.json();
  EXPECT_EQ(jq["model"]["linear_attention"]["layers"], 45);
  EXPECT_EQ(jq["model"]["linear_attention"]["full_attention_layers"], 15);
  EXPECT_DOUBLE_EQ(jq["kv_cache_bytes_per_token"]["bf16"].get<double>(), 15.0 * 2 * 2 * 256 * 2);
  EXPECT_GT(jq["kv_cache_bytes_per_token"]["recurrent_state_bytes_per_sequence"].get<double>(), 1e8);
  auto g = run_gpuplan("model show GLM-5");
  ASSERT_EQ(g.exit_code, 0) << g.err;
  EXPECT_NE(g.out.find("sparse attention (DSA): top-2048"), std::string::npos) << g.out;
}

TEST(CliModel, HybridConfigWithAnUnknownLayerTypeIsBadInput) {
  const std::string path = testing::TempDir() + "/qwen3_next_bad_layers.json";
  {
    std::ofstream f(path);
    f << R"({"model_type": "qwen3_next", "num_hidden_layers": 4, "hidden_size": 256, "num_attention_heads": 4,
      "num_key_value_heads": 2, "head_dim": 64, "vocab_size": 1000, "intermediate_size": 512,
      "layer_types": ["linear_attention", "linear_attention", "linear_attention", "mamba"],
      "linear_num_key_heads": 2, "linear_num_value_heads": 4, "linear_key_head_dim": 32,
      "linear_value_head_dim": 32, "linear_conv_kernel_dim": 4, "num_experts": 8, "num_experts_per_tok": 2,
      "moe_intermediate_size": 64})";
  }
  auto r = run_gpuplan("model show " + path);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("layer_types[3]"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("allowed: linear_attention, full_attention"), std::string::npos) << r.err;
  std::remove(path.c_str());
}
