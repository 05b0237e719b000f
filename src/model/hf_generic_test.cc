// The generic decoder reader (hf_generic.cc) on published configs (src/model/fixtures, SOURCES.md there):
// dimensions, layer patterns, defaults, unmapped keys named, and parameter counts against the published.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/error.h"
#include "model/model.h"
#include "model/model_registry.h"

namespace gpuplan {
namespace hf_generic_test {

const std::string kFixtures = std::string(GPUPLAN_SOURCE_DIR) + "/src/model/fixtures/";
const std::string kShared = GPUPLAN_SHARED_DATA_DIR;

ModelArch fixture(const std::string& file) { return resolve_model(kFixtures + file); }

bool has_note(const ModelArch& m, const std::string& field) {
  return std::any_of(m.unmapped.begin(), m.unmapped.end(), [&](const auto& n) { return n.field == field; });
}

double embedding_table(const ModelArch& m) { return 1.0 * m.vocab * m.hidden; }

TEST(HfGeneric, Gemma2AlternatesSlidingAndGlobalLayers) {
  const ModelArch m9 = fixture("google--gemma-2-9b.json");
  EXPECT_EQ(m9.family, "gemma");
  EXPECT_EQ(m9.layers, 42);
  EXPECT_EQ(m9.head_dim, 256);
  EXPECT_EQ(m9.kv_heads, 8);
  EXPECT_TRUE(m9.tied_embeddings);  // Gemma2Config's default: the config leaves it out
  EXPECT_TRUE(has_note(m9, "tie_word_embeddings"));
  EXPECT_EQ(m9.sliding_window, 4096);
  EXPECT_EQ(m9.sliding_window_layers, 21);  // even layers of 42
  // Gemma 2 report, Table 2: 8,324,201,984 non-embedding parameters, to the parameter with its four norms
  // a layer. Its embedding row (917,962,752) counts a 256,128-entry vocabulary (Table 1); the config's
  // table has 256,000 rows.
  EXPECT_TRUE(m9.post_norms);
  EXPECT_FALSE(m9.qk_norm);
  EXPECT_DOUBLE_EQ(embedding_params(m9), 917504000.0);
  EXPECT_DOUBLE_EQ(total_params(m9) - embedding_params(m9), 8324201984.0);
  const ModelArch m27 = fixture("google--gemma-2-27b.json");
  EXPECT_EQ(m27.sliding_window_layers, 23);
  EXPECT_DOUBLE_EQ(embedding_params(m27), 1179648000.0);
  EXPECT_DOUBLE_EQ(total_params(m27) - embedding_params(m27), 26047480320.0);
  // Every field of the published config is mapped or known to leave the counts unchanged, except the
  // assumed tie.
  EXPECT_EQ(m27.unmapped.size(), 1u) << m27.unmapped.front().field;
}

TEST(HfGeneric, Gemma3MultimodalConfigReadsItsTextDecoder) {
  const ModelArch m = fixture("google--gemma-3-27b-it.json");
  EXPECT_EQ(m.layers, 62);
  EXPECT_EQ(m.hidden, 5376);
  EXPECT_EQ(m.vocab, 262208);  // Gemma3TextConfig's default: text_config leaves it out
  EXPECT_TRUE(has_note(m, "vocab_size"));
  EXPECT_TRUE(m.qk_norm);
  EXPECT_TRUE(m.post_norms);
  // 5 local layers to 1 global, window 1024 (Gemma 3 report, sec. 2.1): 62 - 62/6 = 52 sliding.
  EXPECT_EQ(m.sliding_window, 1024);
  EXPECT_EQ(m.sliding_window_layers, 52);
  // The vision tower is named, not silently dropped.
  EXPECT_TRUE(has_note(m, "vision_config"));
  // Gemma 3 report, Table 1: 25,600M non-embedding parameters (rounded to 1M).
  EXPECT_NEAR((total_params(m) - embedding_params(m)) / 1e6, 25600.0, 0.5);
  // The window caps the attention of 52 of 62 layers: at 32K context attention FLOPs fall ~5x.
  ModelArch full = m;
  full.sliding_window = 0;
  EXPECT_LT(forward_flops_per_token(m, 32768).attention, 0.3 * forward_flops_per_token(full, 32768).attention);
}

TEST(HfGeneric, Gemma3LayerTypesOverrideThePattern) {
  const std::string cfg = R"({"model_type": "gemma3_text", "num_hidden_layers": 4, "hidden_size": 256,
      "intermediate_size": 512, "num_attention_heads": 4, "num_key_value_heads": 1, "head_dim": 64,
      "vocab_size": 1000, "sliding_window": 512, "layer_types": ["sliding_attention", "full_attention",
      "sliding_attention", "sliding_attention"]})";
  EXPECT_EQ(import_hf_config(cfg, "g.json").sliding_window_layers, 3);
  std::string bad = cfg;
  bad.replace(bad.find("\"full_attention\""), 16, "\"chunked_attention\"");
  try {
    import_hf_config(bad, "g.json");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "layer_types[1]");
  }
}

