#pragma once
// Per-GPU memory of a training job under a plan (Megatron-LM / Megatron-Core semantics), for the most
// loaded pipeline stage.
#include <cstdint>
#include <string>
#include <vector>

#include "memory/violation.h"
#include "model/model.h"
#include "plan/plan.h"

namespace gpuplan {

// Bytes per vocabulary entry and token that an eager F.cross_entropy on logits upcast to fp32 holds at
// its peak: while log_softmax's backward runs, the bf16 logits (2), the fp32 log-softmax output it saved
// (4), the incoming fp32 gradient (4) and the one it writes (4) (measured on an H200: docs/doctor-probe.md).
inline constexpr double kEagerLossBytesPerLogit = 14.0;

// The loss buffers per vocabulary entry and token on the last stage: fused kernels keep the logits in the
// loss's dtype (4 or 2); eager kernels kEagerLossBytesPerLogit with an fp32 loss, and with a 16-bit loss
// (no upcast) the saved log-softmax, the incoming and the written gradient, 2 bytes each.
double loss_bytes_per_logit(const FinetuneSpec& f);

struct MemoryOptions {
  // Memory the model cannot use: CUDA context (~0.5-1 GB), NCCL / communication buffers, the caching
  // allocator's fragmentation and transient workspaces (cuBLAS, gradient reduce buckets). 5 GB is what
  // Megatron jobs on 80 GB parts typically leave unused at the edge of fitting.
  double reserve_bytes = 5e9;
  double capacity_bytes = 0;  // per GPU; 0 = unknown (fits is then true and headroom 0)
  // Host (CPU) memory: this GPU's share of its node's DRAM (0 = unknown: not checked), and what the
  // training process keeps there besides offloaded state: the rank's process, its data-loader workers
  // and pinned staging buffers (a few GB to a few tens of GB per rank in practice; 16 GB assumed).
  double host_capacity_bytes = 0;
  double host_reserve_bytes = 16e9;
  bool flash_attention = true;  // score matrix never stored (Megatron + Transformer Engine default)
  // Dropout masks: -1 = by model (GPT-style, non-gated MLP: on, as the GPT-3 recipes; gated: off),
  // 0 = off, 1 = on.
  int dropout = -1;
};

// One pipeline rank's memory, split by kind. All bytes are per GPU.
struct StageMemory {
  int stage = 0;               // pipeline rank, 0-based
  std::string role;            // "only" (pp = 1), "first", "middle", "last"
  int layers = 0;              // transformer layers held (all virtual chunks)
  double params = 0;           // parameters held before any ZeRO/FSDP sharding
  double weights_bytes = 0;
  double gradients_bytes = 0;
  double optimizer_bytes = 0;
  double activations_bytes = 0;  // layer activations + embedding / logits buffers
  double logits_bytes = 0;       // of activations: logits / loss buffers on the last stage (at the loss precision)
  double layer_activations_per_microbatch_bytes = 0;  // all the stage's layers, one micro-batch
  double in_flight_microbatches = 0;  // micro-batches whose activations are held, in whole-stage units
  double offloaded_bytes_per_microbatch = 0;  // saved activations sent to host per micro-batch (offload_layers)
  double host_bytes = 0;         // offloaded activations held in host memory (not part of total_bytes)
  double total_bytes = 0;        // the parts above plus the reserve
};

struct TrainingMemory {
  // Parts of the most loaded stage (the one with the largest total).
  double weights_bytes = 0;    // bf16 parameters (2 B each; fp8/fp4 recipes keep bf16 weights)
  double gradients_bytes = 0;  // fp32 main gradients (4 B each)
  double optimizer_bytes = 0;  // Adam: fp32 master copy + m + v (12 B each)
  double activations_bytes = 0;
  double reserve_bytes = 0;
  double total_bytes = 0;
  double capacity_bytes = 0;   // 0: unknown
  bool fits = true;
  double headroom_bytes = 0;   // capacity - total (negative when it does not fit; 0 when unknown)

  int stage = 0;               // which pipeline rank the parts describe
  std::string stage_role;
  std::vector<StageMemory> stages;  // every pipeline rank
  int dp = 1;                  // data-parallel degree derived from the GPU count
  int expert_dp = 1;           // expert data-parallel degree: gpus / (pp * ep * etp)
  long long num_microbatches = 1;  // per pipeline per step: global_batch / (mbs * dp)
  double activation_bytes_per_layer = 0;  // one micro-batch, one layer of the reported stage, mean
  double host_offload_bytes = 0;  // activations the reported stage holds in host memory (offload_layers)
  // Host memory per GPU: offloaded activations of the stage that holds the most, plus the host reserve;
  // against this GPU's share of the node's DRAM (0: unknown). Over it the plan does not fit.
  double host_bytes_per_gpu = 0;
  double host_capacity_bytes_per_gpu = 0;
  bool fits_host = true;
  std::vector<Violation> violations;

