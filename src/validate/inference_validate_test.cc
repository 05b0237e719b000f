// The inference model against published serving results (shared/data/benchmarks/inference.csv and
// the MLPerf Inference v4.1/v5.0 rows): the targets, split as score.py splits them.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include "catalog/catalog.h"
#include "core/csv.h"
#include "validate/inference_cases.h"
#include "validate/validation.h"

namespace gpuplan {
namespace {

struct Split {
  ErrorSummary throughput, latency;
  size_t scored = 0, total = 0;
};

Split score_file(const std::string& name) {
  const std::string path = std::string(GPUPLAN_SHARED_DATA_DIR) + "/benchmarks/" + name;
  const CsvTable t = read_csv_file(path, "--dataset");
  EXPECT_TRUE(is_inference_schema(t));
  const Catalog catalog = Catalog::load({});
  std::vector<SkippedRow> skipped;
  const auto cases = map_inference_cases(t, catalog, skipped);
  const ValidationReport rep = validate_inference(cases, skipped, path);
  if (const char* dump = std::getenv("GPUPLAN_INFER_DUMP")) {  // per-row TSV for error analysis
    if (FILE* f = std::fopen((std::string(dump) + "." + name + ".tsv").c_str(), "w")) {
      for (const auto& r : rep.rows)
        std::fprintf(f, "%zu\t%s\t%s\t%s\t%s\t%s\t%g\t%g\t%s\n", r.row, r.source_id.c_str(), r.model.c_str(),
                     r.accelerator.c_str(), r.metric.c_str(), r.plan.c_str(), r.reported, r.predicted,
                     r.precision.c_str());
      std::fclose(f);
    }
  }
  std::vector<double> thr, lat;
  for (const auto& r : rep.rows) (r.metric == "ttft_ms" || r.metric == "tpot_ms" ? lat : thr).push_back(r.ape_pct);
  Split s{summarize(thr), summarize(lat), rep.rows.size(), rep.rows.size() + rep.skipped.size()};
  std::printf("%s: %zu/%zu scored; throughput median %.1f%% p90 %.1f%% (%zu); latency median %.1f%% p90 %.1f%% (%zu)\n",
              name.c_str(), s.scored, s.total, s.throughput.median_ape_pct, s.throughput.p90_ape_pct,
              s.throughput.rows, s.latency.median_ape_pct, s.latency.p90_ape_pct, s.latency.rows);
  return s;
}

bool have_data() {
  return std::filesystem::exists(std::string(GPUPLAN_SHARED_DATA_DIR) + "/benchmarks/inference.csv");
}

TEST(InferenceValidation, PublishedServingResults) {
  if (!have_data()) GTEST_SKIP() << "shared/data not present";
  const Split s = score_file("inference.csv");
  EXPECT_GE(double(s.scored), 0.85 * double(s.total));
  EXPECT_LE(s.throughput.median_ape_pct, 15.0);
  // Issue target 20%; see docs/inference-model.md for where the model stands.
  EXPECT_LE(s.latency.median_ape_pct, 30.0);
}

TEST(InferenceValidation, MlperfRounds) {
  if (!have_data()) GTEST_SKIP() << "shared/data not present";
  const Split s = score_file("mlperf-inference-v4.1-v5.0.csv");
  EXPECT_GE(double(s.scored), 0.85 * double(s.total));
  EXPECT_LE(s.throughput.median_ape_pct, 25.0);
  EXPECT_LE(s.latency.median_ape_pct, 25.0);
}

TEST(InferenceValidation, BlanksAreFilledAndRecorded) {
  const CsvTable t = parse_csv(
      "source_id,source_url_or_path,model,params_B,active_params_B,gpu,num_gpus,tp,ep,pp,precision_weights,"
      "precision_kv,framework,isl,osl,concurrency_or_batch,scenario,metric,value,notes\n"
      "MLPerf-v4.1,x/llama2-70b-99/Offline,Llama-2-70B,70,70,H100-SXM,8,,,,,,TensorRT 10.2.0,,,,offline,"
      "tokens_per_sec_total,24000,\"samples/s 80 (implies 294.0 output tokens/sample)\"\n"
      "X,y,No-Such-Model,1,1,H100-SXM,1,1,,1,FP8,,trt,128,128,,offline,tokens_per_sec_total,100,\n",
      "inline");
  std::vector<SkippedRow> skipped;
  const auto cases = map_inference_cases(t, Catalog::load({}), skipped);
  ASSERT_EQ(cases.size(), 1u);
  ASSERT_EQ(skipped.size(), 1u);
  EXPECT_NE(skipped[0].reason.find("No-Such-Model"), std::string::npos);
  EXPECT_EQ(cases[0].workload.osl, 294);
  EXPECT_EQ(cases[0].workload.isl, 300);
  EXPECT_GE(cases[0].assumptions.size(), 3u);
  EXPECT_GT(predict_inference_case(cases[0]), 0);
}

}  // namespace
}  // namespace gpuplan
