#include "training/framework_release.h"

#include <gtest/gtest.h>

#include "core/error.h"
#include "model/model_registry.h"
#include "training/training_step.h"

namespace gpuplan {
namespace {

TEST(FrameworkRelease, FeaturesByYear) {
  const FrameworkRelease r2021 = framework_release(2021), r2022 = framework_release(2022),
                         r2023 = framework_release(2023), newest = framework_release(kNewestFrameworkRelease);
  EXPECT_FALSE(r2021.sequence_parallel);
  EXPECT_FALSE(r2021.distributed_optimizer);
  EXPECT_FALSE(r2021.tp_comm_overlap);
  EXPECT_TRUE(r2022.sequence_parallel);
  EXPECT_TRUE(r2022.distributed_optimizer);
  EXPECT_FALSE(r2022.tp_comm_overlap);
  EXPECT_TRUE(r2023.newest_features());
  EXPECT_TRUE(newest.newest_features());
  EXPECT_TRUE(release_note(newest).empty());
  EXPECT_EQ(release_note(r2022), "2022 framework: no TP communication overlap");
}

TEST(FrameworkRelease, PlanLosesWhatTheReleaseLacks) {
  TrainingPlan p;
  p.tp = 4;
  const TrainingPlan old = with_release_limits(p, framework_release(2021));
  EXPECT_FALSE(old.sequence_parallel);
  EXPECT_FALSE(old.distributed_optimizer);
  EXPECT_EQ(old.zero, 0);
  EXPECT_FALSE(old.tp_comm_overlap);
  const TrainingPlan same = with_release_limits(p, framework_release(kNewestFrameworkRelease));
  EXPECT_EQ(to_string(same), to_string(p));
  EXPECT_EQ(same.tp_comm_overlap, p.tp_comm_overlap);
}

TEST(FrameworkRelease, YearOrContainer) {
  const FrameworkRelease c = parse_framework_release("25.09");
  EXPECT_EQ(c.year, 2025);
  EXPECT_EQ(c.text(), "25.09");
  EXPECT_TRUE(c.newest_features());
  EXPECT_TRUE(c.ep_a2a_overlap);
  EXPECT_FALSE(parse_framework_release("25.07").ep_a2a_overlap);
  EXPECT_TRUE(parse_framework_release("v26.04.01").ep_a2a_overlap);
  EXPECT_EQ(parse_framework_release("2021").text(), "2021");
  EXPECT_FALSE(parse_framework_release("21.05").sequence_parallel);  // the container's year decides the rest
  EXPECT_EQ(release_note(parse_framework_release("25.02"), true), "25.02 framework: no expert all-to-all overlap");
  EXPECT_TRUE(release_note(parse_framework_release("25.02")).empty());  // a dense model: nothing it lacks
  TrainingPlan p;
  p.ep_overlap = true;
  EXPECT_FALSE(with_release_limits(p, parse_framework_release("24.07")).ep_overlap);
  EXPECT_TRUE(with_release_limits(p, parse_framework_release("25.11")).ep_overlap);
}

TEST(FrameworkRelease, BadTextNamesTheFieldAndBothForms) {
  for (const char* bad : {"", "x", "2018", "2027", "18.05", "27.01", "25.13", "25.9", "202"}) {
    try {
      parse_framework_release(bad);
      FAIL() << bad;
    } catch (const InputError& e) {
      EXPECT_EQ(std::string(e.field()), "--framework-release");
      EXPECT_NE(std::string(e.what()).find("2019 to 2026"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("YY.MM"), std::string::npos) << e.what();
    }
  }
}

TEST(FrameworkRelease, OutOfRangeNamesTheFieldAndRange) {
  for (int year : {0, 2018, 2027, 20210}) {
    try {
      framework_release(year);
      FAIL() << year;
    } catch (const InputError& e) {
      EXPECT_EQ(std::string(e.field()), "--framework-release");
      EXPECT_NE(std::string(e.what()).find("2019 to 2026"), std::string::npos) << e.what();
    }
  }
}

// Before the Hopper-native attention kernels (2024), a Hopper GPU runs the Ampere-design kernel: its
// attention rate is the Ampere rate times FlashAttention-2's H100/A100 speed-up, never above the
// generation's own; other generations and newer releases keep theirs.
TEST(FrameworkRelease, HopperAttentionKernelsByRelease) {
  const Catalog catalog = Catalog::builtin();
  EXPECT_FALSE(framework_release(2023).hopper_attention);
  EXPECT_TRUE(framework_release(2024).hopper_attention);
  EXPECT_TRUE(parse_framework_release("24.07").hopper_attention);
  const Hardware h100 = resolve_hardware(catalog, "hgx-h100"), a100 = resolve_hardware(catalog, "hgx-a100");
  const Hardware old = with_release_kernels(h100, framework_release(2023), catalog);
  const double expect = catalog.efficiency("ampere").attention_eff * a100.accelerator.peak(MathFormat::bf16) *
                        kAmpereKernelHopperSpeedup / h100.accelerator.peak(MathFormat::bf16);
  EXPECT_NEAR(old.efficiency.attention_eff, std::min(expect, h100.efficiency.attention_eff), 1e-12);
  // The same share of the chip's peak on every Hopper part: a smaller part runs it slower in proportion.
  const Hardware pcie = resolve_hardware(catalog, "h100-pcie");
  const double pcie_old = with_release_kernels(pcie, framework_release(2023), catalog).efficiency.attention_eff;
  EXPECT_NEAR(pcie_old, std::min(expect, pcie.efficiency.attention_eff), 1e-12);
  EXPECT_LT(pcie_old * pcie.accelerator.peak(MathFormat::bf16),
            old.efficiency.attention_eff * h100.accelerator.peak(MathFormat::bf16));
  EXPECT_LT(old.efficiency.attention_eff, h100.efficiency.attention_eff);
  EXPECT_EQ(old.efficiency.gemm_max, h100.efficiency.gemm_max);  // only attention's kernels differ
  EXPECT_EQ(with_release_kernels(h100, framework_release(2024), catalog).efficiency.attention_eff,
            h100.efficiency.attention_eff);
  EXPECT_EQ(with_release_kernels(a100, framework_release(2021), catalog).efficiency.attention_eff,
            a100.efficiency.attention_eff);
  // The longer the sequence, the larger attention's share, the more the older kernels cost.
  const ModelArch m = resolve_model("llama3.1-8b");
  TrainingPlan p;
  p.dp = 8;
  double last = 1.0;
  for (int seq : {2048, 8192, 32768}) {
    TrainingWorkload w;
    w.num_gpus = 8;
    w.seq_len = seq;
    w.global_batch = 8;
    const double now = evaluate_training(m, h100, p, w).tokens_per_s_per_gpu;
    const double before = evaluate_training(m, old, p, w).tokens_per_s_per_gpu;
    EXPECT_LT(before, now) << seq;
    EXPECT_LT(before / now, last) << seq;
    last = before / now;
  }
  EXPECT_EQ(release_note(framework_release(2023), false, true),
            "2023 framework: no Hopper-native attention kernels (FlashAttention-2's rate on Hopper)");
  EXPECT_TRUE(release_note(framework_release(2023)).empty());
}

// A stated kernel wins over the release's: FlashAttention-2 on Hopper is the Ampere-design rate at any
// release, native the fitted rate at any; FlashAttention-2 on a generation with no published rate of it
// is refused naming the option.
TEST(FrameworkRelease, StatedAttentionKernel) {
  EXPECT_EQ(parse_attention_kernel("native"), AttentionKernel::native);
  EXPECT_EQ(parse_attention_kernel("Flash-Attention-2"), AttentionKernel::flash_attention_2);
  EXPECT_EQ(parse_attention_kernel("fa2"), AttentionKernel::flash_attention_2);
  EXPECT_FALSE(parse_attention_kernel("fa3"));
  EXPECT_FALSE(parse_attention_kernel(""));
  const Catalog catalog = Catalog::builtin();
  const Hardware h100 = resolve_hardware(catalog, "hgx-h100"), b200 = resolve_hardware(catalog, "hgx-b200");
  const FrameworkRelease r2023 = framework_release(2023), r2026 = framework_release(2026);
  const double old = with_release_kernels(h100, r2023, catalog).efficiency.attention_eff;
  EXPECT_EQ(with_release_kernels(h100, r2026, catalog, AttentionKernel::flash_attention_2).efficiency.attention_eff,
            old);
  EXPECT_EQ(with_release_kernels(h100, r2023, catalog, AttentionKernel::native).efficiency.attention_eff,
            h100.efficiency.attention_eff);
  EXPECT_EQ(effective_attention_kernel(r2023, AttentionKernel::release, "hopper"), AttentionKernel::flash_attention_2);
  EXPECT_EQ(effective_attention_kernel(r2023, AttentionKernel::release, "ampere"), AttentionKernel::native);
  EXPECT_EQ(effective_attention_kernel(r2026, AttentionKernel::release, "hopper"), AttentionKernel::native);
  try {
    with_release_kernels(b200, r2026, catalog, AttentionKernel::flash_attention_2);
    FAIL() << "flash-attention-2 on blackwell";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.field()), "--attention-kernel");
    EXPECT_NE(std::string(e.what()).find("blackwell"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace gpuplan
