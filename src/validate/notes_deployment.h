#pragma once
// The disaggregated deployment an AIConfigurator row states in its notes ("disagg: prefill: workers=1
// tp=1 pp=1 attn_dp=4 moe_tp=1 moe_ep=4 bs=1; decode: workers=2 tp=1 pp=1 attn_dp=8 moe_tp=1
// moe_ep=8 bs=137; ..."), in AIConfigurator's own terms (its `cli estimate` prefill_* / decode_*
// arguments, ai-dynamo/aiconfigurator src/aiconfigurator/cli/api.py), and the deployment gpuplan
// evaluates for it. See docs/inference-model.md ("Disaggregated rows of the inference schema").
#include <optional>
#include <string>
#include <vector>

#include "inference/disaggregated.h"
#include "model/model.h"

namespace gpuplan {

// One pool as the notes state it. AIConfigurator's worker spans tp x pp x attn_dp GPUs (the notes'
// "AIC formula workers*tp*pp*attn_dp"), its MoE layers split moe_tp x moe_ep = tp x attn_dp ways.
struct NotesPool {
  int workers = 0;
  int tp = 0, pp = 0, attn_dp = 0;
  int moe_tp = 0, moe_ep = 0;  // 0: not stated (dense models; some vLLM rows of MoE models)
  // Sequences per attention-DP rank: AIConfigurator's `bs` (a worker holds bs x attn_dp, its
  // `global_bs`; a disaggregated deployment's concurrency is decode workers x that). 0 = blank, which
  // only the prefill pool may leave (its batch is not an input of gpuplan's prefill pool).
  long long bs = 0;
  int gpus() const { return workers * tp * pp * attn_dp; }
};

struct NotesDeployment {
  NotesPool prefill, decode;
  int gpus() const { return prefill.gpus() + decode.gpus(); }
};

// True when the notes state a disaggregated deployment (a "disagg:" section).
bool has_notes_deployment(const std::string& notes);

// Reads the "disagg:" section into `out`. Returns what is missing or malformed (naming the pool and
// the keys, e.g. "the notes' disaggregated deployment leaves prefill workers, decode workers, decode
// bs blank"), or nullopt. Every key of both pools is required (prefill bs may be blank); values are
// whole numbers (workers, tp, pp, attn_dp >= 1; moe_tp, moe_ep >= 0; decode bs >= 1); an unknown key
// is an error, not ignored.
std::optional<std::string> parse_notes_deployment(const std::string& notes, NotesDeployment& out);

// The deployment gpuplan evaluates for `n` on model `m`: each pool `workers` workers of tp x attn_dp
// GPUs, attention data-parallel over them when attn_dp > 1 (MoE; a dense model's attn_dp ranks are
// workers of their own), EP = moe_ep (reduced to a divisor of the experts and the width, said in
// `assumptions`), and the decode pool's batch cap = its bs per attention rank. Returns the reason
// when the model cannot express it (pp > 1, an MoE without moe_tp/moe_ep, moe_tp x moe_ep not the
// worker's width), or nullopt.
std::optional<std::string> notes_disaggregated(const ModelArch& m, const NotesDeployment& n, DisaggregatedDeployment& d,
                                               std::vector<std::string>& assumptions);

}  // namespace gpuplan
