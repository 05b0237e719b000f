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

}  // namespace
}  // namespace gpuplan
