#pragma once
// A ranked answer for one workload across the catalog: for each system (and each accelerator no
// system carries, as a bare 8-card server), does the model fit, how many GPUs and whole units it
// takes, time to result, cost and energy, and the reasons in words, all read off the training,
// inference and cost models (no table of rules).
#include <functional>
#include <map>
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
  std::string global_batch_basis;  // filled in: where the batch comes from (stated, or which default and why)
  Precision train_precision = Precision::bf16;
  double deadline_days = 0;      // 0: train 90, finetune 2
  FinetuneSpec finetune;         // finetune: full (default), lora or qlora
  int max_gpus = 16384;          // largest job tried
  // A train or fine-tune run is a one-off job of `tokens` by a deadline: ranked by what the job costs,
  // owned (the run's share of owning the whole units bought: their TCO per hour, capital recovery, power,
  // colocation, for its wall time) or, with rank_by_rent, rented (the GPUs it uses for its wall time at the
  // system's rental price, rent_usd_per_gpu_hour by system name; a system without one is unpriced).
  bool rank_by_rent = false;
  std::map<std::string, double> rent_usd_per_gpu_hour;
  // infer
  long long isl = 1024, osl = 1024;
  // Long prompts, as infer reads them (docs/long-context.md): the share of each prompt found in the prefix
  // cache, and the cached prefixes held in host memory (a system without a host link cannot).
  double prefix_hit = 0;
  bool kv_offload_host = false;
  bool fp8_context_attention = false;  // the prompts' attention in FP8 (InferenceWorkload::fp8_context_attention)
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
  double usd = 0;                // train: the run owned (its share of the units' TCO); infer: per hour
  double rent_usd = 0;           // train: the run rented (GPUs used x wall time x rental price); 0: no price
  double rent_usd_per_gpu_hour = 0;
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

// What the ranking compares: "job_usd_owned" or "job_usd_rented" (train, finetune: the one-off job's
// cost), "usd_per_hour" (infer: the cost per hour of meeting the users); and the words for it.
std::string rank_basis(const RecommendSpec& spec);
std::string rank_basis_text(const RecommendSpec& spec);
// The figure a recommendation is ranked by (its rank_basis); 0 when it has none (unpriced).
double rank_figure(const RecommendSpec& spec, const Recommendation& r);

struct RecommendResult {
  RecommendSpec spec;            // with defaults filled in
  std::vector<Recommendation> ranked;  // feasible priced by cost, then feasible unpriced by time, then the rest
};

// progress(i, n) is called after each candidate (may be empty).
RecommendResult recommend(const Catalog& catalog, const ModelArch& model, RecommendSpec spec,
                          const cost::CostProfile& profile,
                          const std::function<void(std::size_t, std::size_t)>& progress = {});

}  // namespace gpuplan::compare
