#pragma once
// Serving at a Poisson request rate (benchmark clients' --request-rate): the load that rate sustains
// (Little's law below capacity), or, at and beyond capacity, the capacity with the queue the run builds
// (its waits added to TTFT; a finite run of N requests measured over its makespan).
#include "inference/inference.h"

namespace gpuplan {

// Evaluates the deployment at `rate_qps` requests/s (infinity: every request sent at t = 0) over a run of
// `requests_in_run` requests (0: unbounded; an overloaded unbounded run is taken as 10 x the slots).
InferenceResult evaluate_at_request_rate(const ModelArch& m, const Hardware& hw, const InferenceParallel& par,
                                         const InferenceWorkload& workload, double rate_qps,
                                         long long requests_in_run);

}  // namespace gpuplan
