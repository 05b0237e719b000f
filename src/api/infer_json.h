#pragma once
// The pieces of `gpuplan infer`'s documents and text shared by its modes (point, chosen, sweep,
// disaggregated): a result, a step and a parallel plan as JSON, and their text forms.
#include <nlohmann/json.hpp>

#include <string>

#include "api/fabric_options.h"
#include "inference/inference.h"

namespace gpuplan::api {

nlohmann::json infer_step_json(const StepTime& s);
nlohmann::json infer_parallel_json(const InferenceParallel& p);
nlohmann::json infer_result_json(const InferenceResult& r);

// Where one decode step's time goes (the text form of infer_step_json).
std::string decode_step_text(const char* label, const StepTime& d);
// "tp=8 ep=1 pp=1 attention-dp tbo".
std::string infer_plan_text(const InferenceParallel& p);

// One pool's worker from its options: `ep` wider than `tp` makes the worker ep GPUs wide with
// attention data-parallel over them (SGLang --tp N --dp N --enable-dp-attention --ep N, TensorRT-LLM
// enable_attention_dp with moe_ep N).
InferenceParallel pool_parallel(const ModelArch& m, int tp, int ep, bool attention_dp, bool tbo, const char* side);

// True when apply_fabric_options() would change the hardware (not the default 1:1 rail-optimized
// fabric); bad options: its InputErrors.
bool reshapes_fabric(const FabricOptions& opts);

}  // namespace gpuplan::api
