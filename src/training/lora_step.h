#pragma once
// The step time of LoRA / QLoRA fine-tuning, beside the full-training evaluator (training_step.cc):
// the frozen base runs its forward and, for the activations' gradients, the data-gradient GEMMs of its
// backward, but no weight-gradient GEMMs (4N instead of 6N FLOPs per token); the adapters run their
// own small GEMMs forward and backward (dgrad and wgrad); QLoRA dequantizes every 4-bit weight before
// the GEMMs that read it (qlora_dequantize below); the data-parallel all-reduce and the optimizer touch
// the adapters only.
#include "physics/hardware.h"
#include "plan/plan.h"
#include "model/model.h"

namespace gpuplan {

// QLoRA's dequantize of the frozen 4-bit weights, by kernel family, per parameter and pass: the HBM
// bytes a pass moves beyond what the bf16 GEMM that follows reads anyway, and whether the backward
// (the input gradient) dequantizes again or reuses the weight its forward kept.
//  - nf4-bnb: bitsandbytes MatMul4Bit runs one fused CUDA kernel, dequantize_4bit (read the 4-bit
//    weight and its constants, write bf16), before the forward GEMM, and again in its backward (it
//    saves the quantized weight, not the bf16 copy): 0.516 + 2 B a pass, in every forward (recomputed
//    forwards included) and every backward.
//  - gptq: AutoGPTQ's QuantLinear (qlinear_cuda_old, the path transformers' GPTQ integration takes
//    with exllama disabled, as Qwen's finetune.py loads it) runs its fused CUDA matvec only below
//    kernel_switch_threshold = 128 rows; at training's thousands of tokens a micro-batch it unpacks
//    in PyTorch ops, each a full-size tensor through HBM: bitwise_right_shift of the broadcast packed
//    int32 (read 0.5 B, write int32 4 B), .to(int8) (read 4, write 1), bitwise_and in place (1 + 1),
//    minus the broadcast zero points (1 + 1), times the fp16 scales (read 1, write 2): 16.5 B. The
//    fp16 weight is an ordinary tensor under autograd, kept by the matmul for the input gradient, so
//    the backward does not dequantize again (recomputed forwards do).
struct DequantizeCost {
  double bytes_per_param = 0;     // HBM bytes one pass moves per frozen layer parameter
  bool backward_repeats = false;  // the input-gradient GEMM dequantizes again
};
DequantizeCost qlora_dequantize(const FinetuneSpec& f);  // zero bytes for LoRA and full

// Per micro-batch on one GPU of a stage of `layers_per_stage` layers.
struct LoraStepCost {
  double adapter_forward_s = 0;       // X*A and (XA)*B of every adapter
  double adapter_backward_s = 0;      // their input and weight gradients: twice the forward
  double dequantize_pass_s = 0;       // QLoRA: one dequantize pass over the stage's 4-bit weights
  double backward_dequantize_s = 0;   // the backward's: dequantize_pass_s (nf4-bnb) or 0 (gptq)
  double adapter_params = 0;          // this GPU's adapters (for DP traffic and the optimizer)
};
LoraStepCost lora_step_cost(const ModelArch& m, const Hardware& hw, const TrainingPlan& p, const TrainingWorkload& w,
                            double tokens_per_microbatch, double layers_per_stage);

}  // namespace gpuplan
