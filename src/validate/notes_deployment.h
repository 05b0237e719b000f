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
#include "inference/inference.h"
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
  // Set by parse_notes_deployment when what it reports blank is only the worker counts and the decode
  // bs (the pools' shapes stated): a run whose deployment its source's sweep may state.
  bool only_counts_blank = false;
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

// What an aggregated row's notes state about its engine beyond the columns. The vocabulary
// (case-insensitive; docs/validation.md, "Notes a serving row may state"):
//   attention-DP on   "attention-DP", "attention DP", "attention_dp", "attention data-parallel" (or
//                     "data parallel"), "attn-DP", "attn DP", "ADP", "enable_attention_dp=true" (or
//                     ": true"), "DEP<n>" (attention-DP over n ranks with EP n: TensorRT-LLM's name)
//                     SGLang's "DP attention" ("--enable-dp-attention", "enable_dp_attention=true")
//   attention-DP off  any of those words after "no", "without", "w/o" or "non-", or followed by "off",
//                     "disabled", "=false", ": false"; "TEP<n>" (TP n with EP n, attention tensor-parallel)
//   MTP on            "MTP", "multi-token prediction" (or "multi token"), "nextn", "EAGLE" (DeepSeek's
//                     MTP head drafting as EAGLE), with a draft count when stated: "MTP=3", "MTP 3",
//                     "MTP3", "3 draft tokens", "draft_tokens=3", "num_nextn_predict_layers=3",
//                     "nextn=3", "speculative_num_steps=3", "num_speculative_tokens=3"
//   MTP off           "no MTP", "without MTP", "w/o MTP", "non-MTP", "MTP off", "MTP disabled", "MTP=0",
//                     "MTP not used", "MTP unused", "MTP: none", "MTP n/a" (and the same after attention-DP words)
//   MTP acceptance    with MTP on: "acceptance length 2.4" (mean/average/avg, "accept len", "accepted
//                     length"), "acceptance rate 0.7" or "70%" (accepted drafts over proposed); unnamed
//                     ("acceptance 0.7"), a fraction or percentage is a rate, more than one a length
//   two-batch overlap "two-batch overlap", "two batch overlap", "TBO" (off as attention-DP's words)
// Words followed by "not stated", "not given", "not known", "not reported", "not specified", "unknown"
// or "unstated" say nothing. AIConfigurator's "attn_dp=N" key is not part of it (read with its disaggregated or aggregated
// layout), nor a bare "enable_attention_dp" naming a recipe option without a value.
struct NotesServing {
  int attention_dp = -1;   // 1 stated on, 0 stated off, -1 not stated
  int attention_dp_ranks = 0;  // "DEP<n>": n (0: not stated)
  int tp_ep = 0;           // "TEP<n>": n (0: not stated)
  int mtp = -1;            // 1 stated on, 0 stated off, -1 not stated
  int mtp_draft_tokens = 0;  // the draft count stated (0: not stated: the engine's default)
  double mtp_accept_length = 0;  // "acceptance length 2.4": tokens a step yields per sequence (0: not stated)
  double mtp_accept_rate = 0;    // "acceptance rate 0.7" / "70%": accepted drafts over proposed (0: not stated)
  int two_batch_overlap = -1;    // 1 stated on, 0 stated off, -1 not stated
  std::vector<std::string> said;  // the words read, for the row's assumptions
};

// Reads `notes` in the vocabulary above. A draft count outside 1..16 or a DEP/TEP width outside
// 1..4096 is not read (the words still say on).
NotesServing read_notes_serving(const std::string& notes);

// MTP as `n` states it on model `m`: on a model with an MTP module, the stated draft count (the
// engines' default when none is stated) at acceptance `accept` into `w`; speculative decoding on a model
// without one is said in `assumptions`, not modelled. True when `w` now drafts.
bool notes_mtp(const NotesServing& n, const ModelArch& m, double accept, InferenceWorkload& w,
               std::vector<std::string>& assumptions);

// The per-draft acceptance (each draft accepted given the previous one was) at `draft_tokens` drafts that
// gives the acceptance the notes measured: a length L = 1 + a + ... + a^k, or a rate r = (a + ... + a^k) / k;
// 0 when none is stated or it is out of reach (L > k + 1).
double notes_mtp_accept(const NotesServing& n, int draft_tokens);

}  // namespace gpuplan
