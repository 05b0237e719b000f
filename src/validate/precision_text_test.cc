// The serving precision cells of real tables: every spelling of a modelled format is read as it, and a
// format the serving model does not run, or text naming none, is refused, never read as BF16.
#include "validate/precision_text.h"

#include <gtest/gtest.h>

#include <utility>
#include <vector>

namespace gpuplan {
namespace {

TEST(ServingPrecisionText, WeightsSpellingsAreReadOrRefused) {
  for (const auto& [cell, want] : std::vector<std::pair<const char*, Precision>>{
           {"FP8", Precision::fp8},
           {"fp8_e4m3", Precision::fp8},
           {"e4m3", Precision::fp8},
           {"float8", Precision::fp8},
           {"W8A8-FP8", Precision::fp8},
           {"gemm=fp8; moe=fp8_block", Precision::fp8},
           {"NVFP4 (W4A4)", Precision::nvfp4},
           {"MXFP4", Precision::nvfp4},
           {"gemm=nvfp4; moe=nvfp4", Precision::nvfp4},
           {"BF16/FP16", Precision::bf16},
           {"bfloat16", Precision::bf16},
           {"FP16", Precision::bf16},
           {"W4A16 AWQ", Precision::w4a16},
           {"gemm=int4_wo; moe=int4_wo", Precision::w4a16},
           {"INT4 weight-only", Precision::w4a16}}) {
    const auto got = read_serving_weights(cell);
    ASSERT_TRUE(got.has_value()) << cell;
    EXPECT_EQ(*got, want) << cell;
  }
  for (const char* cell : {"", "INT8 SmoothQuant", "INT4", "8-bit", "FP32", "auto", "W8A8 INT8"})
    EXPECT_FALSE(read_serving_weights(cell).has_value()) << cell;
}

TEST(ServingPrecisionText, KvCacheBytes) {
  for (const auto& [cell, want] : std::vector<std::pair<const char*, double>>{
           {"FP8", 1.0}, {"fp8_e4m3", 1.0}, {"INT8", 1.0}, {"BF16", 2.0}, {"FP16", 2.0}, {"float16", 2.0}, {"auto", 2.0}}) {
    const auto got = read_kv_cache_bytes(cell);
    ASSERT_TRUE(got.has_value()) << cell;
    EXPECT_EQ(*got, want) << cell;
  }
  for (const char* cell : {"", "8-bit", "x"}) EXPECT_FALSE(read_kv_cache_bytes(cell).has_value()) << cell;
}

}  // namespace
}  // namespace gpuplan
