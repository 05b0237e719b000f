#pragma once
// The training framework's release, as a year: what the Megatron-LM stack of that year could run.
// A stated input (`train --framework-release YEAR`, default the newest); `validate` states it from a
// row's date. Sources (docs/training-model.md, "Framework release"):
//  - the distributed optimizer (optimizer state sharded over data parallel, ZeRO-1 style) and sequence
//    parallelism arrived in Megatron-LM in 2022 (Korthikanti et al. 2022, "Reducing Activation
//    Recomputation in Large Transformer Models"; Megatron-LM v3.0); Narayanan et al. 2021 ran without both;
//  - TP communication overlapped with the GEMMs (Transformer Engine userbuffers, Megatron
//    --tp-comm-overlap) arrived in 2023.
#include <string>

#include "plan/plan.h"

namespace gpuplan {

inline constexpr int kOldestFrameworkRelease = 2019;  // Megatron-LM's first release (Shoeybi et al. 2019)
inline constexpr int kNewestFrameworkRelease = 2026;

struct FrameworkRelease {
  int year = kNewestFrameworkRelease;
  bool sequence_parallel = true;      // Megatron SP with TP > 1 (2022)
  bool distributed_optimizer = true;  // optimizer state sharded over DP (2022)
  bool tp_comm_overlap = true;        // TP collectives behind the GEMMs (2023)
  bool newest_features() const { return sequence_parallel && distributed_optimizer && tp_comm_overlap; }
};

// The features of the release of `year`; InputError(field) naming the range outside
// [kOldestFrameworkRelease, kNewestFrameworkRelease].
FrameworkRelease framework_release(int year, const std::string& field = "--framework-release");

// `p` with what the release lacks turned off: no sequence parallelism, full optimizer state on every
// data-parallel rank (zero 0), TP collectives not overlapped. What it has is left as `p` states it.
TrainingPlan with_release_limits(TrainingPlan p, const FrameworkRelease& r);

// What the release lacks, in words ("2021 framework: no distributed optimizer, no sequence
// parallelism, no TP communication overlap"); empty for a release with every feature.
std::string release_note(const FrameworkRelease& r);

}  // namespace gpuplan
