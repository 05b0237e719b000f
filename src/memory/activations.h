#pragma once
// Activation memory one transformer layer keeps for the backward pass, per micro-batch, per GPU.
// Follows Korthikanti et al. 2022, "Reducing Activation Recomputation in Large Transformer Models"
// (arXiv:2205.05198) §4, derived per stored tensor so GQA, MLA, gated MLPs and MoE change the terms.
#include "model/model.h"
#include "plan/plan.h"

namespace gpuplan {

struct ActivationContext {
  int seq_local = 4096;     // tokens of one sequence on this GPU: seq_len / cp
  int micro_batch = 1;      // sequences per micro-batch
  int tp = 1;               // tensor parallel degree
  bool sequence_parallel = true;  // Megatron SP: norm/dropout regions and GEMM inputs sharded by tp
  int etp = 1;              // tensor parallel inside routed experts
  bool dropout = false;     // dropout masks stored (1 byte per element), as GPT-3 recipes; Llama uses none
  bool flash_attention = true;  // score matrix never stored; only fp32 softmax statistics per head
  // Bytes per element of a saved GEMM input. Transformer Engine keeps the input of each linear layer
  // in the GEMM's format for the weight-gradient GEMM: 2 in BF16, 1 in FP8 (+ scales in MXFP8/NVFP4:
  // weight_bytes of the recipe). Norm inputs, Q/K/V (flash attention runs in BF16), the pre-activation
  // MLP outputs, router inputs and expert outputs stay BF16.
  double gemm_input_bytes = 2.0;
  // Routed experts (TrainingPlan::moe_act_fp8, combine_from_act): their activation function's input
  // (the up-projection output) cached in FP8 instead of BF16; and the combine keeping no expert outputs
  // (the routing weights' gradient taken from the down-projection's input gradient and the recomputed
  // activation instead of from saved expert outputs).
  bool moe_act_input_fp8 = false;
  bool keep_expert_outputs = true;
  // Eager PyTorch under autocast with fp32 parameters (LoopKernels::eager): the residual stream is fp32, so
  // each norm keeps a 4-byte input; SiLU keeps its output beside the gate and up projections it multiplies;
  // the attention output is kept twice (the fused kernel's output and the contiguous copy the output
  // projection saves).
  bool eager = false;
};

// Bytes of activations one layer stores per micro-batch under `mode`. Recompute::full returns what a
// fully recomputed layer keeps: its input (2 bytes per element of s*b*h, divided by tp with SP).
double layer_activation_bytes(const ModelArch& m, bool moe_layer, const ActivationContext& c,
                              Recompute mode);

// Whether layer `index` (0-based) has routed experts: every layer_freq-th layer after the leading dense
// ones (the same rule ModelArch::moe_layers counts).
bool is_moe_layer(const ModelArch& m, int index);

// How many of layers 0 .. index-1 have routed experts (is_moe_layer), in O(1).
long long moe_layers_before(const ModelArch& m, int index);

}  // namespace gpuplan
