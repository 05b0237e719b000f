#pragma once
// Scores the open-loop serving model (inference/open_loop.h: Poisson arrivals, TTFT and TPOT at p50
// and p99) on the rows of a serving CSV that were measured under Poisson arrivals at a known rate:
// - MLPerf Server and Interactive rows (loadgen sends Poisson arrivals at the submitter's target rate;
//   the rules bound the 99th percentile TTFT and TPOT). The notes give the measured p99 TTFT / TPOT,
//   the samples/s reached and the p99 limits: the TTFT and TPOT rows are scored as p99s at that rate;
//   the throughput row checks whether the predicted p99s at that rate are within the limits and scores
//   the largest rate the model predicts within them against the rate measured (submitters raise the
//   target rate to the largest that passes, so the measured rate stands for it);
// - rows that state a finite request rate (notes "request_rate_qps=R": a benchmark client sending
//   Poisson arrivals): their mean TTFT and mean TPOT (inter-token latency) against the model's mean
//   TTFT and the TPOT at the mean decode batch, and their output tokens/s against the rate times the
//   output length (the deployment's capacity when the model says it cannot keep up).
// The deployment is the row's own (validate/row_scenario.h), as the main validation reads it. Rows at
// "request_rate_qps=INF" (every request at once), closed-loop rows (a stated concurrency) and rows the
// mapping skips are held out, each with its reason. These scores are a section of their own: the
// main validation's rows and figures are unchanged. See docs/sizing.md ("Validation").
#include <functional>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "catalog/catalog.h"
#include "catalog/error_band.h"
#include "core/csv.h"
#include "validate/inference_cases.h"
#include "validate/validation.h"

