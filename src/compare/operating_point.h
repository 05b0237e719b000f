#pragma once
// The operating points compare and recommend put side by side: the best training plan of a system
// for a workload (plan search), and the serving curve of a system (the Pareto frontier of throughput
// per GPU against tokens/s per user) read at an interactivity. Thin wrappers over search/ and
// inference/ so every figure comes from the same evaluators as `gpuplan search` and `infer --sweep`.
#include <optional>
#include <string>
#include <vector>

#include "inference/chooser.h"
#include "inference/sweep.h"
#include "search/search.h"

namespace gpuplan::compare {

struct TrainingPick {
  bool found = false;
  std::string why_not;          // when !found: "no plan fits in memory (closest needs 95 GB of 80 GB)"
  TrainingWorkload workload;
  TrainingPlan plan;
  TrainingResult result;
  std::size_t evaluated = 0;
  // least_tokens_per_s was asked and no plan reaching it was found: whether any plan fits at all is not
  // known (why_not says so).
  bool short_of_least = false;
};
// The fastest plan of `workload` on `hw` (pruned search). With least_tokens_per_s > 0 only a plan that
// reaches it is wanted: the pick is the same when the fastest plan reaches it, and short_of_least is
// set otherwise.
// `layer_costs` (optional): shared by the searches of one model, hardware, sequence and precision at
// several GPU counts (SearchOptions::layer_costs).
TrainingPick best_training(const ModelArch& model, const Hardware& hw, const TrainingWorkload& workload,
                           double least_tokens_per_s = 0, LayerCostCache* layer_costs = nullptr);

struct ServingCurve {
  std::size_t evaluated = 0;
  std::size_t feasible = 0;          // of those, fitting in memory and within the limits
  std::vector<SweepPoint> frontier;  // ascending tokens/s per user
};
ServingCurve serving_curve(const ModelArch& model, const Hardware& hw, const InferenceWorkload& workload,
                           const SweepOptions& options = {});

// One serving-workload setup for compare, the claims replay, recommend and cost: the weights format
// sets the KV cache's (BF16 weights -> BF16 KV, FP8/FP4 -> FP8), ISL/OSL, GPUs, and the MTP acceptance
// per draft (the session catalog's, src/api/serving_engine.h; 0: the evaluator's built-in default).
InferenceWorkload serving_workload(Precision weights, long long isl, long long osl, int gpus, double mtp_accept = 0);
// The sweep those commands run: the latency limits, and for MoE models disaggregated pools, wide EP
// and MTP (models with an MTP module), which is how frontier MoE models are served.
SweepOptions serving_sweep(const ModelArch& model, double ttft_limit_s, double tpot_limit_s, int max_pp = 1);

// The serving scenario compare, cost, recommend and site ask of a system (inference/serving_scenario.h):
// serving_workload's format, KV cache and MTP acceptance, whole units of `unit_gpus`, the target speed
// per user (tokens_per_s_per_user, or 1 / tpot_limit_s; 0 both: the most throughput), and the TTFT limit
// as stated (negative: the default by ISL, default_ttft_limit_s; 0: none). Its answer is
// choose_serving(scenario) (inference/chooser.h), the chooser infer's point mode calls too.
ServingScenario serving_scenario(const ModelArch& model, const Hardware& hw, int unit_gpus, Precision weights,
                                 long long isl, long long osl, double tokens_per_s_per_user, double tpot_limit_s,
                                 double ttft_limit_s, double mtp_accept = 0);

// The serving curve (the sweep's frontier) on the smallest multiple of `unit_gpus` on which the model
// has one, or reaches `tokens_per_s_per_user` (0: any frontier): units from `first_units` up to
// `max_units` in x2 steps; options.max_pp on one unit, `max_pp_beyond_one` on more; `w.num_gpus` is set
// per multiple. A model whose weights do not fit one unit (DeepSeek-R1 FP8 on one 8 x 80 GB node) is
// swept on two. The curve compare and `infer --sweep` show; the figure at a target is the chooser's.
struct ScaledCurve {
  ServingCurve curve;
  const SweepPoint* point = nullptr;  // into curve; nullptr when no multiple reaches the target
  int gpus = 0;
  double fastest_tokens_per_s_per_user = 0;
};
ScaledCurve serving_curve_scaled(const ModelArch& model, const Hardware& hw, InferenceWorkload w, int unit_gpus,
                                 double tokens_per_s_per_user, SweepOptions options, int max_pp_beyond_one = 8,
                                 int first_units = 1, int max_units = 8);

// The frontier point with the most throughput per GPU among those at least `tokens_per_s_per_user`
// fast; nullptr when the curve never gets that fast.
const SweepPoint* at_interactivity(const ServingCurve& curve, double tokens_per_s_per_user);
// The point of highest throughput per GPU (offline / maximum throughput).
const SweepPoint* max_throughput(const ServingCurve& curve);
// The fastest point per user.
const SweepPoint* max_interactivity(const ServingCurve& curve);

}  // namespace gpuplan::compare
