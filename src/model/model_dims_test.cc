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

// The message reports the value given (not the 0 a failed conversion leaves), and a key given twice or an
// empty item is refused.
TEST(ModelDims, BadInputReportsTheValueGiven) {
  auto message = [](const std::string& text) {
    try {
      parse_model_dims(text);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  for (const char* v : {"1e308", "5.5", "inf", "-inf", "99999999999999999999"}) {
    const std::string m = message(std::string("layers=") + v);
    EXPECT_EQ(m.rfind("--arch.layers: must be a whole number from 1 to ", 0), 0u) << m;
    EXPECT_NE(m.find(std::string("got '") + v + "'"), std::string::npos) << m;
  }
  EXPECT_NE(message("hidden=inf").find("got 'inf'"), std::string::npos);
  EXPECT_EQ(message("layerz=5.5").rfind("--arch.layerz: unknown model dimension", 0), 0u) << message("layerz=5.5");
  const std::string twice = message("layers=10,layers=20");
  EXPECT_EQ(twice.rfind("--arch.layers: given twice", 0), 0u) << twice;
  for (const char* empty : {"layers=10,,hidden=4096", ",", "layers=10,"})
    EXPECT_EQ(message(empty).rfind("--arch: empty item", 0), 0u) << empty << ": " << message(empty);
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
