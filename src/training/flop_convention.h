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

enum class FlopConvention { model, narayanan_2021 };

std::string_view to_string(FlopConvention c);
// "model" or "narayanan-2021"; nullopt otherwise.
std::optional<FlopConvention> parse_flop_convention(const std::string& text);

// TFLOP/s per GPU of the evaluated step `r` as the convention counts it.
double tflops_per_gpu(FlopConvention c, const ModelArch& model, const TrainingWorkload& w, const TrainingResult& r);

}  // namespace gpuplan
