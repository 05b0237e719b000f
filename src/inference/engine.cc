#include "inference/engine.h"

#include <algorithm>
#include <cctype>

namespace gpuplan {

EngineParams engine_params(const std::string& framework) {
  std::string f = framework;
  std::transform(f.begin(), f.end(), f.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  auto has = [&](const char* s) { return f.find(s) != std::string::npos; };
  // request_overhead_s: the median of (measured - predicted) TTFT over the InferenceX DeepSeek-R1
  // points at concurrency <= 8 of each engine (where neither queueing nor waves contribute), with the
  // model's prefill and transfer physics in place (docs/inference-model.md, "Engine parameters").
  // Fitted on 131 of the file's 427 points; the higher-concurrency points are the check.
  if (has("dynamo") && has("tensorrt")) return {"dynamo+tensorrt-llm", 0.38};
  if (has("dynamo") && has("sglang")) return {"dynamo+sglang", 0.14};
  if (has("mori")) return {"sglang+mori", 0.17};
  if (has("atom")) return {"atom", 0.05};
  if (has("sglang")) return {"sglang", 0.10};
  if (has("tensorrt") || has("trtllm") || has("trt-llm")) return {"tensorrt-llm", 0.09};
  return {"", 0.0};
}

}  // namespace gpuplan