  double parts_sum() const {
    return weights_bytes + gradients_bytes + optimizer_bytes + activations_bytes + reserve_bytes;
  }
};

// Per-GPU training memory. Malformed combinations -> InputError naming "--plan.KEY", "--gpus" or
// "--global-batch" with the allowed values: tp must divide the heads and KV heads; pp <= layers and
// pp*vp <= layers + 2; cp divides seq; ep divides the experts (1 for dense models); etp divides the
// expert FFN; tp*pp*cp divides the GPUs; ep*etp divides gpus/pp; mbs*dp divides the global batch.
// dp is derived from the GPU count (an explicit dp > 1 must agree). Not fitting is data: fits = false
// with a violation.
TrainingMemory training_memory(const ModelArch& m, const TrainingPlan& plan, const TrainingWorkload& w,
                               const MemoryOptions& opt = {});

// The figures of a TrainingMemory that decide whether a plan fits (same values, bit for bit), without
// its stages, role names and violation messages.
struct TrainingMemoryTotals {
  double total_bytes = 0;     // the most loaded stage's total
  double headroom_bytes = 0;  // as TrainingMemory::headroom_bytes
  double host_bytes_per_gpu = 0;
  bool fits = true;
  bool fits_host = true;
  double offloaded_bytes_per_microbatch = 0;  // the most any stage sends to host per micro-batch
  int most_layers = 0;                        // the most layers any stage holds
};

// training_memory of one plan for any setting of its memory savers (recompute_layers, offload_layers):
// what does not depend on them (validation, the parallel degrees, each kind of layer's parameters,
// activations and adapters) is worked out once, on construction, so a search that tries several
// settings of one plan pays for it once. memory(r, o) is training_memory of the plan with
// recompute_layers r and offload_layers o, bit for bit; totals(r, o) its TrainingMemoryTotals. Keeps
// references to `m` and `w`, which must outlive it. Throws InputError on construction where
// training_memory would for `plan`, and from memory / totals for a negative layer count.
class TrainingMemoryModel {
 public:
  TrainingMemoryModel(const ModelArch& m, const TrainingPlan& plan, const TrainingWorkload& w,
                      const MemoryOptions& opt = {});
  // Temporaries would dangle: the model keeps references to the model and the workload.
  TrainingMemoryModel(ModelArch&&, const TrainingPlan&, const TrainingWorkload&, const MemoryOptions& = {}) = delete;
  TrainingMemoryModel(const ModelArch&, const TrainingPlan&, TrainingWorkload&&, const MemoryOptions& = {}) = delete;

  TrainingMemory memory(int recompute_layers, int offload_layers) const;
  TrainingMemoryTotals totals(int recompute_layers, int offload_layers) const;
  // totals(r, o).fits, and whether its HBM alone fits (total_bytes <= capacity_bytes, or no capacity):
  // the same answers, from the stages up to the first that does not fit.
  bool fits(int recompute_layers, int offload_layers) const { return fits_in(recompute_layers, offload_layers, true); }
  bool fits_hbm(int recompute_layers, int offload_layers) const {
    return fits_in(recompute_layers, offload_layers, false);
  }

 private:
  bool fits_in(int recompute_layers, int offload_layers, bool with_host) const;
  struct LayerKind {  // one kind of layer (dense or with routed experts), this GPU's share
    double dense_params = 0;   // attention, dense MLP, shared experts (split by TP) and the router
    double expert_params = 0;  // routed experts (split by EP x ETP)
    double adapter_params = 0, adapter_intermediate = 0;  // LoRA / QLoRA
    double acts_kept = 0, acts_full = 0, acts_none = 0;   // activations: by the plan's mode, full recompute, none
  };
  TrainingPlan with_layers(int recompute_layers, int offload_layers) const;
  void stage(const TrainingPlan& q, int rank, StageMemory& s) const;

  const ModelArch& m_;
  const TrainingWorkload& w_;
  TrainingPlan plan_;
  MemoryOptions opt_;
  int dp_ = 1, expert_dp_ = 1;
  long long num_microbatches_ = 1;
  double tp_ = 1, seq_div_ = 1, tokens_ = 0;
  bool dropout_ = false, eager_ = false, lora_ = false, moe_model_ = false;
  double dense_shard_ = 1, expert_shard_ = 1, one_table_ = 0, embedding_ = 0, logit_bytes_ = 0;
  LayerKind kinds_[2];
  // Where each model chunk's layers begin (chunk_lo_[c] .. chunk_lo_[c + 1]), for pp * vp <= kMaxChunks.
  static constexpr int kMaxChunks = 256;
  std::uint16_t chunk_lo_[kMaxChunks + 1] = {};
  // Pipeline ranks (bit r: rank r, below 64) whose totals never exceed an earlier rank's (constructor).
  std::uint64_t dominated_ranks_ = 0;
};

// The data-parallel degree a plan implies on `num_gpus`: num_gpus / (tp * pp * cp).
int derived_dp(const TrainingPlan& plan, int num_gpus);

}  // namespace gpuplan
