#pragma once
// The step time of LoRA / QLoRA fine-tuning, beside the full-training evaluator (training_step.cc):
// the frozen base runs its forward and, for the activations' gradients, the data-gradient GEMMs of its
// backward, but no weight-gradient GEMMs (4N instead of 6N FLOPs per token); the adapters run their
// own small GEMMs forward and backward (dgrad and wgrad); QLoRA dequantizes every NF4 weight to bf16
// before each GEMM that reads it (bitsandbytes MatMul4Bit: forward, recomputed forward, backward); the
// data-parallel all-reduce and the optimizer touch the adapters only.
#include "physics/hardware.h"
#include "plan/plan.h"
#include "model/model.h"

namespace gpuplan {

// Per micro-batch on one GPU of a stage of `layers_per_stage` layers.
struct LoraStepCost {
  double adapter_forward_s = 0;   // X*A and (XA)*B of every adapter
  double adapter_backward_s = 0;  // their input and weight gradients: twice the forward
  double dequantize_pass_s = 0;   // QLoRA: one pass over the stage's NF4 weights (read 4-bit, write bf16)
  double adapter_params = 0;      // this GPU's adapters (for DP traffic and the optimizer)
};
LoraStepCost lora_step_cost(const ModelArch& m, const Hardware& hw, const TrainingPlan& p, const TrainingWorkload& w,
                            double tokens_per_microbatch, double layers_per_stage);

}  // namespace gpuplan
