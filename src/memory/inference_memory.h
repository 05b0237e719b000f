#pragma once
// Per-GPU memory of serving a model: weights, paged KV cache, activation workspace, reserve; and the
// largest concurrency that fits.
#include <array>
#include <vector>

#include "core/precision.h"
#include "memory/violation.h"
#include "model/model.h"

namespace gpuplan {

// What a serving engine holds per GPU outside weights, activation workspace and KV pool: the CUDA context
// and the engines' communication buffers (NCCL, custom all-reduce), about 1 GB on Hopper. The serving
// model (evaluate_inference) reserves it, its KV pool then taking kv_mem_fraction (0.9, TensorRT-LLM's
// kv_cache_free_gpu_mem_fraction) of what is left; `memory --inference` reserves it by default too.
inline constexpr double kServingEngineReserveBytes = 1e9;

// Bytes per parameter of the embedding table, the output head and the router: quantized checkpoints keep
// them in bf16. The memory model's weights and the serving step's head GEMM both read it.
inline constexpr double kTableBytes = 2.0;

struct InferenceMemoryInput {
  Precision weight_precision = Precision::bf16;  // linear weights at weight_bytes(); embeddings stay bf16
  double kv_bytes_per_element = 2.0;             // bf16 2, fp8 1
  int tp = 1;   // tensor parallel (attention heads and dense MLPs)
  int ep = 1;   // expert parallel: routed experts split into ep groups (TRT-LLM moe_ep; moe_tp = tp/ep)
  int pp = 1;   // pipeline stages
  long long context_tokens = 8192;  // tokens per sequence held in the KV cache (prompt + output)
  long long concurrency = 1;        // sequences resident at once
  // Tokens one forward step processes (prefill chunk + decodes): sizes the activation workspace.
  // 8192 is the default max_num_batched_tokens / max_num_tokens of vLLM and TensorRT-LLM.
  long long max_batch_tokens = 8192;
  int kv_block_tokens = 16;         // paged-attention block size (vLLM default)
  // CUDA context, CUDA graphs, NCCL buffers, allocator fragmentation, sampler state.
  double reserve_bytes = 5e9;
  double capacity_bytes = 0;        // per GPU; 0 = unknown
  // The engine's pool charges sliding-window layers the whole context, as it charges every other layer
  // (TensorRT-LLM: InferenceWorkload::window_kv_whole); false: a window's layers hold at most the window.
  bool window_kv_whole = false;
  bool operator==(const InferenceMemoryInput&) const = default;
};

struct InferenceMemory {
  double weights_bytes = 0;
  double kv_cache_bytes = 0;
  double activations_bytes = 0;  // transient workspace of one forward step
  double reserve_bytes = 0;
  double total_bytes = 0;
  double capacity_bytes = 0;
  bool fits = true;
  double headroom_bytes = 0;     // capacity - total; 0 when capacity unknown

  int stage = 0;                        // pipeline rank the parts describe (the largest)
  double kv_bytes_per_token = 0;        // per GPU, all of the stage's layers, full-attention layers
  double kv_bytes_per_sequence = 0;     // per GPU, block-rounded, sliding windows capped, recurrent state included
  double state_bytes_per_sequence = 0;  // per GPU: linear-attention layers' fixed state (part of the above)
  int kv_split = 1;                     // how many ways a token's KV is divided over TP
  long long max_concurrency = 0;        // largest concurrency whose total fits; -1 when capacity unknown
  std::vector<Violation> violations;

  double parts_sum() const { return weights_bytes + kv_cache_bytes + activations_bytes + reserve_bytes; }
};

// Per-GPU inference memory. Malformed parallelism (tp not dividing the heads, ep not dividing the
// experts, pp > layers, ...) -> InputError naming "--tp", "--ep", "--pp", "--context" or
// "--concurrency" with the allowed values.
InferenceMemory inference_memory(const ModelArch& m, const InferenceMemoryInput& in);

// One pipeline stage's memory figures that do not depend on the concurrency (per GPU).
struct InferenceMemoryStage {
  double weights_bytes = 0;
  double kv_bytes_per_token = 0;
  double kv_bytes_per_sequence = 0;
  double state_bytes_per_sequence = 0;
  double workspace_bytes = 0;  // activations without the logits rows
  bool last = false;           // the last stage: it holds the logits
};

// inference_memory of one input at several concurrencies: at(c) is inference_memory(m, in with
// concurrency c), bit for bit, the stages' figures and the largest concurrency that fits computed once,
// on construction (InputError there where inference_memory would throw for `in`). Keeps a reference to
// `m`, which must outlive it.
class InferenceMemoryAtLoads {
 public:
  InferenceMemoryAtLoads(const ModelArch& m, const InferenceMemoryInput& in);
  InferenceMemoryAtLoads(ModelArch&&, const InferenceMemoryInput&) = delete;  // a temporary would dangle
  // The memory at `concurrency` sequences; InputError when < 0.
  InferenceMemory at(long long concurrency) const;
  // at(concurrency) without the violation a total beyond the capacity adds (`fits` still says so):
  // for a caller that splits the figures over its ranks and judges the fit of its own totals.
  InferenceMemory figures_at(long long concurrency) const;

 private:
  const ModelArch* m_;
  InferenceMemoryInput in_;
  InferenceMemory fixed_;  // kv_split, reserve, capacity and the largest concurrency that fits
  std::array<InferenceMemoryStage, 8> few_{};  // the stages, in place for up to 8 of them
  std::vector<InferenceMemoryStage> many_;      // or here, beyond
  InferenceMemory at(long long concurrency, bool judged) const;
};

// The tensor-parallel degrees valid for inference of `m` up to `max_tp` (heads divisible; KV heads
// divisible or replicated evenly).
std::vector<int> valid_inference_tp(const ModelArch& m, int max_tp);

}  // namespace gpuplan
