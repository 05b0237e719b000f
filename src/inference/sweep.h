#pragma once
// Sweeps the serving plan space (TP, EP, attention-DP, PP and concurrency) of one deployment and keeps
// the Pareto frontier of throughput per GPU against tokens/s per user: the curve vendors quote.
#include <string>
#include <vector>

#include "inference/disaggregated.h"
#include "inference/inference.h"
#include "inference/serving_scenario.h"

namespace gpuplan {

struct SweepOptions {
  double ttft_limit_s = 0;  // 0: no limit
  double tpot_limit_s = 0;  // 0: no limit
  int max_pp = 1;           // pipeline stages tried: 1, 2, 4 .. max_pp
  // Frontier MoE serving: also try MTP (w.mtp_draft_tokens, or the engines' default count, on and
  // off), disaggregated prefill/decode pools over the same GPUs, and EP/attention-DP workers wider
  // than one node up to the NVLink domain (MoE models).
  bool mtp = false;
  bool disaggregated = false;
};

struct SweepPoint {
  InferenceParallel parallel;  // aggregated: the engine's; disaggregated: the decode worker's
  long long concurrency = 0;
  InferenceResult result;
  bool disaggregated = false;
  DisaggregatedDeployment disagg;  // when disaggregated
  int mtp_draft_tokens = 0;
  // "aggregated" / "disaggregated", with " + MTP" when drafting: which kind of deployment this is.
  std::string kind() const;
  // The plan in words: "tp=8 ep=8 pp=1 attention-dp" or "prefill 2x(tp=8 ...) + decode 1x(...)".
  std::string plan() const;
  // The deployment this point runs (its GPUs: the result's instances x GPUs per instance, or the pools).
  ServingDeployment deployment() const;
  // The point of deployment `d` at `concurrency` clients with result `r`.
  static SweepPoint of(const ServingDeployment& d, long long concurrency, InferenceResult r);
};

struct SweepResult {
  size_t evaluated = 0;               // operating points evaluated
  size_t feasible = 0;                // of those, fitting in memory and within the limits
  std::vector<SweepPoint> frontier;   // Pareto-optimal, by ascending tokens/s per user
};

// Enumerates plans for `w.num_gpus` GPUs: tp over the valid degrees dividing the GPUs, ep over the
// divisors of tp (MoE), attention-DP on and off (MoE), pp up to max_pp, and concurrency in powers of
// two (x1.5 steps) up to what the KV cache holds. `w.concurrency` is ignored. With opts.mtp /
// opts.disaggregated also MTP on/off (models with an MTP module) and disaggregated deployments:
// decode workers of 8 GPUs up to the NVLink domain or 64 (EP = attention-DP width, across nodes
// beyond the domain; or TP 8), prefill workers of 4 to 32 GPUs, and 1/8, 1/4, 3/8 or 1/2 of the
// GPUs prefilling, concurrency in x2 steps.
SweepResult sweep_inference(const ModelArch& m, const Hardware& hw, const InferenceWorkload& w,
                            const SweepOptions& opts = {});

// The deployments sweep_inference evaluates on `gpus` GPUs with `mtp_draft_tokens` drafts, in its
// order: with opts.disaggregated the disaggregated ones (MoE models, 8 GPUs or more), then the
// aggregated engines (tp x ep x attention-DP x pp). Shapes the model does not allow are included (the
// evaluators refuse them with InputError); `min_instance_gpus` drops aggregated engines whose
// instance spans fewer GPUs (the operating-point chooser has seen them on fewer GPUs already).
std::vector<ServingDeployment> serving_deployments(const ModelArch& m, const Hardware& hw, int gpus,
                                                   const SweepOptions& opts, int mtp_draft_tokens,
                                                   int min_instance_gpus = 0);

// The MTP draft counts a sweep tries: w.mtp_draft_tokens, and with opts.mtp also the engines' default
// count on a model with an MTP module (when none is stated) or none (when one is).
std::vector<int> sweep_mtp_drafts(const ModelArch& m, const InferenceWorkload& w, const SweepOptions& opts);

// Indices of the points not dominated in (tokens/s per GPU, tokens/s per user), both higher-better.
std::vector<size_t> pareto_front(const std::vector<std::pair<double, double>>& points);

}  // namespace gpuplan
