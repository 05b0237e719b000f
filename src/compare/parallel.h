#pragma once
// Independent jobs on the machine's hardware threads (compare's questions, recommend's candidates):
// each job writes only its own result, so the answers are those of running them one after another.
#include <functional>
#include <vector>

namespace gpuplan::compare {

// Runs the jobs on up to the machine's hardware threads; once every job has run, the exception of the
// first job (in the list's order) that threw one is rethrown, as running them in order would.
void run_parallel(const std::vector<std::function<void()>>& jobs);

}  // namespace gpuplan::compare
