#pragma once
// Per-engine serving parameters (the few the serving model keeps per framework rather than per
// accelerator generation). See docs/inference-model.md ("Engine parameters").
#include <string>

namespace gpuplan {

struct EngineParams {
  std::string name;                 // the engine family matched ("sglang", "tensorrt-llm", ...)
  double request_overhead_s = 0.0;  // front end per request before prefill (see InferenceWorkload)
};

// The parameters of the engine a framework string names ("SGLang", "Dynamo + TensorRT-LLM",
// "SGLang + MoRI (disaggregated)", "ATOM"; case-insensitive); an unknown engine gets zeros.
EngineParams engine_params(const std::string& framework);

}  // namespace gpuplan
