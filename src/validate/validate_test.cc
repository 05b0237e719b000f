// Validation against the published training measurements in shared/data: the accuracy targets of the
// training model, and the row mapping (blanks filled, conventions applied, nothing dropped silently).
#include <gtest/gtest.h>

#include "catalog/catalog.h"
#include "core/csv.h"
#include "validate/training_cases.h"
#include "validate/validation.h"

namespace gpuplan {
namespace {

const std::string kTraining = std::string(GPUPLAN_SHARED_DATA_DIR) + "/benchmarks/training.csv";

TEST(Validate, TrainingTargetsHold) {
  const CsvTable t = read_csv_file(kTraining, "dataset");
  ASSERT_TRUE(is_training_schema(t));
  std::vector<SkippedRow> skipped;
  const auto cases = map_training_cases(t, Catalog::builtin(), skipped);
  const auto rep = validate_training(cases, skipped, "training.csv");
  const double scored = double(rep.rows.size()) / double(rep.rows.size() + rep.skipped.size());
  EXPECT_GE(scored, 0.90);
  EXPECT_LE(rep.overall.median_ape_pct, 10.0);
  EXPECT_LE(rep.overall.p90_ape_pct, 25.0);
  for (const auto& s : rep.skipped) EXPECT_FALSE(s.reason.empty());
}

TEST(Validate, BlanksAreFilledAndSaid) {
  const CsvTable t = parse_csv(
      "source_id,source_url_or_path,model,params_B,layers,hidden,ffn_hidden,heads,kv_heads,vocab,seq_len,"
      "moe_experts,moe_topk,gpu,num_gpus,precision,tp,pp,vp,cp,ep,dp,mbs,gbs,recompute,reported_metric,"
      "reported_value,notes\n"
      "X,u,GPT-7B,7,32,4096,,32,,50257,2048,,,A100 (Ampere),8,BF16,,1,,,,,,64,,step_time_s,3.0,\n"
      "Y,u,GPT-7B,7,32,4096,,32,,50257,2048,,,NoSuchGPU,8,BF16,1,1,,,,,,64,,step_time_s,3.0,\n",
      "inline");
  std::vector<SkippedRow> skipped;
  const auto cases = map_training_cases(t, Catalog::builtin(), skipped);
  ASSERT_EQ(cases.size(), 1u);
  EXPECT_EQ(cases[0].model.ffn_hidden, 4 * 4096);
  EXPECT_FALSE(cases[0].model.gated_mlp);
  EXPECT_EQ(cases[0].plan.tp, 1);
  EXPECT_EQ(cases[0].plan.mbs, 1);
  EXPECT_FALSE(cases[0].assumptions.empty());
  ASSERT_EQ(skipped.size(), 1u);
  EXPECT_NE(skipped[0].reason.find("NoSuchGPU"), std::string::npos);
}

TEST(Validate, SummaryMatchesScorePy) {
  // Nearest-rank p90 as shared/tools/score.py: index int(0.9*(n-1)+0.5).
  auto s = summarize({1, 2, 3, 4, 5, 6, 7, 8, 9, 10});
  EXPECT_DOUBLE_EQ(s.median_ape_pct, 5.5);
  EXPECT_DOUBLE_EQ(s.p90_ape_pct, 9.0);
}

}  // namespace
}  // namespace gpuplan
