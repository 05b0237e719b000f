#pragma once
// Vendors' headline claims replayed under their stated conditions: the model's ratio next to the
// claimed one, and the same comparison under the other yardsticks (one common precision, per dollar,
// per watt). Built-in claims: data/compare/claims.yaml; users may give their own file, same schema.
#include <string>
#include <vector>

#include "compare/compare.h"

namespace gpuplan::compare {

enum class ClaimMetric { throughput_at_interactivity, max_throughput, factory_output, training_throughput };
const char* to_string(ClaimMetric m);

struct Claim {
  std::string id, system_a, system_b, statement, conditions, source, model;
  double claimed_ratio = 0;
  ClaimMetric metric = ClaimMetric::throughput_at_interactivity;
  long long isl = 1024, osl = 1024;
  double tokens_per_s_per_user = 0, tpot_s = 0, ttft_s = 0;
  Precision precision_a = Precision::fp8, precision_b = Precision::fp8;
  int gpus_a = 0, gpus_b = 0;  // 0: one system unit
  int seq_len = 4096;          // training
  // The vendor's own absolute figures per side where the claim states them (its metric's unit; 0 =
  // not stated): the replay prints them beside the model's and flags a side off by more than 2x.
  double stated_a = 0, stated_b = 0;
};

std::vector<Claim> parse_claims(const std::string& yaml_text, const std::string& origin);
const std::vector<Claim>& builtin_claims();

struct ClaimResult {
  Claim claim;
  bool evaluated = false;
  std::string why_not;       // when a side cannot run the workload at all
  double a = 0, b = 0;       // the metric on each side (per GPU; factory output: per-user x per-MW)
  std::string unit;
  double ratio = 0;          // a / b under the claim's own conditions
  double ratio_same_precision = 0;  // both at the claim's B precision (0 when A cannot or it is the same)
  double ratio_per_usd = 0;  // the metric per $ of TCO per hour (0 when unpriced)
  double ratio_per_watt = 0; // the metric per kW of full-load IT power
  std::string plan_a, plan_b;
  int gpus_a = 0, gpus_b = 0;                          // the GPUs each side ran on
  bool disaggregated_a = false, disaggregated_b = false;  // each side's serving point (its error band's kind)
  bool off_a = false, off_b = false;  // the side's figure is more than 2x from the stated one
};

// More than a factor `kClaimOffFactor` between the model's figure and the vendor's stated one.
constexpr double kClaimOffFactor = 2.0;
bool off_by_more_than_2x(double model_value, double stated);

// Evaluates one claim; models are resolved by the caller (`model` is the claim's model). `mtp_accept`:
// the MTP acceptance per draft of the serving deployments the replay sweeps (0: mtp_accept_default(),
// the built-in catalog's; the API gives its session catalog's, as for every serving command).
ClaimResult evaluate_claim(const Claim& claim, const ModelArch& model, const SystemSide& a, const SystemSide& b,
                           double mtp_accept = 0);

}  // namespace gpuplan::compare
