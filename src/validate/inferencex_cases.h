#pragma once
// Settings of InferenceX's published recipes that the rows of its schema do not carry but the run
// date and deployment decide (map_inferencex_cases in inference_cases.h applies them).
#include <string>

#include "core/precision.h"

namespace gpuplan {

// The decode pool's running-request cap of InferenceX's SGLang + MoRI recipe (MI355X) in force on
// `date` (YYYY-MM-DD), for a decode worker with or without attention-DP and expert parallelism:
// sequences per attention-DP rank (per worker without attention-DP); 0 = no cap below the clients,
// which is also the answer before the in-tree recipe (the external commits the runs pinned then are
// not stored). Sources in inferencex_cases.cc and docs/inference-model.md.
long long mori_decode_max_batch(const std::string& date, Precision weights, bool attention_dp, bool ep);

}  // namespace gpuplan
