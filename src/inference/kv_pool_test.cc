// How each engine sizes its KV pool (inference/kv_pool.h).
#include "inference/kv_pool.h"

#include <gtest/gtest.h>

namespace gpuplan {

namespace {
double mib(double m) { return m * 1024 * 1024; }
}  // namespace

// SGLang's default --mem-fraction-static on the GPUs' driver-reported memory (MiB), worked by hand from its
// reserve: H100 TP 1, 512 + 1.5 x 8,192 + 2 x 256 + 128 = 13,440 MiB of 81,559 -> 0.835; TP 8, 2 x 512
// graph batches and 1 GiB -> 14,848 -> 0.818; H200 TP 8 the same reserve of 143,771 -> 0.897; B200 TP 8,
// 1.5 x 16,384 -> 27,136 of 183,359 -> 0.852, with an MTP draft 2 GiB more -> 0.841, with attention-DP
// over 8 ranks 512 x 8 x 4.5 more -> 0.751; A100 40 GB, 4,096 and 32 -> 6,848 of 40,960 -> 0.833.
TEST(KvPool, SglangDefaultMemFractionByGpuAndPlan) {
  EXPECT_DOUBLE_EQ(sglang_default_mem_fraction(mib(81559), 1, 1, false, false), 0.835);
  EXPECT_DOUBLE_EQ(sglang_default_mem_fraction(mib(81559), 8, 1, false, false), 0.818);
  EXPECT_DOUBLE_EQ(sglang_default_mem_fraction(mib(143771), 8, 1, false, false), 0.897);
  EXPECT_DOUBLE_EQ(sglang_default_mem_fraction(mib(183359), 8, 1, false, false), 0.852);
  EXPECT_DOUBLE_EQ(sglang_default_mem_fraction(mib(183359), 8, 1, false, true), 0.841);
  EXPECT_DOUBLE_EQ(sglang_default_mem_fraction(mib(183359), 8, 1, true, false), 0.751);
  EXPECT_DOUBLE_EQ(sglang_default_mem_fraction(mib(40960), 1, 1, false, false), 0.833);
  // More parallel ranks reserve more: the fraction never grows with TP or PP.
  EXPECT_GE(sglang_default_mem_fraction(mib(81559), 2, 1, false, false),
            sglang_default_mem_fraction(mib(81559), 2, 4, false, false));
}

TEST(KvPool, RuleNamesRoundTrip) {
  for (KvPoolRule r : {KvPoolRule::free_share, KvPoolRule::whole_share, KvPoolRule::sglang})
    EXPECT_EQ(parse_kv_pool_rule(to_string(r)), r);
  EXPECT_FALSE(parse_kv_pool_rule("vllm").has_value());
}

}  // namespace gpuplan
