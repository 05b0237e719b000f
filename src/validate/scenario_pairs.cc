#include "validate/scenario_pairs.h"

#include <map>
#include <ostream>
#include <utility>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "validate/calibrate_rows.h"

namespace gpuplan {

namespace {

// The scenario segment of an MLPerf results path ("/Offline/", "/Server/") and where it starts; empty
// where the path has neither.
std::pair<std::string, size_t> scenario_segment(const std::string& path) {
  for (const char* s : {"/Offline/", "/Server/"}) {
    const size_t at = path.find(s);
    if (at != std::string::npos) return {std::string(s), at};
  }
  return {"", std::string::npos};
}

// Throughput rows: tokens/s in all or per GPU, not per user (a latency in disguise).
bool is_throughput(const std::string& metric) {
  return metric.rfind("tokens_per_sec", 0) == 0 && metric != "tokens_per_sec_per_user";
}

}  // namespace

ScenarioPairs scenario_pairs(const CsvTable& t, const std::vector<ScoredRow>& rows) {
  // (run with the scenario starred, metric) -> scenario -> the scored rows there.
  std::map<std::pair<std::string, std::string>, std::map<std::string, std::vector<const ScoredRow*>>> runs;
  for (const auto& r : rows) {
    if (!is_throughput(r.metric) || !(r.reported > 0) || !(r.predicted > 0)) continue;
    const std::string& path = t.cell(r.row, "source_url_or_path");
    const auto [segment, at] = scenario_segment(path);
    if (segment.empty()) continue;
    const std::string run = path.substr(0, at) + "/*/" + path.substr(at + segment.size());
    runs[{run, r.metric}][segment].push_back(&r);
  }
  ScenarioPairs out;
  std::vector<double> measured, predicted, ratio;
  for (const auto& [key, by_scenario] : runs) {
    const auto off = by_scenario.find("/Offline/"), srv = by_scenario.find("/Server/");
    if (off == by_scenario.end() || srv == by_scenario.end() || off->second.size() != 1 || srv->second.size() != 1)
      continue;
    const ScoredRow& o = *off->second.front();
    const ScoredRow& s = *srv->second.front();
    ScenarioPair p;
    p.offline_row = o.row;
    p.server_row = s.row;
    p.run = key.first;
    p.metric = key.second;
    p.measured_ratio = s.reported / o.reported;
    p.predicted_ratio = s.predicted / o.predicted;
    measured.push_back(p.measured_ratio);
    predicted.push_back(p.predicted_ratio);
    ratio.push_back(p.predicted_ratio / p.measured_ratio);
    out.pairs.push_back(std::move(p));
  }
  out.measured_median = calibrate_rows::median_of(measured);
  out.predicted_median = calibrate_rows::median_of(predicted);
  out.predicted_over_measured_median = calibrate_rows::median_of(std::move(ratio));
  return out;
}

nlohmann::json scenario_pairs_json(const ScenarioPairs& p) {
  nlohmann::json pairs = nlohmann::json::array();
  for (const auto& x : p.pairs)
    pairs.push_back({{"offline_row", x.offline_row}, {"server_row", x.server_row}, {"run", x.run},
                     {"metric", x.metric}, {"measured_server_over_offline", x.measured_ratio},
                     {"predicted_server_over_offline", x.predicted_ratio}});
  return {{"pairs", pairs},
          {"count", p.pairs.size()},
          {"measured_median", p.measured_median},
          {"predicted_median", p.predicted_median},
          {"predicted_over_measured_median", p.predicted_over_measured_median}};
}

void print_scenario_pairs_text(std::ostream& os, const ScenarioPairs& p) {
  if (p.pairs.empty()) return;
  os << fmt::format(
      "MLPerf Server / Offline throughput over {} pairs (a system's benchmark run in both scenarios): measured "
      "{:.2f}, predicted {:.2f} (medians; predicted / measured {:.2f})\n",
      p.pairs.size(), p.measured_median, p.predicted_median, p.predicted_over_measured_median);
}

}  // namespace gpuplan
