// The server a row names, read as the catalog system it ran on: only systems built from the row's
// accelerator, the longest name found, whole names only.
#include "validate/system_text.h"

#include <gtest/gtest.h>

namespace gpuplan {
namespace {

TEST(SystemText, TheServerTheRowNamesIsItsSystem) {
  const Catalog& c = Catalog::builtin();
  const char* mlperf =
      "MLPerf Inference v4.1 closed Dell system XE8640_H100_SXM_80GBx4_TRT (Dell PowerEdge XE8640 "
      "(4x H100-SXM-80GB, TensorRT)); scenario Offline";
  const SystemReading r = read_system(c, "h100-sxm", mlperf);
  ASSERT_NE(r.system, nullptr);
  EXPECT_EQ(r.system->name, "hgx-h100-4gpu");
  EXPECT_FALSE(r.spelling.empty());
  // The longest name decides: "HGX H100 4-GPU" is not read as "HGX H100".
  EXPECT_EQ(read_system(c, "h100-sxm", "ran on an HGX H100 4-GPU board").system->name, "hgx-h100-4gpu");
  EXPECT_EQ(read_system(c, "h100-sxm", "NVIDIA DGX-H100_H100-SXM-80GBx8_TRT").system->name, "hgx-h100");
}

TEST(SystemText, OtherAcceleratorsAndPartialNamesAreNotRead) {
  const Catalog& c = Catalog::builtin();
  // The server holds another accelerator: not this row's system.
  EXPECT_EQ(read_system(c, "h200-sxm", "Dell PowerEdge XE8640").system, nullptr);
  // A name inside a longer token is not the name.
  EXPECT_EQ(read_system(c, "h100-sxm", "model XE86400 prototype").system, nullptr);
  EXPECT_EQ(read_system(c, "h100-sxm", "").system, nullptr);
  EXPECT_EQ(read_system(c, "h100-sxm", "8x H100 SXM, NeMo 24.07").system, nullptr);
}

// The variant a row's text names where its GPU column drops it: MLPerf's "GH200-144GB" system of a
// "GH200" row is the 144 GB part; a name that does not refine the column's is not read.
TEST(SystemText, TheVariantTheRowNamesRefinesItsGpuColumn) {
  const Catalog& c = Catalog::builtin();
  const Accelerator& gh200 = *c.find_accelerator("GH200");
  const AcceleratorReading r = read_accelerator_variant(
      c, "GH200", gh200, "MLPerf Inference v4.1 closed NVIDIA system GH200-GraceHopper-Superchip_GH200-144GB_aarch64x1_TRT");
  ASSERT_NE(r.accelerator, nullptr);
  EXPECT_EQ(r.accelerator->name, "gh200-144gb");
  EXPECT_GT(r.accelerator->memory_bytes, gh200.memory_bytes);
  // Not a refinement of the column: an H100 row whose notes mention the GH200 stays an H100.
  const Accelerator& h100 = *c.find_accelerator("H100-SXM");
  EXPECT_EQ(read_accelerator_variant(c, "H100-SXM", h100, "TensorRT-LLM (GH200 via gptManagerBenchmark)").accelerator,
            nullptr);
  // The column's own names, a name inside a longer token, and no text: nothing.
  EXPECT_EQ(read_accelerator_variant(c, "GH200", gh200, "GH200 480GB").accelerator, nullptr);
  EXPECT_EQ(read_accelerator_variant(c, "GH200", gh200, "GH200-144GBX").accelerator, nullptr);
  EXPECT_EQ(read_accelerator_variant(c, "GH200", gh200, "").accelerator, nullptr);
}

}  // namespace
}  // namespace gpuplan
