#pragma once
// Independent jobs on the machine's hardware threads (compare's questions, recommend's candidates):
// each job writes only its own result, so the answers are those of running them one after another.
// One pool of threads serves every call, nested ones included (a job may run jobs of its own): no
// thread is made per call, and nested calls add none.
#include <functional>
#include <vector>

namespace gpuplan::compare {

// Runs the jobs on the calling thread and the pool's (the jobs early in the list start first); once every
// job has run, the exception of the first job (in the list's order) that threw one is rethrown, as
// running them in order would. While it waits for others' jobs, the calling thread runs jobs of any call.
void run_parallel(const std::vector<std::function<void()>>& jobs);

}  // namespace gpuplan::compare
