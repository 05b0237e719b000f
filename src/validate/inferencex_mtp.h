#pragma once
// How InferenceX's scripts and recipes run multi-token prediction, by engine: the draft tokens a step
// and, for SGLang on NVIDIA GPUs, the speculative worker's host work in series with the GPU
// (docs/inference-model.md, "Speculative decoding" and "SGLang's speculative step"). One rule for
// InferenceX's own rows and for other dumps of InferenceX's runs (AIConfigurator's exports) whose MTP the
// sweep config of the run's date pins (validate/inferencex_sweep.h).
#include <string>

#include "catalog/catalog.h"
#include "core/precision.h"
#include "inference/inference.h"

namespace gpuplan {

struct InferenceXMtpRun {
  std::string framework;   // the engine as the row names it, lower case: "sglang", "dynamo + sglang",
                           // "tensorrt-llm", "dynamo + tensorrt-llm", "atom", "sglang + mori (disaggregated)"
  std::string generation;  // the accelerator's
  std::string model;       // catalog name
  Precision weights = Precision::fp8;
  std::string date;        // the run's, YYYY-MM-DD (empty: unknown)
  bool disaggregated = false;
  bool attention_dp = false;  // the aggregated worker's
};

// The draft tokens the run's script or recipe sets and where that comes from, in words:
// SGLang on NVIDIA GPUs 2 (EAGLE --speculative-num-steps 2); TensorRT-LLM's aggregated attention-DP
// scripts 1; ATOM its script's count, else its default 1; otherwise 3 (kMtpDraftTokensDefault).
struct InferenceXMtpDrafts {
  int drafts = 0;
  std::string from;
};
InferenceXMtpDrafts inferencex_mtp_drafts(const InferenceXMtpRun& run);

// SGLang's speculative worker in series with the GPU where the run's script or recipe leaves it so
// (spec v1 on the aggregated Blackwell FP8 scripts; FlashInfer's eager draft extend on Hopper): sets
// it on `w` and returns the assumption to record, or empty.
std::string apply_inferencex_sglang_mtp_host(const Catalog& catalog, const InferenceXMtpRun& run, InferenceWorkload& w);

}  // namespace gpuplan
