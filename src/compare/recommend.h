#pragma once
// A ranked answer for one workload across the catalog: for each system (and each accelerator no
// system carries, as a bare 8-card server), does the model fit, how many GPUs and whole units it
// takes, time to result, cost and energy, and the reasons in words, all read off the training,
// inference and cost models (no table of rules).
#include <functional>
#include <string>
#include <vector>

#include "compare/compare.h"
#include "plan/finetune.h"

namespace gpuplan::compare {

enum class Task { train, finetune, infer };
const char* to_string(Task t);

struct RecommendSpec {
  Task task = Task::infer;
  // train / finetune
  double tokens = 0;             // 0: train 20 x parameters (Chinchilla), finetune 1e9
  int seq_len = 0;               // 0: train 8192, finetune 4096
  double tokens_per_step = 0;    // set from global_batch x seq_len
  // Sequences per optimizer step, the same at every GPU count tried; 0: train, the model's default
  // (training/default_batch.h); finetune, 1M tokens as a power-of-two sequence count.
  long long global_batch = 0;
  Precision train_precision = Precision::bf16;
  double deadline_days = 0;      // 0: train 90, finetune 2
  FinetuneSpec finetune;         // finetune: full (default), lora or qlora
  int max_gpus = 16384;          // largest job tried
  // infer
  long long isl = 1024, osl = 1024;
  double mtp_accept = 0;         // MTP acceptance per draft (0: mtp_accept_default()); the API gives its catalog's
  long long users = 64;          // concurrent users to serve
  double tpot_s = 0.02;          // per-token latency each user must get (0: none): 50 tokens/s per user
  double ttft_s = -1;            // mean first-token limit (negative: the default by ISL, default_ttft_limit_s; 0: none)
  Precision infer_precision = Precision::fp8;  // where an accelerator lacks it: its best format below
  // constraints
  double budget_usd = 0;         // 0: none (train: the run; infer: one year of TCO)
  int gpus_available = 0;        // 0: none
  std::vector<std::string> systems;  // empty: every system and bare accelerator in the catalog
  // The scale-out fabric (gpuplan fabric): leaf oversubscription r:1 and rail-only; 1 and false change nothing.
  double fabric_oversubscription = 1;
  bool fabric_rail_only = false;
  // Systems whose generation's efficiencies were never fitted on measurements rank after the fitted
  // ones (always marked); false ranks them together.
  bool unfitted_last = true;
};

struct Recommendation {
  std::string name, display_name, accelerator;
  bool is_system = true;         // false: a bare accelerator (no price or host power in the catalog)
  bool feasible = false;         // fits, meets the deadline / latency, within budget and GPUs available
  std::string why_not;
  int gpus = 0, units = 0, gpus_per_unit = 0;
  std::string plan;
  bool disaggregated = false;    // serving: the plan is a disaggregated deployment (its error band's kind)
  // training
  double wall_s = 0, tokens_per_s_per_gpu = 0, mfu = 0;
  // serving
  double tokens_per_s_per_user = 0, ttft_s = 0, tokens_per_s = 0;
  // cost
  bool priced = false;
  std::string price_basis;
  double usd = 0;                // train: the run; infer: per hour
  double usd_per_million_tokens = 0;
  double joules_per_token = 0;
  double energy_j = 0;           // train: the run
  // The purchase: the whole units bought (units x gpus_per_unit GPUs), their capital cost (the TCO's
  // capex: price, network and storage share, installation, liquid-cooling facility; 0 unpriced) and
  // the IT power provisioned for them (full load). Training buys the fewest whole units that meet the deadline.
  double capex_usd = 0;
  double it_kw = 0;
  bool calibrated = true;        // its generation's efficiencies were fitted on measurements
  std::vector<std::string> reasons;
};

struct RecommendResult {
  RecommendSpec spec;            // with defaults filled in
  std::vector<Recommendation> ranked;  // feasible priced by cost, then feasible unpriced by time, then the rest
};

// progress(i, n) is called after each candidate (may be empty).
RecommendResult recommend(const Catalog& catalog, const ModelArch& model, RecommendSpec spec,
                          const cost::CostProfile& profile,
                          const std::function<void(std::size_t, std::size_t)>& progress = {});

}  // namespace gpuplan::compare
