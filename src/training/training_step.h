#pragma once
// The training-step evaluator: one optimizer step of a transformer under a plan on given hardware,
// built op by op (GEMMs with their real shapes, attention, memory-bound kernels), collective by
// collective (TP, CP, EP, PP, DP on the link tier each group spans), then scheduled (1F1B or
// interleaved pipeline, overlap of communication with compute). A pure function.
#include <memory>
#include <string>
#include <vector>

#include "memory/training_memory.h"
#include "memory/violation.h"
#include "model/model.h"
#include "physics/hardware.h"
#include "plan/plan.h"

namespace gpuplan {


// Where the time of one step goes, per GPU on the critical path. The parts add up to step_time_s.
struct StepBreakdown {
  double gemm_s = 0;            // GEMMs of forward and backward (and recompute)
  double attention_s = 0;       // flash-attention kernels
  double memory_bound_s = 0;    // norms, activations, residuals, rotary, casts, permutes, loss
  double recompute_s = 0;       // the recomputed forward (selective or full)
  double offload_s = 0;         // exposed activation offload transfers over the host link
  double tp_comm_s = 0;         // exposed TP/SP all-gather and reduce-scatter
  double cp_comm_s = 0;         // exposed context-parallel KV exchange
  double ep_comm_s = 0;         // exposed MoE dispatch and combine (all-to-all)
  double pp_comm_s = 0;         // exposed pipeline send/recv
  double dp_comm_s = 0;         // exposed gradient reduce-scatter / parameter all-gather (and FSDP)
  double bubble_s = 0;          // pipeline fill and drain
  double optimizer_s = 0;       // optimizer step (memory-bound)
  double total_s() const {
    return gemm_s + attention_s + memory_bound_s + recompute_s + offload_s + tp_comm_s + cp_comm_s + ep_comm_s +
           pp_comm_s + dp_comm_s + bubble_s + optimizer_s;
  }
};

struct TrainingResult {
  std::vector<Violation> violations;  // empty when the plan is valid
  bool valid() const { return violations.empty(); }

  int dp = 0;                    // derived data-parallel size
  long long microbatches = 0;    // per pipeline per step
  double step_time_s = 0;
  StepBreakdown parts;
  double tokens_per_s = 0;
  double tokens_per_s_per_gpu = 0;
  // Model FLOPs per token (forward+backward, no recompute): 6N-style (matmuls only) and with causal
  // attention.
  double model_flops_per_token_6n = 0;
  double model_flops_per_token_attn = 0;
  // With attention counted as if unmasked (every query against the whole sequence: PaLM's 12 L H Q T,
  // MosaicML's and torchtitan's counters): the causal count's attention doubled.
  double model_flops_per_token_noncausal = 0;
  double model_tflops_per_gpu = 0;  // with attention
  double mfu_6n = 0;                // against the precision's dense peak
  double mfu_attn = 0;
  double mfu_noncausal = 0;
  double mfu_6n_bf16 = 0;           // against the BF16 dense peak
  double mfu_attn_bf16 = 0;
  double mfu_noncausal_bf16 = 0;

  // Per-GPU memory of the most loaded stage against the accelerator's capacity. A plan that does not
  // fit still gets a time (memory.fits says whether it would run).
  TrainingMemory memory;
};

// The forward costs of each kind of layer of the plans evaluate_training has seen, for a caller that
// evaluates many plans of one model on one hardware and workload (a search): plans that differ only in
// what a layer's cost does not read (pipeline split, recompute, ZeRO, overlap switches, micro-batches
// per step) share them. evaluate_training with a cache returns what it returns without one, bit for
// bit. The cache keeps to the model, hardware and workload it first saw (their addresses, sequence and
// precision) and starts over when given others; the caller must not change them in place meanwhile.
// Not thread-safe: one per thread.
class LayerCostCache {
 public:
  LayerCostCache();
  ~LayerCostCache();
  LayerCostCache(const LayerCostCache&) = delete;
  LayerCostCache& operator=(const LayerCostCache&) = delete;
  struct Impl;
  Impl& impl() { return *impl_; }

 private:
  std::unique_ptr<Impl> impl_;
};

struct TrainingOptions {
  bool with_memory = true;          // run the memory estimator too
  MemoryOptions memory;             // capacity_bytes 0 = the accelerator's HBM
  LayerCostCache* layer_costs = nullptr;  // optional (LayerCostCache)
  // The plan passed check_plan (its dp filled): evaluate_training does not check it again.
  bool plan_checked = false;
};

// `o` with what is 0 (unknown) filled from `hw`: the GPU's memory capacity and its share of the node's
// host memory.
MemoryOptions with_capacities(MemoryOptions o, const Hardware& hw);

// Evaluates one step. Returns violations (not exceptions) when the plan does not divide the model or
// the GPU count.
TrainingResult evaluate_training(const ModelArch& model, const Hardware& hw, const TrainingPlan& plan,
                                 const TrainingWorkload& workload, const TrainingOptions& options = {});

// A floor under evaluate_training(model, hw, plan, workload, options).step_time_s for `plan` under any
// recompute mode, ZeRO stage and memory-saver layers: its GEMM, attention and memory-bound parts, its
// exposed TP, CP and EP communication without recompute, and the pipeline bubble those leave (parts;
// step_time_s their sum). The step adds recompute (which only raises those communication terms),
// offload, hand-offs, data-parallel traffic and the optimizer, non-negative terms, and a floating-point
// sum of non-negative terms does not fall as one grows, so the floor is never above the step.
// Violations as evaluate_training's. A few of its operations: a search's bound.
TrainingResult training_step_floor(const ModelArch& model, const Hardware& hw, const TrainingPlan& plan,
                                   const TrainingWorkload& workload, const TrainingOptions& options = {});

// Checks divisibility of a plan against model and workload; empty when valid. Fills plan.dp when 0.
std::vector<Violation> check_plan(const ModelArch& model, TrainingPlan& plan, const TrainingWorkload& workload);

}  // namespace gpuplan
