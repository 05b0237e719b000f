#pragma once
// What a serving row's source means by what it leaves unsaid (data/serving/source_conventions.yaml):
// per family of published measurements (AIConfigurator's silicon data, MLPerf Inference results, any
// other), the weights' precision a blank cell stands for, whether the rows run MLPerf's benchmarks, and
// how the source's clients load the engine. A row names its family by its source_id's prefix. See
// docs/validation.md ("Source conventions").
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace gpuplan {

// How a source's benchmark clients load the engine when a row gives a client count (closed loop).
struct ClosedLoopClient {
  std::string name;               // as the row's assumptions name it ("InferenceX")
  int requests_per_client = 1;    // requests each client sends one after another
  double random_range_ratio = 1;  // request lengths uniform in [ratio, 1] x ISL/OSL
  bool http_front_end = false;    // the engine's HTTP front end per request is in the latency
  std::string disaggregated_engine_prefix;  // engine entry in front of disaggregated workers ("dynamo ")
  bool inferencex_scripts = false;          // InferenceX's runs: its scripts' settings and sweep apply
  // The aggregated rows are runs of single-node scripts whose dump states the layout with tp (or
  // attn_dp) = the script's TP x EP, moe_tp = its TP and moe_ep = its EP: a stated width beyond one
  // NVLink node that is moe_tp x moe_ep with moe_tp = moe_ep is read as TP (= EP) moe_ep on moe_ep GPUs.
  bool single_node_width_tp_times_ep = false;
  // The mean request length over the nominal one: the middle of [ratio, 1].
  double mean_length_fraction() const { return (1 + random_range_ratio) / 2; }
};

struct SourceConvention {
  std::string family;
  std::vector<std::string> source_id_prefixes;  // lowercase; empty: any row no other family names
  std::string blank_weights;                    // a blank precision_weights cell on any other generation
  std::map<std::string, std::string> blank_weights_by_generation;
  bool mlperf_benchmarks = false;  // rows run MLPerf Inference's benchmarks (data/serving/mlperf_scenarios.yaml)
  std::optional<ClosedLoopClient> closed_loop_client;
  std::string why, source;
  // What a blank precision_weights cell means on `generation`.
  const std::string& blank_weights_on(const std::string& generation) const;
};

// Parses a source-conventions document (the schema of data/serving/source_conventions.yaml). A
// malformed document is an InputError naming `origin` and the field: a missing why or source, an
// unknown precision, a family named twice, a catch-all entry that is missing or not last.
std::vector<SourceConvention> parse_source_conventions(const std::string& text, const std::string& origin);

// Every family of data/serving/source_conventions.yaml, in file order (read once).
const std::vector<SourceConvention>& source_conventions();

// The family a row's source_id names: the first whose prefix begins it (case-insensitive), else the
// catch-all (last) entry.
const SourceConvention& source_convention(const std::string& source_id);

}  // namespace gpuplan
