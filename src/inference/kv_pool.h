#pragma once
// How a serving engine sizes its KV pool from a GPU's memory (docs/inference-model.md, "The KV pool").
// TensorRT-LLM takes a share of the memory left after the weights and its activation buffers
// (kv_cache_free_gpu_mem_fraction); vLLM a share of the whole memory for the weights, the activations'
// profiled peak and the pool together (gpu_memory_utilization); SGLang a share of the whole memory for
// the weights and the pool (mem_fraction_static), by default what its reserve for activations, CUDA
// graphs and parallel state leaves.
#include <optional>
#include <string>

namespace gpuplan {

enum class KvPoolRule {
  free_share,   // share x (memory - weights - activations - reserve): TensorRT-LLM
  whole_share,  // share x memory - weights - activations: vLLM's gpu_memory_utilization
  sglang,       // mem_fraction_static x memory - weights, the fraction SGLang's default unless stated
};
const char* to_string(KvPoolRule r);
std::optional<KvPoolRule> parse_kv_pool_rule(const std::string& s);

// SGLang's default --mem-fraction-static (server_args.py, _handle_gpu_memory_settings, from its general
// memory heuristics of v0.5.3): (memory - reserved) / memory, the reserve in MiB 512 + 1.5 x the prefill
// chunk (its default by the GPU's memory: 2,048 below 35 GiB, 4,096 below 60, 8,192 below 160, 16,384
// above) + 2 x the CUDA-graph batch cap (8 below 20 GiB; below 35 24, or 80 from TP 4; below 60 32 /
// 160; below 160 256 / 512; above 512) + TP x PP / 8 GiB, with attention-DP 3 MiB more a graph batch and
// attention rank (4.5 above 300 batches), at least 10 GiB on GPUs above 60 GiB, and 2 GiB more for a
// speculative (EAGLE / MTP) draft. Rounded to 3 decimals as SGLang does.
double sglang_default_mem_fraction(double memory_bytes, int tp, int pp, bool attention_dp, bool speculative);

}  // namespace gpuplan
