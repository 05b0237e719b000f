#pragma once
// The long-context yardstick of compare: each side serving prompts of spec.long_context_tokens (the
// operating-point chooser's deployment at the spec's interactivity: KV per user, users its KV cache
// holds, TTFT with chunked prefill, tokens/s per GPU) and training at that sequence length (the best
// plan the search finds, context parallelism where the sequence needs it), as infer and train give them.
#include <vector>

#include "compare/compare.h"

namespace gpuplan::compare {

// The serving scenario the spec asks of one side at `isl` input tokens: serving_scenario with the spec's
// OSL, interactivity, TTFT limit (negative: the default by `isl`), MTP acceptance, and its long-prompt
// inputs (prefix-cache hits, cached prefixes in host memory).
ServingScenario spec_serving_scenario(const ModelArch& m, const SystemSide& side, const CompareSpec& spec,
                                      Precision weights, long long isl, double tokens_per_s_per_user,
                                      double tpot_limit_s);

// Fills mc.long_context_a/_b and appends the "long context" yardsticks for model `m`; training on
// `train_gpus` GPUs (the training yardstick's), serving in the spec's common format. Nothing when
// spec.long_context_tokens is 0.
void add_long_context(const ModelArch& m, const SystemSide& A, const SystemSide& B, const CompareSpec& spec,
                      int train_gpus, ModelComparison& mc, std::vector<Yardstick>& ys);

}  // namespace gpuplan::compare