TEST(HfGeneric, Phi3AndPhi4) {
  const ModelArch mini = fixture("microsoft--Phi-3-mini-4k-instruct.json");
  EXPECT_EQ(mini.family, "phi");
  EXPECT_EQ(mini.attention, AttentionKind::mha);
  EXPECT_EQ(mini.sliding_window, 2047);
  EXPECT_EQ(mini.sliding_window_layers, 32);  // the window in every layer
  EXPECT_FALSE(mini.tied_embeddings);
  EXPECT_NEAR(total_params(mini) / 1e9, 3.8, 3.8 * 0.01);   // model card 3.8B (3.82B on the Hub)
  EXPECT_TRUE(mini.unmapped.empty()) << mini.unmapped.front().field;
  const ModelArch medium = fixture("microsoft--Phi-3-medium-4k-instruct.json");
  EXPECT_EQ(medium.kv_heads, 10);
  EXPECT_NEAR(total_params(medium) / 1e9, 14.0, 14.0 * 0.01);  // model card 14B
  const ModelArch phi4 = fixture("microsoft--phi-4.json");
  EXPECT_EQ(phi4.sliding_window, 0);  // "sliding_window": null
  EXPECT_EQ(phi4.vocab, 100352);
  EXPECT_NEAR(total_params(phi4) / 1e9, 14.7, 14.7 * 0.01);  // 14.7B on the Hub
}

TEST(HfGeneric, CommandRParallelBlockTiedEmbeddings) {
  const ModelArch m = fixture("CohereForAI--c4ai-command-r-v01.json");
  EXPECT_EQ(m.family, "cohere");
  EXPECT_TRUE(m.parallel_block);
  EXPECT_TRUE(m.tied_embeddings);  // CohereConfig's default
  EXPECT_FALSE(m.qk_norm);         // use_qk_norm: false
  EXPECT_NEAR(total_params(m) / 1e9, 35.0, 35.0 * 0.01);  // model card 35B
}

TEST(HfGeneric, GraniteDenseAndMoe) {
  const ModelArch d = fixture("ibm-granite--granite-3.0-8b-instruct.json");
  EXPECT_EQ(d.family, "granite");
  EXPECT_TRUE(d.tied_embeddings);
  EXPECT_TRUE(d.unmapped.empty()) << d.unmapped.front().field;  // multipliers leave the counts unchanged
  EXPECT_NEAR(total_params(d) / 1e9, 8.1, 8.1 * 0.015);  // Granite 3.0 report: 8.1B
  const ModelArch e = fixture("ibm-granite--granite-3.0-3b-a800m-instruct.json");
  ASSERT_TRUE(e.is_moe());
  EXPECT_EQ(e.moe.num_experts, 40);
  EXPECT_EQ(e.moe.top_k, 8);
  EXPECT_EQ(e.moe.expert_ffn_hidden, 512);  // intermediate_size is the expert's width
  EXPECT_EQ(e.moe_layers(), 32);
  EXPECT_NEAR(total_params(e) / 1e9, 3.3, 3.3 * 0.01);
  EXPECT_NEAR((active_params(e) - embedding_table(e)) / 1e9, 0.8, 0.8 * 0.02);  // 800M active, no embedding
}

