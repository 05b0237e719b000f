#include <gtest/gtest.h>

#include <mutex>
#include <thread>
#include <vector>

#include "core/csv.h"
#include "core/error.h"
#include "core/key_values.h"
#include "core/numbers.h"
#include "core/precision.h"
#include "core/spin_lock.h"
#include "core/suggest.h"
#include "core/text.h"
#include "core/yaml_reader.h"

namespace gpuplan {
namespace {

// A key=value list option's items in order; an empty item, an item without '=' and a key given twice are
// refused, naming the option (and the key given twice).
TEST(KeyValues, ItemsAsWrittenEachKeyOnce) {
  const auto items = key_value_items("tp=8,pp=2,order=tp-cp", "--plan", "tp=8,pp=2");
  ASSERT_EQ(items.size(), 3u);
  EXPECT_EQ(items[2].first, "order");
  EXPECT_EQ(items[2].second, "tp-cp");
  EXPECT_TRUE(key_value_items("", "--plan", "tp=8").empty());
  auto field = [](const std::string& text) {
    try {
      key_value_items(text, "--plan", "tp=8,pp=2");
    } catch (const InputError& e) {
      return std::string(e.field());
    }
    return std::string("accepted");
  };
  EXPECT_EQ(field("tp=8,,pp=2"), "--plan");
  EXPECT_EQ(field("tp=8,"), "--plan");
  EXPECT_EQ(field("tp"), "--plan");
  EXPECT_EQ(field("tp=8,tp=4"), "--plan.tp");
}

TEST(Text, TrimDropsOuterWhitespaceOnly) {
  EXPECT_EQ(trim("  selective (op)\t"), "selective (op)");
  EXPECT_EQ(trim("full\r\n"), "full");
  EXPECT_EQ(trim(" \t "), "");
  EXPECT_EQ(trim(""), "");
}

TEST(Csv, QuotedFieldsCommasAndNewlines) {
  auto t = parse_csv("a,b,c\n1,\"x, y\",\"he said \"\"hi\"\"\nok\"\n2,,3\n", "t");
  ASSERT_EQ(t.rows.size(), 2u);
  EXPECT_EQ(t.cell(0, "b"), "x, y");
  EXPECT_EQ(t.cell(0, "c"), "he said \"hi\"\nok");
  EXPECT_EQ(t.cell(1, "b"), "");
  EXPECT_EQ(t.cell(1, "missing"), "");
  EXPECT_THROW(parse_csv("a\n\"open", "t"), InputError);
}

TEST(Csv, LoneCarriageReturnsEndRecords) {
  auto t = parse_csv("a,b\r1,2\r3,4", "t");
  ASSERT_EQ(t.rows.size(), 2u);
  EXPECT_EQ(t.cell(1, "b"), "4");
  EXPECT_EQ(parse_csv("a,b\r\n1,2\r\n", "t").rows.size(), 1u);  // CRLF is still one break
}

TEST(Csv, CellNumbersAreFiniteAndInIntRange) {
  double v = 0;
  EXPECT_TRUE(parse_cell_number(" 8 (est.)", v));
  EXPECT_EQ(v, 8);
  EXPECT_TRUE(parse_cell_number("-2147483647", v));
  for (const char* bad : {"", "  ", "x", "nan", "NaN", "inf", "-inf", "1e400", "99999999999", "2147483648"})
    EXPECT_FALSE(parse_cell_number(bad, v)) << bad;
}

// What a real table writes is read as the number it means, or not at all: thousands groups are one
// number, a magnitude suffix is never dropped ("8k" is not 8), and token lengths read "8k" as 8192.
TEST(Csv, ThousandsGroupsAndSuffixesAreNeverMisread) {
  double v = 0;
  for (const auto& [cell, want] : std::vector<std::pair<const char*, double>>{
           {"23,406", 23406}, {" 1,234,567.5 ", 1234567.5}, {"-1,024", -1024}, {"8, 16", 8}, {"8,16", 8},
           {"1,0240", 1}, {"12,345 (est.)", 12345}, {"64.0", 64}}) {
    ASSERT_TRUE(parse_cell_number(cell, v)) << cell;
    EXPECT_EQ(v, want) << cell;
  }
  for (const char* bad : {"8k", "23.4K", "8k (est.)"}) EXPECT_FALSE(parse_cell_number(bad, v)) << bad;
  for (const auto& [cell, want] : std::vector<std::pair<const char*, double>>{
           {"8k", 8192}, {" 1K ", 1024}, {"128k", 131072}, {"7373", 7373}, {"8,192", 8192}}) {
    ASSERT_TRUE(parse_token_count_cell(cell, v)) << cell;
    EXPECT_EQ(v, want) << cell;
  }
  for (const char* bad : {"k", "1.5k", "-8k", "8kk", "x8k"}) EXPECT_FALSE(parse_token_count_cell(bad, v)) << bad;
}

TEST(Suggest, LongNamesAreCappedInEchoAndSearch) {
  const std::string huge(5'000'000, 'x');
  const std::string echo = echo_name(huge);
  EXPECT_LT(echo.size(), 120u);
  EXPECT_NE(echo.find("5000000 characters"), std::string::npos);
  EXPECT_EQ(echo_name("short"), "short");
  EXPECT_EQ(closest_match(huge, {"memory", "model"}), "");  // returns at once, no 5 MB edit distance
}

TEST(Yaml, DuplicateAndNonScalarKeysAreErrors) {
  EXPECT_THROW(parse_yaml("a: 1\nb: 2\na: 3\n", "f.yaml"), InputError);
  EXPECT_THROW(parse_yaml("x:\n  - {k: 1, k: 2}\n", "f.yaml"), InputError);
  EXPECT_THROW(parse_yaml("? [a, b]\n: 1\n", "f.yaml"), InputError);
  try {
    parse_yaml("top:\n  memory_gb: 80\n  memory_gb: -5\n", "f.yaml");
    FAIL() << "duplicate accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("top.memory_gb"), std::string::npos) << e.what();
  }
  std::string deep;
  for (int i = 0; i < 200; ++i) deep += "[";
  for (int i = 0; i < 200; ++i) deep += "]";
  EXPECT_THROW(parse_yaml(deep, "f.yaml"), InputError);
  YamlMap m(parse_yaml("names: [a, [b]]\n", "f.yaml"), "f.yaml");
  EXPECT_THROW(m.str_list("names"), InputError);  // a list inside the list is not a name
  EXPECT_NO_THROW(parse_yaml("a: 1\nb: {c: 2, d: [1, 2]}\n", "f.yaml"));
}

TEST(Yaml, MapReadsPresentNullAndAbsentKeys) {
  YamlMap m(parse_yaml("a: x\nn: ~\nl: [1, 2]\n'q': 3\n", "f.yaml"), "f.yaml");
  EXPECT_TRUE(m.has("a"));
  EXPECT_FALSE(m.has("n"));  // null reads as absent
  EXPECT_FALSE(m.has("missing"));
  EXPECT_EQ(m.opt_str("missing"), std::nullopt);
  EXPECT_EQ(m.num("q"), 3);
  const YAML::Node absent = m.raw("missing");
  EXPECT_FALSE(absent);
  EXPECT_FALSE(absent.IsNull());
  EXPECT_FALSE(absent.IsSequence());
  EXPECT_EQ(m.raw("l").size(), 2u);
  EXPECT_EQ(m.str("a"), "x");
  try {
    m.reject_unknown_keys();  // raw("n") was never asked for
    FAIL() << "unknown key accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("f.yaml.n"), std::string::npos) << e.what();
  }
  EXPECT_EQ(m.opt_str("n"), std::nullopt);
  EXPECT_NO_THROW(m.reject_unknown_keys());
}

TEST(Suggest, DidYouMean) {
  EXPECT_EQ(closest_match("memroy", {"memory", "model", "train"}), "memory");
  EXPECT_EQ(closest_match("zzzzzz", {"memory", "model"}), "");
  EXPECT_EQ(normalize_name("Llama-3.1 70B"), "llama3170b");
}

TEST(Precision, ParseAndFormats) {
  EXPECT_EQ(parse_precision("FP16/BF16 mixed"), Precision::bf16);
  EXPECT_EQ(parse_precision("MXFP8"), Precision::mxfp8);
  EXPECT_EQ(gemm_format(Precision::nvfp4), MathFormat::fp4);
  EXPECT_FALSE(parse_precision("fp3").has_value());
  // FP16 alone is not bf16: refused (the commands name their allowed list), not reported as bf16.
  EXPECT_FALSE(parse_precision("fp16").has_value());
  EXPECT_FALSE(parse_precision("FP16").has_value());
  EXPECT_LT(weight_bytes(Precision::nvfp4), weight_bytes(Precision::fp8));
}

// Weight-only INT4 as serving tools spell it: one precision, BF16 GEMMs, 4-bit weights plus scales.
TEST(Precision, WeightOnlyInt4Spellings) {
  for (const char* s : {"w4a16", "W4A16", "int4_wo", "INT4-WO", "int4-awq", "int4_awq", "AWQ", "awq-int4", "gptq",
                        "gptq-int4", "GPTQ_INT4", "int4-gptq", "int4 weight-only", "w4a16-awq"}) {
    ASSERT_TRUE(parse_precision(s).has_value()) << s;
    EXPECT_EQ(*parse_precision(s), Precision::w4a16) << s;
  }
  // "int4" alone could be W4A8 or INT4 math: not read; nor INT8/INT3 variants.
  for (const char* s : {"int4", "gptq-int8", "w4a8", "int3"}) EXPECT_FALSE(parse_precision(s).has_value()) << s;
  EXPECT_EQ(to_string(Precision::w4a16), "w4a16");
  EXPECT_EQ(parse_precision(to_string(Precision::w4a16)), Precision::w4a16);
  EXPECT_EQ(gemm_format(Precision::w4a16), MathFormat::bf16);
  EXPECT_GT(weight_bytes(Precision::w4a16), 0.5);
  EXPECT_LT(weight_bytes(Precision::w4a16), weight_bytes(Precision::fp4));
  EXPECT_NE(precision_names().find("w4a16"), std::string::npos);
}

// Numbers as a planner writes them: separators and scale words, never an exponent.
TEST(Numbers, ReadLikeAPlannerWritesThem) {
  EXPECT_EQ(with_commas(6530.4), "6,530");
  EXPECT_EQ(with_commas(-1234567), "-1,234,567");
  EXPECT_EQ(usd_text(6530), "$6,530");
  EXPECT_EQ(usd_text(0.42), "$0.42");
  EXPECT_EQ(usd_text(1.25e6), "$1.25 M");
  EXPECT_EQ(usd_text(6530e3), "$6.53 M");
  EXPECT_EQ(count_text(4490, "GPU-hours"), "4,490 GPU-hours");
  EXPECT_EQ(count_text(15e12, "tokens"), "15 T tokens");
  EXPECT_EQ(count_text(1.5e13, "tokens"), "15 T tokens");
  EXPECT_EQ(count_text(300e9, "tokens"), "300 B tokens");
  for (double v : {1e3, 1e7, 1e11, 1.5e13, 3.3e16}) {
    EXPECT_EQ(count_text(v, "").find('e'), std::string::npos) << v;
    EXPECT_EQ(usd_text(v).find('e'), std::string::npos) << v;
  }
}

TEST(SpinLock, ExcludesAndHandsOver) {
  SpinLock lock;
  long long counter = 0;  // unguarded but for the lock
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&] {
      for (int i = 0; i < 100000; ++i) {
        const std::lock_guard<SpinLock> held(lock);
        ++counter;
      }
    });
  for (auto& th : threads) th.join();
  EXPECT_EQ(counter, 400000);
  ASSERT_TRUE(lock.try_lock());
  EXPECT_FALSE(lock.try_lock());
  lock.unlock();
  std::unique_lock<SpinLock> none;  // an empty unique_lock owns nothing
  EXPECT_FALSE(none.owns_lock());
}

}  // namespace
}  // namespace gpuplan
