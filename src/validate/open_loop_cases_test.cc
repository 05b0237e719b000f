// validate's open-loop section on a tiny fixture (tests/cli/data/open-loop-rows.csv: rows copied from
// shared/data/benchmarks/inference.csv): an offline row (not open loop), one MLPerf Server result
// (throughput, TTFT and TPOT rows), three rows at request_rate_qps=2 and one at INF.
#include <gtest/gtest.h>

#include <sstream>

#include "catalog/catalog.h"
#include "core/csv.h"
#include "validate/inference_cases.h"
#include "validate/open_loop_cases.h"

namespace gpuplan {
namespace {

OpenLoopValidation fixture() {
  const CsvTable t = read_csv_file(GPUPLAN_SOURCE_DIR "/tests/cli/data/open-loop-rows.csv", "--dataset");
  const Catalog catalog = Catalog::load({});
  std::vector<SkippedRow> skipped;
  const auto cases = map_inference_cases(t, catalog, skipped);
  return validate_open_loop(t, cases, skipped);
}

TEST(OpenLoopCases, ReadsMlperfNotes) {
  const MlperfNotes n = read_mlperf_notes("Mean first-token latency; p99 785.3 ms; samples/s 8.59 (implies 293.4 "
                                          "output tokens/sample); latency constraints TTFT<= 2000 ms, TPOT<= 200 ms");
  EXPECT_DOUBLE_EQ(n.p99_ms, 785.3);
  EXPECT_DOUBLE_EQ(n.samples_per_s, 8.59);
  EXPECT_DOUBLE_EQ(n.ttft_limit_ms, 2000);
  EXPECT_DOUBLE_EQ(n.tpot_limit_ms, 200);
  const MlperfNotes i = read_mlperf_notes("benchmark llama2-70b-interactive-99 (Interactive: TTFT<=450ms, TPOT<=40ms)");
  EXPECT_DOUBLE_EQ(i.ttft_limit_ms, 450);
  EXPECT_DOUBLE_EQ(i.tpot_limit_ms, 40);
  EXPECT_EQ(read_mlperf_notes("no limits here").ttft_limit_ms, 0);
}

TEST(OpenLoopCases, ScoresEachKindAndHoldsOutTheBurst) {
  const OpenLoopValidation v = fixture();
  // Data rows: 0 offline, 1-3 MLPerf Server (throughput, TTFT, TPOT), 4-6 rate 2/s, 7 INF.
  std::map<std::string, int> metrics;
  for (const auto& r : v.rows) {
    ++metrics[r.metric];
    EXPECT_NE(r.row, 0u) << "an offline row is not open loop";
    EXPECT_GT(r.predicted, 0) << r.metric;
    EXPECT_GT(r.requests_per_s, 0);
  }
  EXPECT_EQ(metrics["ttft_p99_ms"], 1);
  EXPECT_EQ(metrics["tpot_p99_ms"], 1);
  EXPECT_EQ(metrics["ttft_mean_ms"] + metrics["tpot_mean_ms"] + metrics["tokens_per_s"], 3);
  for (const auto& r : v.rows)
    if (r.metric == "ttft_p99_ms") {
      EXPECT_DOUBLE_EQ(r.reported, 785.3);  // the p99 of the notes, not the row's mean value
      EXPECT_NEAR(r.requests_per_s, 8.59, 1e-9);
    }
  // MLPerf p99 rows carry the run's mean, the model's, its load, and the p99 given the run's mean TPOT (a
  // step-time scale that brings the model's mean TPOT to the run's).
  for (const auto& r : v.rows)
    if (r.metric == "tpot_p99_ms" || r.metric == "ttft_p99_ms") {
      EXPECT_GT(r.reported_mean, 0) << r.metric;
      EXPECT_GT(r.predicted_mean, 0) << r.metric;
      EXPECT_GT(r.load, 0) << r.metric;
      EXPECT_LT(r.load, 1) << r.metric;
      ASSERT_GT(r.implied_scale, 0.25) << r.metric;
      EXPECT_LT(r.implied_scale, 4.0) << r.metric;
      EXPECT_GT(r.predicted_given_mean, 0) << r.metric;
    }
  // At the model's tuned rate (the largest within the row's limits) the binding p99 is at its limit and
  // the other within its own; the rate is the throughput row's largest rate.
  for (const auto& r : v.rows)
    if (r.metric == "tpot_p99_ms" || r.metric == "ttft_p99_ms") {
      ASSERT_GT(r.tuned_rate_per_s, 0) << r.metric;
      ASSERT_FALSE(v.limits.empty());
      EXPECT_NEAR(r.tuned_rate_per_s, v.limits[0].max_rate_per_s, 1e-9 * r.tuned_rate_per_s);
      const double limit_ms = r.metric == "ttft_p99_ms" ? 2000 : 200;
      EXPECT_LE(r.predicted_tuned, limit_ms * (1 + 1e-9)) << r.metric;
      if (r.tuned_binding == (r.metric == "ttft_p99_ms" ? "ttft" : "tpot")) {
        EXPECT_GE(r.predicted_tuned, 0.99 * limit_ms) << r.metric;
      }
    }
  EXPECT_EQ(v.at_tuned_rate.size(), 2u);
  EXPECT_EQ(v.given_mean.size(), 2u);
  EXPECT_GT(v.implied_scale_p50, 0);
  ASSERT_EQ(v.limits.size(), 1u);
  const OpenLoopLimitCheck& l = v.limits[0];
  EXPECT_DOUBLE_EQ(l.ttft_limit_s, 2.0);
  EXPECT_DOUBLE_EQ(l.tpot_limit_s, 0.2);
  EXPECT_GT(l.max_rate_per_s, 0);
  // The largest rate within the limits is where the p99s reach a limit: at it the check holds.
  EXPECT_EQ(l.meets, l.max_rate_per_s >= l.measured_rate_per_s);
  EXPECT_EQ(v.limits_met, l.meets ? 1u : 0u);
  ASSERT_EQ(v.held_out.size(), 1u);
  EXPECT_EQ(v.held_out[0].row, 7u);
  EXPECT_NE(v.held_out[0].reason.find("INF"), std::string::npos);
  EXPECT_TRUE(v.unstable.empty());
}

TEST(OpenLoopCases, JsonAndTextCarryTheSection) {
  const OpenLoopValidation v = fixture();
  const nlohmann::json j = open_loop_json(v);
  EXPECT_EQ(j["rows_scored"], v.rows.size());
  EXPECT_EQ(j["limits"]["rows"], 1);
  EXPECT_TRUE(j["by_metric"].contains("ttft_p99_ms"));
  EXPECT_TRUE(j["given_mean"].contains("tpot_p99_ms"));
  EXPECT_TRUE(j["given_mean"].contains("implied_scale"));
  EXPECT_TRUE(j["at_tuned_rate"].contains("ttft_p99_ms"));
  EXPECT_TRUE(j["at_tuned_rate"].contains("binding"));
  EXPECT_EQ(j["held_out"].size(), 1u);
  std::ostringstream os;
  print_open_loop_text(os, v);
  EXPECT_NE(os.str().find("Open loop"), std::string::npos);
  EXPECT_NE(os.str().find("within the p99 limits at the measured rate"), std::string::npos);
  EXPECT_NE(os.str().find("held out"), std::string::npos);
  EXPECT_NE(os.str().find("at the model's tuned rate"), std::string::npos);
}

// The odds, drawn from the catalog's bands: each MLPerf p99 row and each stated rate's mean row is
// counted against its band, the run gets its share of draws within its limits, and the rows carry the
// band's edges; without bands no odds are drawn.
TEST(OpenLoopCases, TheOddsCountEachRowAgainstItsBand) {
  EXPECT_EQ(fixture().odds_draws, 0);
  EXPECT_TRUE(fixture().odds_coverage.empty());
  const CsvTable t = read_csv_file(GPUPLAN_SOURCE_DIR "/tests/cli/data/open-loop-rows.csv", "--dataset");
  const Catalog catalog = Catalog::load({});
  std::vector<SkippedRow> skipped;
  const auto cases = map_inference_cases(t, catalog, skipped);
  OpenLoopOddsInputs in;
  in.bands = &catalog.error_bands();
  in.draws = 60;
  const OpenLoopValidation v = validate_open_loop(t, cases, skipped, in);
  EXPECT_EQ(v.odds_draws, 60);
  EXPECT_EQ(v.odds_coverage.at("ttft_p99_ms").rows, 1u);
  EXPECT_EQ(v.odds_coverage.at("tpot_p99_ms").rows, 1u);
  std::size_t mean_rows = 0;
  for (const char* m : {"ttft_mean_ms", "tpot_mean_ms"})
    if (v.odds_coverage.count(m)) mean_rows += v.odds_coverage.at(m).rows;
  EXPECT_GE(mean_rows, 1u);
  ASSERT_EQ(v.odds_p_meets.size(), 1u);
  EXPECT_GE(v.odds_p_meets[0], 0.0);
  EXPECT_LE(v.odds_p_meets[0], 1.0);
  EXPECT_EQ(v.limits[0].p_meets_sla, v.odds_p_meets[0]);
  for (const auto& r : v.rows)
    if (r.metric == "ttft_p99_ms" || r.metric == "tpot_p99_ms") {
      EXPECT_GT(r.odds_high, 0) << r.metric;
      EXPECT_LE(r.odds_low, r.odds_high) << r.metric;
    }
  const nlohmann::json j = open_loop_json(v);
  EXPECT_EQ(j["odds"]["draws"], 60);
  EXPECT_EQ(j["odds"]["runs"]["rows"], 1);
  std::ostringstream os;
  print_open_loop_text(os, v);
  EXPECT_NE(os.str().find("inside the 80% band under the model's error"), std::string::npos);
}

}  // namespace
}  // namespace gpuplan
