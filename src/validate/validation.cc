#include "validate/validation.h"

#include <algorithm>
#include <cmath>

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

ValidationReport validate_training(const std::vector<TrainingCase>& cases, std::vector<SkippedRow> skipped,
                                   const std::string& dataset) {
  ValidationReport rep;
  rep.dataset = dataset;
  rep.skipped = std::move(skipped);
  ErrorGroups groups;
  std::vector<double> all;
  for (const auto& c : cases) {
    const double pred = predict_case(c);
    if (!(pred > 0) || !std::isfinite(pred)) {
      rep.skipped.push_back({c.row, "the model returned no prediction for this plan"});
      continue;
    }
    ScoredRow r = scored_row(c, pred);
    TrainingPlan shown = c.plan;
    check_plan(c.model, shown, c.workload);  // fills the derived dp
    r.plan = to_string(shown);
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
