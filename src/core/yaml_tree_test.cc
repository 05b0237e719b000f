#include "core/yaml_tree.h"

#include <gtest/gtest.h>

#include <string>

#include "core/embedded_data.h"
#include "core/error.h"
#include "core/yaml_reader.h"

namespace gpuplan {
namespace {

// Every property of every node a reader can see (Mark aside): kind, tag, style, scalar text, item and
// entry order; empty when a and b are the same tree, else the first difference and its path.
std::string difference(const YAML::Node& a, const YAML::Node& b, const std::string& path) {
  if (a.Type() != b.Type()) return path + ": node type differs";
  if (a.IsDefined() != b.IsDefined()) return path + ": definedness differs";
  if (a.Tag() != b.Tag()) return path + ": tag '" + a.Tag() + "' vs '" + b.Tag() + "'";
  if (a.Style() != b.Style()) return path + ": style differs";
  if (a.IsScalar() && a.Scalar() != b.Scalar()) return path + ": scalar '" + a.Scalar() + "' vs '" + b.Scalar() + "'";
  if (a.size() != b.size()) return path + ": size differs";
  if (a.IsSequence()) {
    for (size_t i = 0; i < a.size(); ++i)
      if (auto d = difference(a[i], b[i], path + "[" + std::to_string(i) + "]"); !d.empty()) return d;
  } else if (a.IsMap()) {
    auto ia = a.begin();
    auto ib = b.begin();
    for (size_t i = 0; i < a.size(); ++i, ++ia, ++ib) {
      const std::string at = path + "{" + std::to_string(i) + "}";
      if (auto d = difference(ia->first, ib->first, at + ".key"); !d.empty()) return d;
      if (auto d = difference(ia->second, ib->second, at + ".value"); !d.empty()) return d;
    }
  }
  return {};
}

std::string round_trip_difference(const std::string& text) {
  const YAML::Node parsed = YAML::Load(text);
  return difference(parsed, decode_yaml_tree(encode_yaml_tree(parsed), "t"), "t");
}

TEST(YamlTree, EveryEmbeddedFileIsYamlCppsParseOfItsText) {
  ASSERT_FALSE(embedded_data_files().empty());
  for (const EmbeddedFile& f : embedded_data_files()) {
    const std::string path(f.path);
    const YAML::Node parsed = parse_yaml(std::string(f.text), path);
    EXPECT_EQ(difference(parsed, embedded_yaml(f), path), "") << path;
    EXPECT_EQ(encode_yaml_tree(parsed), f.tree) << path;
  }
}

TEST(YamlTree, TheComparisonSeesTagStyleAndText) {
  EXPECT_NE(difference(YAML::Load("a: 'x'"), YAML::Load("a: x"), "t"), "");      // tag "!" vs "?"
  EXPECT_NE(difference(YAML::Load("a: [x]"), YAML::Load("a:\n  - x"), "t"), "");  // flow vs block
  EXPECT_NE(difference(YAML::Load("a: x"), YAML::Load("a: y"), "t"), "");
  EXPECT_NE(difference(YAML::Load("{a: 1, b: 2}"), YAML::Load("{b: 2, a: 1}"), "t"), "");
  EXPECT_NE(difference(YAML::Load("a: null"), YAML::Load("a: 'null'"), "t"), "");
}

TEST(YamlTree, RoundTripsEveryKindOfNode) {
  EXPECT_EQ(round_trip_difference(""), "");
  EXPECT_EQ(round_trip_difference("~"), "");
  EXPECT_EQ(round_trip_difference("just text"), "");
  EXPECT_EQ(round_trip_difference("- 1\n- [a, 'b', \"c\\n\"]\n- {x: 1, y: null, z: ~, w:}\n"), "");
  EXPECT_EQ(round_trip_difference("- !!str 5\n- !custom x\n- !custom [1]\n"), "");
  EXPECT_EQ(round_trip_difference("a: |\n  two\n  lines\nb: >\n  folded\n  text\nc: ''\nd: \"\\u00e9\\t\"\n"), "");
  EXPECT_EQ(round_trip_difference("list: []\nmap: {}\nnested:\n  - - - deep\n"), "");
  // Aliases read back as copies of their anchor's node.
  EXPECT_EQ(round_trip_difference("base: &b {gpus: 8, name: x}\nuse: *b\nlist: [*b, *b]\n"), "");
  // A long scalar and a long list (counts past one byte).
  EXPECT_EQ(round_trip_difference("s: " + std::string(70000, 'x') + "\nl: [" + std::string(399, '1') + "]\n"), "");
  std::string many = "l:\n";
  for (int i = 0; i < 300; ++i) many += "  - " + std::to_string(i) + "\n";
  EXPECT_EQ(round_trip_difference(many), "");
}

TEST(YamlTree, ReadsLikeTheParsedDocument) {
  const YAML::Node n = decode_yaml_tree(encode_yaml_tree(YAML::Load("a: 1.5\nb: [x, y]\nc:\nd: true\n")), "t");
  YamlMap m(n, "t");
  EXPECT_EQ(m.num("a"), 1.5);
  EXPECT_EQ(m.str_list("b"), (std::vector<std::string>{"x", "y"}));
  EXPECT_FALSE(m.has("c"));
  EXPECT_TRUE(m.boolean("d"));
  EXPECT_FALSE(n["missing"]);
}

TEST(YamlTree, CorruptBytesAreAnErrorNamingTheOrigin) {
  const std::string good = encode_yaml_tree(YAML::Load("a: [1, 2]\n"));
  EXPECT_THROW(decode_yaml_tree("", "f"), InputError);
  EXPECT_THROW(decode_yaml_tree(good.substr(0, good.size() - 1), "f"), InputError);
  EXPECT_THROW(decode_yaml_tree(good + "x", "f"), InputError);
  std::string bad_version = good;
  bad_version[0] = 9;
  try {
    decode_yaml_tree(bad_version, "catalog/x.yaml");
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("catalog/x.yaml"), std::string::npos);
  }
}

}  // namespace
}  // namespace gpuplan
