#pragma once
// How a source counts the FLOPs behind a TFLOP/s figure. `model`: gpuplan's model FLOPs (6N-style with
// attention, recompute not counted). `narayanan-2021`: Narayanan et al. 2021 ("Efficient Large-Scale
// Language Model Training on GPU Clusters Using Megatron-LM"), Eq. 3: F = 96 B s l h^2 (1 + s/(6h) +
// V/(16 l h)) per iteration, which counts the recomputed forward pass and the logits (hardware FLOPs).
#include <optional>
#include <string>
#include <string_view>

#include "model/model.h"
#include "plan/plan.h"
#include "training/training_step.h"

namespace gpuplan {

// `noncausal-attention`: 6N-style matmuls with attention counted as if unmasked, every query against the
// whole sequence (PaLM's 6N + 12 L H Q T; MosaicML's MPT flops_per_batch; torchtitan's num_flop_per_token).
enum class FlopConvention { model, narayanan_2021, noncausal_attention };

std::string_view to_string(FlopConvention c);
// "model", "narayanan-2021" or "noncausal-attention"; nullopt otherwise.
std::optional<FlopConvention> parse_flop_convention(const std::string& text);

// TFLOP/s per GPU of the evaluated step `r` as the convention counts it.
double tflops_per_gpu(FlopConvention c, const ModelArch& model, const TrainingWorkload& w, const TrainingResult& r);

}  // namespace gpuplan
