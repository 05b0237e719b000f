#pragma once
// A published training row that contradicts itself: its notes state the same run's throughput a second
// way (a model TFLOP/s per GPU, an MFU) that disagrees with its reported figure by more than any FLOP
// convention explains. Such a row is reported with the reason and not scored: which statement is the
// misprint is unknown.
#include <optional>
#include <string>

#include "validate/training_cases.h"

namespace gpuplan {

// Beyond this ratio two statements of one run's throughput contradict each other. FLOP conventions
// differ by less (shared/data README "FLOP conventions": a recompute counted, 4/3; framework counters
// ~12%; an MFU against the precision's or the BF16 peak is tried both ways).
inline constexpr double kContradictionRatio = 2.0;

// The reason the case's notes contradict its reported figure, or nullopt.
std::optional<std::string> training_row_contradiction(const TrainingCase& c, const std::string& notes);

}  // namespace gpuplan
