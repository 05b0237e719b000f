// MLPerf Offline / Server pairs: rows paired by their results path, the ratios and their medians.
#include "validate/scenario_pairs.h"

#include <gtest/gtest.h>

#include <sstream>

#include <nlohmann/json.hpp>

#include "core/csv.h"

namespace gpuplan {
namespace {

ScoredRow scored(size_t row, const std::string& metric, double reported, double predicted) {
  ScoredRow r;
  r.row = row;
  r.metric = metric;
  r.reported = reported;
  r.predicted = predicted;
  return r;
}

const char* kTable =
    "source_url_or_path,metric,value\n"
    "https://x/results/SysA/llama2-70b-99/Offline/performance/run_1/mlperf_log_summary.txt,tokens_per_sec_total,100\n"
    "https://x/results/SysA/llama2-70b-99/Server/performance/run_1/mlperf_log_summary.txt,tokens_per_sec_total,90\n"
    "https://x/results/SysA/llama2-70b-99/Server/performance/run_1/mlperf_log_summary.txt,ttft_ms,200\n"
    "https://x/results/SysB/llama2-70b-99/Offline/performance/run_1/mlperf_log_summary.txt,tokens_per_sec_total,50\n"
    "https://x/results/SysB/llama2-70b-99/Server/performance/run_1/mlperf_log_summary.txt,tokens_per_sec_total,40\n"
    "https://x/results/SysC/llama2-70b-99/Offline/performance/run_1/mlperf_log_summary.txt,tokens_per_sec_total,70\n"
    "https://x/docs/perf-overview.md,tokens_per_sec_total,10\n";

TEST(ScenarioPairs, PairsOneSystemsTwoScenariosByTheirResultsPath) {
  const CsvTable t = parse_csv(kTable, "fixture");
  const std::vector<ScoredRow> rows = {
      scored(0, "tokens_per_sec_total", 100, 110), scored(1, "tokens_per_sec_total", 90, 110),
      scored(2, "ttft_ms", 200, 150),  // a latency row is not a throughput pair
      scored(3, "tokens_per_sec_total", 50, 50),   scored(4, "tokens_per_sec_total", 40, 45),
      scored(5, "tokens_per_sec_total", 70, 60),   // an Offline run without its Server run
      scored(6, "tokens_per_sec_total", 10, 10)};  // not an MLPerf results path
  const ScenarioPairs p = scenario_pairs(t, rows);
  ASSERT_EQ(p.pairs.size(), 2u);
  EXPECT_EQ(p.pairs[0].offline_row, 0u);
  EXPECT_EQ(p.pairs[0].server_row, 1u);
  EXPECT_EQ(p.pairs[0].run, "https://x/results/SysA/llama2-70b-99/*/performance/run_1/mlperf_log_summary.txt");
  EXPECT_DOUBLE_EQ(p.pairs[0].measured_ratio, 0.9);
  EXPECT_DOUBLE_EQ(p.pairs[0].predicted_ratio, 1.0);
  EXPECT_DOUBLE_EQ(p.pairs[1].measured_ratio, 0.8);
  EXPECT_DOUBLE_EQ(p.pairs[1].predicted_ratio, 0.9);
  EXPECT_DOUBLE_EQ(p.measured_median, 0.85);
  EXPECT_DOUBLE_EQ(p.predicted_median, 0.95);
  EXPECT_DOUBLE_EQ(p.predicted_over_measured_median, 0.5 * (1.0 / 0.9 + 0.9 / 0.8));

  const nlohmann::json j = scenario_pairs_json(p);
  EXPECT_EQ(j["count"], 2);
  EXPECT_DOUBLE_EQ(j["pairs"][1]["measured_server_over_offline"].get<double>(), 0.8);
  std::ostringstream text;
  print_scenario_pairs_text(text, p);
  EXPECT_NE(text.str().find("over 2 pairs"), std::string::npos) << text.str();
}

TEST(ScenarioPairs, AnAmbiguousRunIsLeftOutAndNoPairsPrintNothing) {
  const CsvTable t = parse_csv(kTable, "fixture");
  // Two scored Server rows of the same metric on one run: which pairs with the Offline row is not certain.
  const std::vector<ScoredRow> rows = {scored(0, "tokens_per_sec_total", 100, 110),
                                       scored(1, "tokens_per_sec_total", 90, 110),
                                       scored(1, "tokens_per_sec_total", 90, 100)};
  const ScenarioPairs p = scenario_pairs(t, rows);
  EXPECT_TRUE(p.pairs.empty());
  EXPECT_EQ(p.measured_median, 0);
  std::ostringstream text;
  print_scenario_pairs_text(text, p);
  EXPECT_TRUE(text.str().empty());
  EXPECT_EQ(scenario_pairs_json(p)["count"], 0);
}

}  // namespace
}  // namespace gpuplan
