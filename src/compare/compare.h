#pragma once
// Two systems side by side under each yardstick a headline might use: peak rate per precision (and
// the mixed FP4-against-FP8 comparison), memory, scale-up and scale-out bandwidth, training throughput
// of the best plan on each, serving throughput at a stated interactivity and along the whole
// throughput/interactivity curve, cost and energy per token, and long context (serving with long prompts:
// KV per user, users held, TTFT, throughput; training at that sequence length); each per GPU, per system unit, per
// dollar (TCO per hour) and per watt. Pure function of the catalog entries, models and cost profile.
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "compare/operating_point.h"
#include "cost/tco.h"

namespace gpuplan::compare {

enum class Per { gpu, system, usd, watt };
const char* to_string(Per p);
const char* per_unit_suffix(Per p);  // "per GPU", "per system", "per $/h", "per kW"

struct SystemSide {
  std::string system, display_name, accelerator;
  int gpus_per_unit = 0;
  Hardware hw;
  cost::Tco tco;
};
SystemSide make_side(const Catalog& catalog, const std::string& system, const cost::CostProfile& profile);

// A quantity per GPU on each side; `scalable` ones (rates, capacities) are also shown per system unit,
// per $ of TCO per hour and per kW of full-load IT power.
struct Yardstick {
  std::string group;     // peak, memory, fabric, training, inference, cost
  std::string key;       // stable id: "peak_fp8", "train_tokens_per_s:llama3.1-70b", ...
  std::string name;      // "FP8 dense peak"
  std::string unit;      // unit per GPU: "TFLOP/s", "GB", "tokens/s"
  double a = 0, b = 0;   // per GPU; NaN when a side has no such figure
  bool scalable = true;
  bool higher_is_better = true;
  std::string headline;  // which vendor headline uses this yardstick ("" if none)
  std::string note;      // conditions: plan, precision, interactivity

  double value(Per per, const SystemSide& side, bool side_a) const;
  double ratio(Per per, const SystemSide& A, const SystemSide& B) const;  // a / b; NaN if undefined
};

struct CompareSpec {
  bool train = true, infer = true;
  // training: both systems run the same job on the same GPU count and global batch
  int train_gpus = 0;            // 0: the smallest multiple of both units' GPUs that is at least 512
  int seq_len = 8192;
  long long global_batch = 0;    // sequences; 0: the model's default (training/default_batch.h)
  Precision train_precision = Precision::bf16;  // as train, search, cost and recommend
  // serving: one system unit each
  long long isl = 1024, osl = 1024;  // the defaults of infer, cost and recommend too
  double tokens_per_s_per_user = 50;  // the stated interactivity
  // The mean-TTFT limit (negative: the default by ISL, default_ttft_limit_s; 0: none) and TPOT limit (0: none).
  double ttft_limit_s = -1, tpot_limit_s = 0;
  Precision infer_precision = Precision::fp8;  // the common format; each side's best is shown too
  double mtp_accept = 0;  // MTP acceptance per draft (0: mtp_accept_default()); the API gives its catalog's
  std::vector<double> curve_grid = {5, 10, 20, 30, 50, 75, 100, 150, 200, 300, 500};
  // Serving inputs of long prompts, as infer reads them (docs/long-context.md): the share of each prompt
  // found in the prefix cache, and the cached prefixes held in host memory. They apply to every serving
  // figure, the long-context yardstick's included.
  double prefix_hit = 0;
  bool kv_offload_host = false;
  bool fp8_context_attention = false;  // the prompts' attention in FP8 (InferenceWorkload::fp8_context_attention)
  // The long-context yardstick: serving with prompts of this many tokens (OSL, interactivity and TTFT
  // limit as above; the limit by default by this ISL) and training at this sequence length on the training
  // yardstick's GPUs, each side on its best plan (context parallelism where it needs it); 0: none.
  long long long_context_tokens = 0;
};

// One side's figures at long context: the chooser's serving answer and the best training plan.
struct LongContextSide {
  ServingChoice serving;
  TrainingPick training;
};

struct CurveRow {
  double tokens_per_s_per_user = 0;
  double a = NAN, b = NAN;  // tokens/s per GPU, NaN when that side never gets that fast
  double ttft_a = NAN, ttft_b = NAN;  // the points' mean TTFT, s
  std::string kind_a, kind_b;  // the deployment of each side's point (SweepPoint::kind()), empty with NaN
  int gpus_a = 0, gpus_b = 0;  // the GPUs of each side's chosen deployment (0 with NaN)
  double ratio() const { return a / b; }
};

struct ModelComparison {
  std::string model;
  // training
  TrainingPick train_a, train_b;
  cost::TokenCost train_cost_a, train_cost_b;
  // serving, the common format
  // Each side's curve is on the fewest of its units (1, 2, 4 or 8) that hold the model (DeepSeek-R1
  // FP8 on two 8 x 80 GB H100 nodes): gpus_a / gpus_b. The figures at the interactivity are the
  // operating-point chooser's (inference/chooser.h), as infer, cost, recommend and site give them, on
  // at_gpus_a / at_gpus_b GPUs (the units the best deployment needs); no point when none meets it
  // (choice_a / choice_b say why).
  Precision infer_precision_common = Precision::fp8;
  double ttft_limit_s = 0;  // the limit applied (the stated one, or the default by ISL; 0: none)
  ServingCurve curve_a, curve_b;
  int gpus_a = 0, gpus_b = 0;
  std::optional<SweepPoint> at_a, at_b;
  int at_gpus_a = 0, at_gpus_b = 0;
  ServingChoice choice_a, choice_b;
  std::vector<CurveRow> curve;  // along the grid: the operating-point chooser's answer at each interactivity
  // serving, each side's best format
  Precision best_precision_a = Precision::fp8, best_precision_b = Precision::fp8;
  ServingCurve best_curve_a, best_curve_b;
  int best_gpus_a = 0, best_gpus_b = 0;
  std::optional<SweepPoint> best_at_a, best_at_b;
  // long context (spec.long_context_tokens > 0): the serving TTFT limit applied and each side's figures
  double long_context_ttft_limit_s = 0;
  LongContextSide long_context_a, long_context_b;
};

struct Comparison {
  SystemSide a, b;
  CompareSpec spec;
  std::vector<Yardstick> yardsticks;
  std::vector<ModelComparison> models;
};

// The lowest-precision format each accelerator runs natively: fp4 where it has an FP4 path, else fp8
// where it has FP8, else bf16.
Precision best_inference_precision(const Accelerator& a);

Comparison compare_systems(const SystemSide& a, const SystemSide& b, const std::vector<ModelArch>& models,
                           const CompareSpec& spec);

}  // namespace gpuplan::compare
