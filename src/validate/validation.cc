#include "validate/validation.h"

#include <algorithm>
#include <cmath>
#include <regex>

#include "core/error.h"
#include "validate/row_command.h"

namespace gpuplan {

ErrorSummary summarize(std::vector<double> e) {
  ErrorSummary s;
  s.rows = e.size();
  if (e.empty()) return s;
  std::sort(e.begin(), e.end());
  const size_t n = e.size();
  s.median_ape_pct = n % 2 ? e[n / 2] : 0.5 * (e[n / 2 - 1] + e[n / 2]);
  const auto idx = static_cast<size_t>(std::min<double>(double(n - 1), std::floor(0.9 * double(n - 1) + 0.5)));
  s.p90_ape_pct = e[idx];
  return s;
}

void finish_report(ValidationReport& rep, const std::vector<double>& all, const ErrorGroups& groups) {
  std::sort(rep.skipped.begin(), rep.skipped.end(), [](auto& a, auto& b) { return a.row < b.row; });
  rep.overall = summarize(all);
  for (const auto& [kind, m] : groups)
    for (const auto& [name, v] : m) rep.groups[kind][name] = summarize(v);
}

void apply_bands(ValidationReport& rep, const std::vector<ErrorBand>& bands) {
  rep.coverage.clear();
  for (auto& r : rep.rows) {
    r.band = with_band(r.predicted, band_for(bands, r.band_kind, r.generation, r.band_question), r.band_reciprocal);
    r.in_band = r.reported >= r.band.low && r.reported <= r.band.high;
    for (const std::string& k : {std::string("all"), r.band_kind}) {
      ++rep.coverage[k].rows;
      rep.coverage[k].inside += r.in_band ? 1 : 0;
    }
  }
}

std::map<std::string, size_t> skip_reason_counts(const std::vector<SkippedRow>& skipped) {
  static const std::regex quoted("'[^']*'"), number(R"(\b\d+(\.\d+)?\b)");
  std::map<std::string, size_t> out;
  for (const auto& s : skipped)
    ++out[std::regex_replace(std::regex_replace(s.reason, quoted, "'*'"), number, "N")];
  return out;
}

ValidationReport validate_training(const std::vector<TrainingCase>& cases, std::vector<SkippedRow> skipped,
                                   const std::string& dataset) {
  ValidationReport rep;
  rep.dataset = dataset;
  rep.skipped = std::move(skipped);
  ErrorGroups groups;
  std::vector<double> all;
  for (const auto& c : cases) {
    double pred = 0;
    try {
      pred = predict_case(c);
    } catch (const InputError& e) {  // one row's plan the model refuses: that row is skipped, not the run
      rep.skipped.push_back({c.row, std::string("the model refuses this row's plan: ") + e.what()});
      continue;
    }
    if (!(pred > 0) || !std::isfinite(pred)) {
      rep.skipped.push_back({c.row, "the model returned no prediction for this plan"});
      continue;
    }
    ScoredRow r = scored_row(c, pred);
    TrainingPlan shown = c.plan;
    check_plan(c.model, shown, c.workload);  // fills the derived dp
    r.plan = to_string(shown);
    r.command = training_row_command(c, shown);
    const RowReading reading = training_row_reading(c);
    r.command_field = reading.field;
    r.command_scale = reading.scale;
    all.push_back(r.ape_pct);
    groups["source"][r.source_id].push_back(r.ape_pct);
    groups["family"][r.family].push_back(r.ape_pct);
    groups["accelerator"][r.accelerator].push_back(r.ape_pct);
    groups["precision"][std::string(to_string(c.workload.precision))].push_back(r.ape_pct);
    rep.rows.push_back(std::move(r));
  }
  finish_report(rep, all, groups);
  return rep;
}

}  // namespace gpuplan
