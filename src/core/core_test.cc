#include <gtest/gtest.h>

#include "core/csv.h"
#include "core/error.h"
#include "core/numbers.h"
#include "core/precision.h"
#include "core/suggest.h"

namespace gpuplan {
namespace {

TEST(Csv, QuotedFieldsCommasAndNewlines) {
  auto t = parse_csv("a,b,c\n1,\"x, y\",\"he said \"\"hi\"\"\nok\"\n2,,3\n", "t");
  ASSERT_EQ(t.rows.size(), 2u);
  EXPECT_EQ(t.cell(0, "b"), "x, y");
  EXPECT_EQ(t.cell(0, "c"), "he said \"hi\"\nok");
  EXPECT_EQ(t.cell(1, "b"), "");
  EXPECT_EQ(t.cell(1, "missing"), "");
  EXPECT_THROW(parse_csv("a\n\"open", "t"), InputError);
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
  EXPECT_LT(weight_bytes(Precision::nvfp4), weight_bytes(Precision::fp8));
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

}  // namespace
}  // namespace gpuplan