namespace gpuplan {

// One scored open-loop row.
struct OpenLoopScoredRow {
  size_t row = 0;
  std::string source_id, model, gpu, metric;  // ttft_p99_ms, tpot_p99_ms, ttft_mean_ms, tpot_mean_ms,
                                              // tokens_per_s, max_rate_per_s
  int num_gpus = 0;
  std::string plan;
  double requests_per_s = 0;  // the measured rate the prediction is made at
  double reported = 0, predicted = 0, ape_pct = 0;
  // MLPerf p99 rows: the run's mean (the row's value) and the model's mean at that rate, and the rate as
  // a share of the largest the model sustains (its load): what separates the step time's error (the
  // means off together) from the queueing's (the p99 / mean ratio off).
  double reported_mean = 0, predicted_mean = 0, load = 0;
  // The same p99 with the model's step and prefill times scaled (one factor, `implied_scale`) until its
  // mean TPOT at the measured rate is the run's (the run's TPOT row): the queue's tail given the run's
  // step time, the step-time model's error taken out (0 where no scale reaches the mean).
  double implied_scale = 0, predicted_given_mean = 0, ape_given_mean_pct = 0;
  bool given_slot_bound = false;  // TTFT: at that scale the model's p99 batch reaches its decode slots
  // MLPerf p99 rows: the model's own tuned operating point, the largest rate at which its p99s are within
  // the row's limits (as the submitter raised the target rate to the largest that passes), and the p99 there.
  // `tuned_binding` names the limit that stops the rate ("ttft", "tpot" or "stability").
  double tuned_rate_per_s = 0, predicted_tuned = 0, ape_tuned_pct = 0;
  std::string tuned_binding;
  // MLPerf p99 rows, and a stated rate's mean TTFT and TPOT rows: the figure's 80% band under the model's
  // error at the rate (OpenLoopOddsCoverage; infinite edges where there are none; 0 and 0 where no odds
  // were drawn).
  double odds_low = 0, odds_high = 0;
  // The `gpuplan infer --requests-per-s` line that asks this row's question (row_command.h
  // open_loop_row_command) and where its document holds `predicted` (field x scale); empty without a
  // catalog.
  std::string command, command_field;
  double command_scale = 1;
};

// A throughput row measured within p99 latency limits (MLPerf Server / Interactive).
struct OpenLoopLimitCheck {
  size_t row = 0;
  std::string source_id, model, gpu;
  double measured_rate_per_s = 0;
  double ttft_limit_s = 0, tpot_limit_s = 0;  // p99 limits
  bool stable = false;                        // the model keeps up at the measured rate
  double ttft_p99_s = 0, tpot_p99_s = 0;      // predicted at the measured rate (when stable)
  bool meets = false;                         // stable and both p99s within the limits
  double max_rate_per_s = 0;                  // the largest rate the model predicts within the limits
  double max_rate_ape_pct = 0;                // against the measured rate
  double p_meets_sla = -1;                    // the odds' share of draws within the limits (-1: not drawn)
  std::string command;  // the infer line whose max_rate_within_limits_per_s is max_rate_per_s (empty without a catalog)
};

// The odds on the MLPerf runs (sizing/odds.h): the open loop under the model's error, drawn as `size` and
// `infer --requests-per-s` draw it (each run's serving TPOT and TTFT bands, widened for its question).
// A p99 row is inside its 80% band when the run's p99 lies between the draws' 10% and 90% quantiles at
// the measured rate (above the lower edge where the upper is unbounded: more than a tenth of the draws
// cannot keep up). A run within its limits (every valid MLPerf result is) gets the share of draws that
// meet them at its rate: for odds that are right, spread over [0, 1] as a submitter's tuning puts the
// run at the edge; the share at or above 0.1 is how often the odds' 80% band of the largest rate reaches
// the run's.
struct OpenLoopOddsCoverage {
  size_t rows = 0, inside = 0, unbounded = 0;  // unbounded: rows whose band has no upper edge
  double share() const { return rows ? double(inside) / double(rows) : 0.0; }
};
struct OpenLoopOddsInputs {
  const std::vector<ErrorBand>* bands = nullptr;  // none: no odds
  std::function<std::string(const std::string&)> band_engine;  // a row's framework as the bands name engines
  BandCorrelation correlation;  // the catalog's (none measured: a generation as one)
  int draws = 100;
};

struct OpenLoopValidation {
  std::vector<OpenLoopScoredRow> rows;
  std::map<std::string, ErrorSummary> by_metric;  // metric -> errors
  // The MLPerf p99s given the run's mean TPOT (OpenLoopScoredRow::predicted_given_mean), by metric, and
  // the step-time scales that take the model's mean TPOT to the run's (median and 10th / 90th percentiles).
  std::map<std::string, ErrorSummary> given_mean;
  double implied_scale_p10 = 0, implied_scale_p50 = 0, implied_scale_p90 = 0;
  size_t given_slot_bound = 0;  // rows whose batch reaches the model's slots at that scale (not in given_mean)
  // The MLPerf p99s at the model's tuned rate (OpenLoopScoredRow::predicted_tuned), by metric; each
  // counted once per row, rows unstable at the measured rate included (`tuned_unstable_rows` of them).
  // `tuned_binding` counts the rows by the limit that binds there.
  std::map<std::string, ErrorSummary> at_tuned_rate;
  std::map<std::string, size_t> tuned_binding;
  size_t tuned_unstable_rows = 0;
  std::vector<OpenLoopLimitCheck> limits;
  size_t limits_met = 0;
  ErrorSummary max_rate;                          // errors of max_rate_per_s over `limits`
  std::vector<SkippedRow> held_out;               // open-loop rows not scored, each with why
  // Rows measured at a rate the model predicts it cannot sustain (no p99 to compare): counted, not scored.
  std::vector<SkippedRow> unstable;
  double share_met() const { return limits.empty() ? 0.0 : double(limits_met) / double(limits.size()); }
  // The odds (OpenLoopOddsCoverage): p99 rows by metric, unstable ones included; and each run's share of
  // draws within its limits at its rate (`odds_p_meets`, one per MLPerf throughput row).
  int odds_draws = 0;
  std::map<std::string, OpenLoopOddsCoverage> odds_coverage;
  std::vector<double> odds_p_meets;
};

// The p99 limits and measurements MLPerf notes state ("TTFT<= 2000 ms", "p99 785.3 ms",
// "samples/s 8.59"); <= 0 when absent.
struct MlperfNotes {
  double ttft_limit_ms = 0, tpot_limit_ms = 0, p99_ms = 0, samples_per_s = 0;
};
MlperfNotes read_mlperf_notes(const std::string& notes);

// Scores the open-loop rows of `t`: `cases` are map_inference_cases' cases of it, `skipped` its skipped
// rows (those of open-loop rows are held out with the mapping's reason).
// With `catalog`, each scored row and limit check carries the command that replays it.
OpenLoopValidation validate_open_loop(const CsvTable& t, const std::vector<InferenceCase>& cases,
                                      const std::vector<SkippedRow>& skipped, const OpenLoopOddsInputs& odds = {},
                                      const Catalog* catalog = nullptr);

// The runs' odds summarized: how many, the median share of draws within their limits, and the shares at
// or above 0.1, within [0.1, 0.9] and above 0.9.
struct OpenLoopOddsRuns {
  size_t rows = 0;
  double p_median = 0, share_at_least_0_1 = 0, share_0_1_to_0_9 = 0, share_above_0_9 = 0;
};
OpenLoopOddsRuns odds_runs(const OpenLoopValidation& v);

// The section as `validate --json` carries it ("open_loop") and as its text prints it.
nlohmann::json open_loop_json(const OpenLoopValidation& v);
void print_open_loop_text(std::ostream& os, const OpenLoopValidation& v);

}  // namespace gpuplan
