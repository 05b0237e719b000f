#pragma once
// One MLPerf system run in both the Offline and the Server scenario: the measured Server / Offline
// throughput against the predicted one (validate's section "scenario_pairs").
//
// MLPerf Inference publishes each scenario of a system's run under its own results path
// (`results/<system>/<benchmark>/<Scenario>/performance/run_1/mlperf_log_summary.txt`); two scored
// throughput rows whose paths differ only in that scenario segment, with the same metric, are one
// system's two scenarios. Offline runs with every sample queued; Server with Poisson arrivals under the
// benchmark's p99 TTFT and TPOT limits, so its throughput is the Offline one less what the arrivals and
// the limits cost. The ratio over a pair takes out what the two rows share (the step time's own error)
// and leaves what the model says that cost is. A diagnostic: nothing is fitted on it and no row's error
// changes.
#include <cstddef>
#include <iosfwd>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "core/csv.h"
#include "validate/validation.h"

namespace gpuplan {

struct ScenarioPair {
  size_t offline_row = 0, server_row = 0;  // data rows of the table
  std::string run;                         // the results path with its scenario segment written "*"
  std::string metric;
  double measured_ratio = 0;   // Server / Offline, as the runs reported them
  double predicted_ratio = 0;  // Server / Offline, as the model predicts them
};

struct ScenarioPairs {
  std::vector<ScenarioPair> pairs;
  // Medians over the pairs (0 when there are none): the two ratios and predicted / measured of each pair.
  double measured_median = 0, predicted_median = 0, predicted_over_measured_median = 0;
};

// The pairs among the scored rows `rows` of table `t` (its source_url_or_path column); a run with more than
// one scored row of the same metric in a scenario is left out (no pairing is certain).
ScenarioPairs scenario_pairs(const CsvTable& t, const std::vector<ScoredRow>& rows);

// The section as `validate --json` carries it ("scenario_pairs") and as its text prints it (nothing
// printed where there are no pairs).
nlohmann::json scenario_pairs_json(const ScenarioPairs& p);
void print_scenario_pairs_text(std::ostream& os, const ScenarioPairs& p);

}  // namespace gpuplan
