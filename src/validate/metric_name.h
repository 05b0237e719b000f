#pragma once
// The reported metric of a dataset row as tables spell it: any case, words or units in place of the
// underscores ("Step time (s)", "tokens/s/GPU", "TTFT (ms)", "MFU (%)").
#include <string>

namespace gpuplan {

// The canonical name (step_time_s, tokens_per_sec_per_gpu, tflops_per_gpu, mfu, tokens_per_sec_total,
// tokens_per_sec_per_user, ttft_ms, tpot_ms), or "" for a name that is none of them, or that omits a
// unit the value depends on ("TTFT" alone: ms or s).
std::string canonical_metric_name(const std::string& cell);

}  // namespace gpuplan
