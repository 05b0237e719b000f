// Compute physics: the grouped GEMM of MoE experts, each expert's GEMM at its own shape.
#include <gtest/gtest.h>

#include "catalog/catalog.h"
#include "physics/compute.h"
#include "physics/hardware.h"

namespace gpuplan {
namespace {

const Hardware& h100() {
  static const Hardware hw = resolve_hardware(Catalog::builtin(), "hgx-h100");
  return hw;
}

TEST(GroupedGemm, MoreTokensPerExpertRaiseItsEfficiency) {
  // Qwen3-30B-A3B's expert up-projection (2 x 768 by 2048), 16 local experts: achieved FLOP/s of the
  // grouped GEMM grows with the rows each expert gets (tile padding, roll-off, fixed per-expert cost).
  double last_rate = 0;
  for (double rows : {16.0, 64.0, 200.0, 512.0, 2048.0, 8192.0}) {
    const double t = grouped_gemm_time_s(h100(), MathFormat::bf16, rows, 1536, 2048, 16);
    const double rate = 2.0 * rows * 1536 * 2048 * 16 / t;
    EXPECT_GT(rate, last_rate) << rows << " rows per expert";
    last_rate = rate;
  }
}

TEST(GroupedGemm, MoreSmallerExpertsAreNeverFaster) {
  // The same routed rows and the same active FLOPs split over twice the experts of half the FFN
  // size (top-k doubled): per-expert rows unchanged, each GEMM narrower, twice the per-expert cost.
  for (double rows : {32.0, 512.0, 4096.0}) {
    for (double f : {768.0, 2048.0}) {
      const double coarse = grouped_gemm_time_s(h100(), MathFormat::fp8, rows, f, 2048, 8);
      const double fine = grouped_gemm_time_s(h100(), MathFormat::fp8, rows, f / 2, 2048, 16);
      EXPECT_GE(fine, coarse) << rows << " rows, ffn " << f;
    }
  }
}

TEST(GroupedGemm, PerExpertCostIsPaidPerExpertNotPerFlop) {
  // With the per-expert cost removed, the grouped GEMM is the experts' GEMMs alone; the difference is
  // exactly experts x expert_gemm_overhead_s, whatever the rows.
  Hardware hw = h100();
  for (double rows : {8.0, 4096.0}) {
    const double with = grouped_gemm_time_s(hw, MathFormat::bf16, rows, 1536, 2048, 16);
    Hardware bare = hw;
    bare.efficiency.expert_gemm_overhead_s = 0;
    const double without = grouped_gemm_time_s(bare, MathFormat::bf16, rows, 1536, 2048, 16);
    EXPECT_NEAR(with - without, 16 * hw.efficiency.expert_gemm_overhead_s, 1e-12);
  }
  EXPECT_EQ(grouped_gemm_time_s(hw, MathFormat::bf16, 0, 1536, 2048, 16), 0.0);
}

}  // namespace
}  // namespace gpuplan
