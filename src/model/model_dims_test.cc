#include "model/model_dims.h"

#include <gtest/gtest.h>

#include "core/error.h"
#include "model/model_registry.h"

namespace gpuplan {
namespace {

TEST(ModelDims, ParseAndWriteBack) {
  const ModelDims d = parse_model_dims("layers=24,hidden=4096,heads=32,kv_heads=8,vocab=50257,ffn_hidden=16384,experts=8,topk=2");
  EXPECT_EQ(*d.layers, 24);
  EXPECT_EQ(*d.kv_heads, 8);
  EXPECT_EQ(*d.experts, 8);
  EXPECT_EQ(to_string(parse_model_dims(to_string(d))), to_string(d));
  EXPECT_FALSE(parse_model_dims("").any());
}

TEST(ModelDims, BadInputNamesTheKey) {
  auto field = [](const std::string& text) {
    try {
      parse_model_dims(text);
    } catch (const InputError& e) {
      return std::string(e.field());
    }
    return std::string();
  };
  EXPECT_EQ(field("layer=2"), "--arch.layer");
  EXPECT_EQ(field("layers=0"), "--arch.layers");
  EXPECT_EQ(field("hidden=x"), "--arch.hidden");
  EXPECT_EQ(field("hidden"), "--arch");
  EXPECT_EQ(field("experts=-1"), "--arch.experts");
}

TEST(ModelDims, ReplacesABuiltInModelsDimensions) {
  std::vector<std::string> notes;
  bool builtin = false;
  ModelDims d;
  d.layers = 8;
  const ModelArch m = model_with_dims("llama3.1-405b", "llama3.1-405b", d, notes, &builtin);
  EXPECT_TRUE(builtin);
  EXPECT_EQ(m.layers, 8);
  EXPECT_EQ(m.hidden, resolve_model("llama3.1-405b", "m").hidden);
  EXPECT_TRUE(notes.empty());
}

TEST(ModelDims, BuildsAModelNoBuiltInNames) {
  std::vector<std::string> notes;
  bool builtin = true;
  const ModelArch m = model_with_dims("no-such-gpt", "no-such-gpt", parse_model_dims("layers=24,hidden=2048,heads=16,vocab=50257"),
                                      notes, &builtin);
  EXPECT_FALSE(builtin);
  EXPECT_EQ(m.ffn_hidden, 4 * 2048);
  EXPECT_FALSE(m.gated_mlp);
  EXPECT_EQ(m.kv_heads, 16);
  EXPECT_EQ(m.head_dim, 128);
  EXPECT_EQ(m.family, "gpt");
  EXPECT_EQ(notes.size(), 2u);
}

}  // namespace
}  // namespace gpuplan
