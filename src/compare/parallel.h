#pragma once
// Independent jobs on the machine's hardware threads (compare's questions, recommend's candidates):
// each job writes only its own result, so the answers are those of running them one after another.
#include <functional>
#include <vector>

namespace gpuplan::compare {

// Runs the jobs on up to the machine's hardware threads; the first exception a job throws is rethrown
// once every job has run.
void run_parallel(const std::vector<std::function<void()>>& jobs);

}  // namespace gpuplan::compare
