#pragma once
// One serving question as a value: a model on a system at a weights format, the engine and its
// settings, the deployment's pools, the traffic (ISL/OSL, the tokens/s each user must get, the TTFT
// limit) and where the question came from. Every command that answers a serving question (infer,
// compare, cost, recommend, site, and the faces over them) builds one and evaluates it through
// evaluate_scenario(); the operating-point chooser (inference/chooser.h) picks the deployment and the
// load when the scenario leaves them open. See docs/inference-model.md ("The operating-point chooser").
#include <string>

#include "inference/disaggregated.h"
#include "inference/inference.h"

namespace gpuplan {

// What every user of the deployment must get.
struct ServingTraffic {
  long long isl = 1024, osl = 1024;  // input and output tokens per request
  double tokens_per_s_per_user = 0;  // the least output tokens/s each user gets (0: none)
  double tpot_limit_s = 0;           // or a limit on the mean TPOT (0: none); the stricter applies
  double ttft_limit_s = 0;           // limit on the mean TTFT (0: none); default_ttft_limit_s(isl) by default
  std::string ttft_basis;            // why that limit: "stated", or default_ttft_basis(isl)
  // The per-user speed the target asks for: the larger of tokens_per_s_per_user and 1 / tpot_limit_s
  // (0 when neither is set).
  double min_tokens_per_s_per_user() const;
};

// The mean-TTFT limit a serving question gets when it states none: MLPerf Inference's Server-scenario
// TTFT limits, by the length of the prompts they apply to (mlcommons/inference loadgen/mlperf.conf;
// /work data: models/mlperf-datasets.md): 2 s for prompts of up to about 2K tokens (Llama2-70B,
// Llama3.1-8B, DeepSeek-R1: 1,024 to 3,136 tokens at most) and 6 s for Llama3.1-405B's long-context
// prompts of up to 20,000 tokens; in between and beyond, linear in the prompt length through those
// two points (2 s + 0.223 ms per token above 2,048; 3.4 s at 8K, 30 s at 128K). MLPerf states them at
// the 99th percentile; here they bound the modelled mean, so they are the lenient reading.
double default_ttft_limit_s(long long isl);
// The basis of default_ttft_limit_s in words, for the outputs ("MLPerf Server TTFT limits by prompt
// length: 3.4 s at 8192 input tokens").
std::string default_ttft_basis(long long isl);

// A TTFT limit as a request states it, resolved: negative (not stated) gives default_ttft_limit_s(isl),
// 0 none (stated as no limit), a positive value itself.
double resolve_ttft_limit_s(double stated_s, long long isl);
// Its basis in words: "stated", "none (stated)" or default_ttft_basis(isl).
std::string ttft_limit_basis(double stated_s, long long isl);

// One deployment of the model: an aggregated engine (instances side by side over `gpus`) or a
// disaggregated one (a prefill pool and a decode pool), with its MTP draft count.
struct ServingDeployment {
  bool disaggregated = false;
  InferenceParallel parallel;      // aggregated: the engine's; disaggregated: the decode worker's
  DisaggregatedDeployment disagg;  // disaggregated: the pools
  int gpus = 0;                    // all GPUs of the deployment
  int mtp_draft_tokens = 0;
  // "aggregated" / "disaggregated", with " + MTP" when drafting.
  std::string kind() const;
  // The plan in words: "tp=8 ep=8 pp=1 attention-dp" or "prefill 2x(tp=8 ...) + decode 1x(...)".
  std::string plan() const;
};

struct ServingScenario {
  ModelArch model;
  Hardware hw;                 // as the catalog (and fabric options) resolve the system
  std::string system;          // the catalog name asked for
  int unit_gpus = 8;           // GPUs of one unit bought whole (an HGX node, an NVL72 rack; 1: a bare card)
  InferenceWorkload workload;  // format, KV bytes, engine settings; isl/osl/concurrency/num_gpus/MTP are set per
                               // evaluation from the traffic and the deployment
  std::string engine;          // the serving engine (catalog name or framework string); empty: the default
  ServingTraffic traffic;
  std::string provenance;      // where the question came from: the command, a recipe, a validation row
};

// The scenario's workload for one deployment at `concurrency` clients (0: as many as fit).
InferenceWorkload scenario_workload(const ServingScenario& s, const ServingDeployment& d, long long concurrency);

// Evaluates the deployment at `concurrency` clients (0: as many as fit): evaluate_inference or
// evaluate_disaggregated on the scenario's workload. InputError for a deployment the model's shapes do
// not allow.
InferenceResult evaluate_scenario(const ServingScenario& s, const ServingDeployment& d, long long concurrency);

// Whether a result meets the traffic's targets: valid (fits), at least the per-user speed and within
// the TTFT limit.
bool meets_traffic(const ServingTraffic& t, const InferenceResult& r);

}  // namespace gpuplan
