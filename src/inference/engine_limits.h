#pragma once
// The batch limits a serving engine's benchmark tool picks for itself when the run does not state them:
// maximum sequences per step (max_batch_size) and tokens per step (max_num_tokens). At maximum load
// these, not the KV cache alone, set the batch. See docs/inference-model.md ("Engine batch limits").
#include "core/precision.h"
#include "inference/inference.h"
#include "model/model.h"
#include "physics/hardware.h"

namespace gpuplan {

struct EngineLimits {
  long long max_batch_size = 0;  // sequences per instance (per attention rank with attention-DP)
  long long max_num_tokens = 0;  // tokens per forward step
};

// trtllm-bench's own settings for a run of fixed isl/osl when max_batch_size and max_num_tokens are
// not given (TensorRT-LLM tensorrt_llm/bench/build/tuning.py: calc_engine_setting and
// finetune_setting; bench/benchmark/utils/general.py: get_settings):
// - requests whose KV fits: kv_fraction x (GPU memory of the tp x pp GPUs - parameters x bytes per
//   weight) / (KV bytes per token x (isl + osl)), the KV heads at least tp (each rank one);
// - max_batch_size: those requests (at most 4,096) / pp, rounded up to 32 (at least 64) below 256,
//   to 128 below 1,024, else to 256;
// - max_num_tokens: the batch x (1 + isl / osl), at most 32,768, rounded up to 256 (at least 2,048)
//   below 4,096, to 512 below 8,192, else to 1,024; with chunked prefill off (trtllm-bench's default)
//   at least isl + max_batch_size, so a whole prompt fits one step.
// Throws InputError when isl or osl is below 1.
EngineLimits trtllm_bench_limits(const ModelArch& m, const Accelerator& a, const InferenceParallel& par,
                                 Precision weights, double kv_bytes_per_element, long long isl, long long osl,
                                 double kv_fraction = 0.9, bool chunked_prefill = false);

}  // namespace gpuplan
