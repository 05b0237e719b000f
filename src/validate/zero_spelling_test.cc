#include "validate/zero_spelling.h"

#include <gtest/gtest.h>

namespace gpuplan {
namespace {

TEST(ZeroSpelling, TheTable) {
  struct Case {
    const char* text;
    int stage;
  };
  for (const Case& c : std::initializer_list<Case>{
           {"FSDP/ZeRO-3-style sharded data parallel", 3},
           {"FSDP=64 (Megatron-FSDP sharding group)", 3},
           {"ZeRO stage 2; bf16", 2},
           {"zero1 optimizer", 1},
           {"sharding_strategy=SHARD_GRAD_OP", 2},
           {"FULL_SHARD", 3},
           {"NO_SHARD", 0},
           {"FSDP-style (ZeRO)", 1},  // ZeRO without a stage: optimizer-state sharding
           {"ZeRO", 1},
           {"Megatron distributed optimizer", 1},
           {"FSDP", 3},  // PyTorch FSDP's default
           {"pytorch fsdp, bf16", 3},
       }) {
    const ZeroReading z = read_zero_spelling(c.text);
    EXPECT_EQ(z.stage, c.stage) << c.text;
    EXPECT_FALSE(z.note.empty()) << c.text;
  }
}

TEST(ZeroSpelling, OtherRunsAndOtherWordsStateNothing) {
  for (const char* text : {"", "microbatch 1; TFLOP/s includes recompute forward (Eq.3); compared against ZeRO-3 in same table",
                           "2x faster than ZeRO-3", "zero bubble pipeline", "non-zero loss", "zero-copy host buffers",
                           "vs. FSDP"})
    EXPECT_EQ(read_zero_spelling(text).stage, -1) << text;
}

TEST(ZeroSpelling, AStatedStageWinsOverAName) {
  EXPECT_EQ(read_zero_spelling("FSDP; ZeRO-1").stage, 1);
  EXPECT_EQ(read_zero_spelling("ZeRO; ZeRO-2").stage, 2);
}

}  // namespace
}  // namespace gpuplan
