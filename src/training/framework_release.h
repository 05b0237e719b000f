#pragma once
// The training framework's release: what the Megatron-LM / Megatron-Core stack of that release could run.
// A stated input (`train --framework-release YEAR|YY.MM`, default the newest): a year (2019-2026), or a
// NeMo container version (YY.MM or YY.MM.NN, e.g. 25.09), which implies its year and places the release
// within it. `validate` states it from a row's container tag or date. Sources (docs/training-model.md,
// "Framework release"):
//  - the distributed optimizer (optimizer state sharded over data parallel, ZeRO-1 style) and sequence
//    parallelism arrived in Megatron-LM in 2022 (Korthikanti et al. 2022, "Reducing Activation
//    Recomputation in Large Transformer Models"; Megatron-LM v3.0); Narayanan et al. 2021 ran without both;
//  - TP communication overlapped with the GEMMs (Transformer Engine userbuffers, Megatron
//    --tp-comm-overlap) arrived in 2023;
//  - the MoE expert all-to-all overlapped with another micro-batch's compute (batch-level overlap,
//    `--overlap-moe-expert-parallel-comm --delay-wgrad-compute`) arrived in Megatron-Core 0.14 (2025/09,
//    megatron/core/transformer/moe/README.md), first in the NeMo 25.09 container. A year stands for its
//    newest release: 2025 has it;
//  - attention kernels written for Hopper (cuDNN 9's fused flash attention, 2024/02; FlashAttention-3,
//    2024/07) arrived in 2024. Before them a Hopper GPU ran the Ampere-design kernel (FlashAttention-2,
//    2023/07), which uses none of Hopper's new instructions (TMA, warpgroup MMA): its rate on an H100 is
//    its A100 rate times 335 / 203 TFLOP/s (Dao 2023, "FlashAttention-2", Fig. 4b and 7b: forward +
//    backward, head dim 128, no causal mask), not the Hopper-native kernels' fitted rate.
#include <optional>
#include <string>

#include "catalog/catalog.h"
#include "catalog/efficiency.h"
#include "physics/hardware.h"
#include "plan/plan.h"
#include "recipe/container_version.h"

namespace gpuplan {

inline constexpr int kOldestFrameworkRelease = 2019;  // Megatron-LM's first release (Shoeybi et al. 2019)
inline constexpr int kNewestFrameworkRelease = 2026;
// The first container whose Megatron-Core overlaps the expert all-to-all (Megatron-Core 0.14).
inline constexpr ContainerVersion kEpA2aOverlapContainer{25, 9, 0};

struct FrameworkRelease {
  int year = kNewestFrameworkRelease;
  std::optional<ContainerVersion> container;  // stated as a container; nullopt: as a year
  bool sequence_parallel = true;      // Megatron SP with TP > 1 (2022)
  bool distributed_optimizer = true;  // optimizer state sharded over DP (2022)
  bool tp_comm_overlap = true;        // TP collectives behind the GEMMs (2023)
  bool ep_a2a_overlap = true;         // MoE expert all-to-all behind another micro-batch's compute (25.09)
  bool hopper_attention = true;       // attention kernels written for Hopper (2024)
  // The plan features (what an older release's plan search must do without); the expert overlap is no
  // plan shape and does not count.
  bool newest_features() const { return sequence_parallel && distributed_optimizer && tp_comm_overlap; }
  // As stated: "2021" or "25.11".
  std::string text() const;
};

// The features of the release of `year`; InputError(field) naming the range outside
// [kOldestFrameworkRelease, kNewestFrameworkRelease].
FrameworkRelease framework_release(int year, const std::string& field = "--framework-release");

// FlashAttention-2's forward + backward rate on an H100 SXM5 over its rate on an A100 (335 / 203 TFLOP/s,
// Dao 2023, Fig. 4b and 7b): how much faster an Ampere-design attention kernel runs on Hopper.
inline constexpr double kAmpereKernelHopperSpeedup = 335.0 / 203.0;

// The release of a container (its year, 20YY, within the same range).
FrameworkRelease framework_release(const ContainerVersion& c, const std::string& field = "--framework-release");

// A stated release: a year ("2021") or a container version ("25.09", "25.09.01", "v25.09"); InputError(field)
// naming both allowed forms otherwise.
FrameworkRelease parse_framework_release(const std::string& text, const std::string& field = "--framework-release");

// `p` with what the release lacks turned off: no sequence parallelism, full optimizer state on every
// data-parallel rank (zero 0), TP collectives not overlapped, the expert all-to-all not overlapped.
// What it has is left as `p` states it.
TrainingPlan with_release_limits(TrainingPlan p, const FrameworkRelease& r);

// The attention kernel a training stack runs (`train --attention-kernel`): as its release has it (the
// Hopper-native kernels from 2024), the generation's own fused kernels (`native`: cuDNN fused attention
// in Transformer Engine, FlashAttention-3; the fitted rate), or FlashAttention-2 (the flash-attn
// package's flash_attn_func, PyTorch SDPA's flash backend), which a stack runs whatever its year.
enum class AttentionKernel { release, native, flash_attention_2 };

// "native" / "flash-attention-2" (and "fa2", "flash-attn-2"); nullopt otherwise.
std::optional<AttentionKernel> parse_attention_kernel(const std::string& text);
const char* to_string(AttentionKernel k);

// The kernel that runs on a GPU of `generation`: the stated one, else on Hopper the release's (the
// Ampere-design FlashAttention-2 before the Hopper-native kernels), else native.
AttentionKernel effective_attention_kernel(const FrameworkRelease& r, AttentionKernel k,
                                           const std::string& generation);

// `hw` with the attention rate the stack's kernel reaches: on a Hopper GPU running FlashAttention-2
// (effective_attention_kernel), that kernel's share of the chip's BF16 peak: the catalog's Ampere fitted
// attention rate at the A100 80GB SXM's BF16 peak, times kAmpereKernelHopperSpeedup, over the H100 SXM's
// BF16 peak (the chips FlashAttention-2 was measured on), so a Hopper part with fewer SMs or lower clocks
// runs it slower in proportion; `hw` unchanged otherwise (FlashAttention-2 is the Ampere and Ada
// generations' own kernel class). The rate never rises above the generation's own. FlashAttention-2
// stated on another generation (Blackwell, CDNA: no published rate of the kernel there) ->
// InputError(field).
Hardware with_release_kernels(Hardware hw, const FrameworkRelease& r, const Catalog& catalog,
                              AttentionKernel k = AttentionKernel::release,
                              const std::string& field = "--attention-kernel");

// What the release lacks, in words ("2021 framework: no distributed optimizer, no sequence
// parallelism, no TP communication overlap"; with `moe`, the expert all-to-all overlap too); empty for a
// release with every feature. With `hopper`, the attention kernels written for Hopper too.
std::string release_note(const FrameworkRelease& r, bool moe = false, bool hopper = false);

}  // namespace gpuplan
