#pragma once
// The checks of a serving evaluation's inputs (ranges of the parallel layout and the workload, each
// error naming its option) and the TP the memory model splits by. Internal to src/inference.
#include "inference/inference.h"

namespace gpuplan::step {

// The TP the memory model splits attention and dense layers by (attention-DP: the widest divisor).
int memory_tp(const ModelArch& m, const InferenceParallel& par);
// Throws InputError naming the option out of its range.
void check_input(const ModelArch& m, const InferenceParallel& par, const InferenceWorkload& w, int gpus);

}  // namespace gpuplan::step