// Expert counts and shared experts under their other spellings.
TEST(HfGeneric, ExpertSpellings) {
  const std::string base = R"({"num_hidden_layers": 4, "hidden_size": 256, "intermediate_size": 1024,
      "num_attention_heads": 4, "vocab_size": 1000, "tie_word_embeddings": false, )";
  const ModelArch a = import_hf_config(base + R"("model_type": "olmoe", "num_experts": 64, "num_experts_per_tok": 8})",
                                       "a.json");
  EXPECT_EQ(a.moe.num_experts, 64);
  EXPECT_EQ(a.moe.expert_ffn_hidden, 1024);
  const ModelArch b = import_hf_config(base + R"("model_type": "some_moe", "n_routed_experts": 16,
      "num_experts_per_tok": 2, "moe_intermediate_size": 128, "n_shared_experts": 2, "first_k_dense_replace": 1})",
                                       "b.json");
  EXPECT_EQ(b.moe.num_experts, 16);
  EXPECT_EQ(b.moe.expert_ffn_hidden, 128);
  EXPECT_EQ(b.moe.shared_experts, 2);
  EXPECT_EQ(b.moe_layers(), 3);
  EXPECT_EQ(b.ffn_hidden, 1024);  // the dense first layer
  EXPECT_TRUE(has_note(b, "model_type"));  // read as a Llama-style decoder, and it says so
  const ModelArch c = import_hf_config(base + R"("model_type": "granitemoeshared", "num_local_experts": 8,
      "num_experts_per_tok": 2, "shared_intermediate_size": 2048})",
                                       "c.json");
  EXPECT_EQ(c.moe.shared_experts, 1);
  EXPECT_EQ(c.moe.shared_ffn_hidden, 2048);
}

TEST(HfGeneric, WhatCannotBeMappedIsNamed) {
  const std::string base = R"({"model_type": "phi3", "num_hidden_layers": 4, "hidden_size": 256,
      "num_attention_heads": 4, "vocab_size": 1000, )";
  // An unknown key: named, not read.
  const ModelArch m = import_hf_config(base + R"("intermediate_size": 512, "frobnication_depth": 3})", "x.json");
  ASSERT_TRUE(has_note(m, "frobnication_depth"));
  // Keys that would change the counts and cannot be mapped: errors naming them.
  const std::pair<std::string, std::string> errors[] = {
      {R"("intermediate_size": [512, 512, 1024, 1024]})", "intermediate_size"},
      {R"("intermediate_size": 512, "block_configs": [{}]})", "block_configs"},
      {R"("intermediate_size": 512, "kv_lora_rank": 64})", "kv_lora_rank"},
      {R"("intermediate_size": 512, "num_local_experts": 8, "num_experts_per_tok": 2, "moe_layer_freq": [0, 1, 1, 1]})",
       "moe_layer_freq"},
      {R"("intermediate_size": 512, "num_local_experts": 8, "num_experts_per_tok": 9})", "num_experts_per_tok"},
      {R"("intermediate_size": 512, "num_local_experts": 8})", "num_experts_per_tok"},
      {R"("num_key_value_heads": 3, "intermediate_size": 512})", "num_key_value_heads"},
      {R"("hidden_act": "silu"})", "intermediate_size"},
  };
  for (const auto& [tail, field] : errors) {
    try {
      import_hf_config(base + tail, "x.json");
      ADD_FAILURE() << tail;
    } catch (const InputError& e) {
      EXPECT_EQ(e.field(), field) << tail << ": " << e.what();
    }
  }
  // Encoders are refused by model_type.
  try {
    import_hf_config(R"({"model_type": "t5", "num_layers": 6, "d_model": 512})", "t5.json");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "model_type");
  }
}

// The dedicated readers' configs in ../shared/data/models: the unmapped-key scan names nothing that
// changes their counts (the counts are checked against the built-ins in model_test).
TEST(HfGeneric, SharedConfigsNameOnlyHarmlessKeys) {
  for (const auto& entry : std::filesystem::directory_iterator(kShared + "/models")) {
    if (entry.path().extension() != ".json" || entry.path().filename().string().find("grok") != std::string::npos)
      continue;
    const ModelArch m = resolve_model(entry.path().string());
    for (const auto& n : m.unmapped)
      EXPECT_TRUE(n.field.find("vision_config") != std::string::npos || n.field == "text_config.no_rope_layers")
          << entry.path().filename() << ": " << n.field << " " << n.note;
  }
}

}  // namespace hf_generic_test
}  // namespace gpuplan
