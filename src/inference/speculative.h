#pragma once
// Multi-token prediction / speculative decoding: how many tokens one decode step yields.
// See docs/inference-model.md ("Speculative decoding (multi-token prediction)").

#include "model/model.h"

namespace gpuplan {

// Whether the published checkpoint carries its own MTP module (DeepSeek-V3/R1: num_nextn_predict_layers
// = 1 in config.json), so engines can draft without a separate draft model. Searches try MTP only on
// these; `infer --mtp` applies to any model (EAGLE-style heads cost the same one layer).
bool has_mtp_module(const ModelArch& m);

// Conditional acceptance of each draft token given the previous one was accepted, when neither the
// request (--mtp-accept) nor the engine states one: the `default` serving engine's `mtp_accept` in the
// built-in catalog (data/catalog/serving_engines.yaml, with its source and fit). DeepSeek-V3's technical
// report (arXiv:2412.19437, sec. 5.4.3) measures 85-90% acceptance of the first draft on natural text;
// later drafts chained on the module's own guesses, and InferenceX's random-token prompts, are accepted
// less (fitted on the InferenceX DeepSeek-R1 MTP points by calibrate_engines, src/validate/calibrate.h).
double mtp_accept_default();

// Draft tokens an engine proposes per step when MTP is on and the count is not stated: SGLang's
// and TensorRT-LLM's DeepSeek-R1 MTP recipes (speculative-num-steps 3 / num_nextn_predict_layers 3).
constexpr int kMtpDraftTokensDefault = 3;

// Host time an MTP decode step waits for beyond the GPU's work when the engine's speculative worker
// runs its host work in series with the GPU: `step_s` per step (the scheduler's batch preparation and
// result processing, the draft/verify metadata planning and the device-to-host syncs of accept/reject)
// plus `per_seq_s` for each of the `rank_sequences` sequences the rank's process steps through
// (per-request bookkeeping of the accepted tokens). SGLang's EAGLE worker on NVIDIA GPUs in the
// InferenceX runs (docs/inference-model.md, "SGLang's speculative step"); 0 for engines that overlap it.
double mtp_exposed_host_s(double step_s, double per_seq_s, double rank_sequences);

// Expected tokens per sequence per decode step with k drafts each accepted with probability a
// given the previous was: 1 + a + a^2 + ... + a^k (the verify pass always yields one token).
double mtp_accepted_length(int draft_tokens, double accept);

}  // namespace gpuplan
