#pragma once
// How a training job is parallelised and configured: the "mapping" of the model onto GPUs.
#include <array>
#include <cstdint>
#include <string>

#include "core/precision.h"
#include "plan/finetune.h"

namespace gpuplan {

// selective: the attention core (Korthikanti et al. 2022). modules: Megatron's module-level selective
// recompute of the cheap modules (--recompute-modules layernorm moe_act mla_up_proj): norm outputs,
// the routed experts' activation-function outputs and MLA's up-projected Q/K/V are recomputed in the
// backward instead of kept. full: whole layers (recompute_layers of each chunk).
enum class Recompute { none, selective, full, modules };

// How context parallelism moves attention's operands (training/context_parallel.h): ring passes K/V
// chunks around the CP group behind the attention kernel (Megatron --cp-comm-type p2p); a2a scatters
// the heads with all-to-alls (Ulysses, --cp-comm-type a2a).
enum class CpKind : std::uint8_t { ring, a2a };
std::string_view to_string(CpKind k);

// How the MoE layer's token dispatcher reorders the routed tokens around the expert all-to-all
// (Megatron-Core megatron/core/transformer/moe/token_dispatcher.py). flex (DeepEP or HybridEP behind
// Megatron's flex dispatcher): one permutation into expert order after the dispatch and its inverse
// before the combine. alltoall (MoEAlltoAllTokenDispatcher): a permutation by destination rank before
// the all-to-all and, with more than one local expert, a second one that sorts the received chunks by
// local expert (sort_chunks_by_idxs), both undone around the combine.
enum class MoeDispatcher : std::uint8_t { flex, alltoall };
std::string_view to_string(MoeDispatcher d);

// The parallel dimensions in rank order, innermost first (adjacent ranks differ in the first one).
enum class Dim : std::uint8_t { tp, cp, ep, dp, pp };
using RankOrder = std::array<Dim, 5>;
inline constexpr RankOrder kDefaultRankOrder = {Dim::tp, Dim::cp, Dim::ep, Dim::dp, Dim::pp};
std::string to_string(const RankOrder& o);  // "tp-cp-ep-dp-pp"
std::string_view to_string(Recompute r);

struct TrainingPlan {
  int tp = 1;    // tensor parallel
  int pp = 1;    // pipeline parallel stages
  int vp = 1;    // virtual stages per pipeline rank (interleaved 1F1B); 1 = plain 1F1B
  int cp = 1;    // context parallel
  CpKind cp_kind = CpKind::ring;
  int ep = 1;    // expert parallel (folds inside DP, as in Megatron)
  int etp = 1;   // tensor parallel inside experts (Megatron's expert-tensor-parallel)
  MoeDispatcher dispatcher = MoeDispatcher::flex;  // MoE token dispatcher (its permutation passes)
  int dp = 1;    // data parallel; derived as gpus / (tp*pp*cp) when 0 is given
  int mbs = 1;   // micro-batch size, sequences
  Recompute recompute = Recompute::none;
  int recompute_layers = 0;      // full recompute: layers of each model chunk recomputed (0 = all)
  // Activation offload (Megatron/Transformer Engine cpu_offloading_num_layers): the saved activations
  // of the first offload_layers layers of each model chunk go to host memory in the forward pass and
  // come back for the backward, over the GPU's host link. 0 = none.
  int offload_layers = 0;
  int zero = 1;                  // 0: none, 1: optimizer state, 2: + gradients, 3: + weights (FSDP)
  bool sequence_parallel = true; // Megatron SP with TP > 1
  bool tp_comm_overlap = true;   // TP collectives overlapped with GEMMs (userbuffers)
  bool dp_overlap = true;        // gradient reduce-scatter / param all-gather overlapped
  bool ep_overlap = false;       // MoE dispatch/combine overlapped with compute
  bool distributed_optimizer = true;  // ZeRO-1 style sharding of optimizer state over DP
  // Adam's first and second moments in BF16 instead of FP32 (DeepSeek-V3 report, sec. 3.3.3: "BF16
  // ... to track the first and second moments in the AdamW optimizer"; master weights and gradients
  // stay FP32): 8 bytes of optimizer state per parameter instead of 12.
  bool bf16_moments = false;
  // MoE activation memory as DeepSeek-V3's framework keeps it (report sec. 3.3.3): the routed experts'
  // SwiGLU inputs cached in FP8 (moe_act_fp8); and the combine keeping no expert outputs
  // (combine_from_act: the routing weights' gradient from the down-projection's input gradient and the
  // recomputed activation, which module recompute recomputes anyway). Megatron keeps both in BF16.
  bool moe_act_fp8 = false;
  bool combine_from_act = false;
  // Rank order, innermost first (Megatron's default: TP, then CP, EP, DP, PP). EP folds inside DP:
  // dense weights see the grid tp x cp x dp x pp, experts the grid etp x ep x edp x pp in this order.
  RankOrder order = kDefaultRankOrder;
};

// Distance between consecutive ranks of each group under the plan's rank order: the product of the
// sizes of the dimensions inside it. Dense grid tp x cp x dp x pp; expert grid etp x ep x edp x pp.
struct GroupStrides {
  int tp = 1, cp = 1, dp = 1, pp = 1;  // dense grid
  int ep = 1, edp = 1;                 // expert grid
};
GroupStrides group_strides(const TrainingPlan& p, int num_gpus);

// Parses "tp=8,pp=4,vp=2,cp=1,ep=1,mbs=1,recompute=selective,zero=1,sp=1,order=tp-cp-ep-dp-pp". Every key is checked;
// an unknown key or bad value -> InputError naming "--plan.KEY" and the allowed values.
TrainingPlan parse_training_plan(const std::string& text, TrainingPlan base = {});
std::string to_string(const TrainingPlan& p);

// What the job trains on.
struct TrainingWorkload {
  int num_gpus = 8;
  long long global_batch = 1024;  // sequences per optimizer step
  int seq_len = 4096;
  Precision precision = Precision::bf16;
  FinetuneSpec finetune;  // full (default): every weight trained; lora / qlora: adapters only
};

}  // namespace gpuplan
