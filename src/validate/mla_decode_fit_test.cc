// The MLA decode attention rate (Efficiency::infer_mla_decode_eff) and the decode kernels' query-row
// tile (Efficiency::mla_decode_tile_rows; docs/inference-model.md, "MLA decode attention rate"):
// properties, the catalog's reading of both, calibrate_mla_decode's recovery of a planted rate, and
// the catalog value against a fresh fit of the InferenceX file.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <string>

#include "catalog/catalog.h"
#include "catalog/test_catalog.h"
#include "core/csv.h"
#include "core/error.h"
#include "inference/inference.h"
#include "model/model_registry.h"
#include "physics/hardware.h"
#include "validate/calibrate.h"
#include "validate/inference_cases.h"
#include "validate/inferencex_cases.h"

namespace gpuplan {
namespace {

// Decodes only, a long context and a large batch: the step where attention weighs most.
InferenceWorkload decodes(long long batch) {
  InferenceWorkload w;
  w.weight_precision = Precision::fp8;
  w.kv_bytes_per_element = 1.0;
  w.isl = 8192;
  w.osl = 1024;
  w.concurrency = batch;
  w.num_gpus = 8;
  w.decode_only = true;
  return w;
}

// A lower MLA decode rate slows MLA decodes only: a dense GQA model's TPOT and an MLA model's
// prefill do not move, and the rate costs at most its own share of the step.
TEST(MlaDecode, RateAppliesToMlaDecodesOnly) {
  Hardware fast = resolve_hardware(test_catalog(), "hgx-b200");
  fast.efficiency.infer_mla_decode_eff = 0.6;
  Hardware slow = fast;
  slow.efficiency.infer_mla_decode_eff = 0.06;
  const ModelArch ds = resolve_model("deepseek-r1"), llama = resolve_model("llama3.1-70b");
  const InferenceParallel adp{8, 8, 1, true};
  const InferenceResult f = evaluate_inference(ds, fast, adp, decodes(1024));
  const InferenceResult s = evaluate_inference(ds, slow, adp, decodes(1024));
  ASSERT_TRUE(f.valid() && s.valid());
  EXPECT_GT(s.tpot_s, 1.2 * f.tpot_s);
  EXPECT_GT(s.decode_step.attention_s, 5.0 * f.decode_step.attention_s);
  EXPECT_NEAR(s.decode_step.gemm_s, f.decode_step.gemm_s, 1e-12);
  const InferenceParallel tp8{8, 1, 1, false};
  EXPECT_DOUBLE_EQ(evaluate_inference(llama, slow, tp8, decodes(64)).tpot_s,
                   evaluate_inference(llama, fast, tp8, decodes(64)).tpot_s);
  InferenceWorkload prompt = decodes(1);
  prompt.decode_only = false;
  EXPECT_DOUBLE_EQ(evaluate_inference(ds, slow, tp8, prompt).prefill_s,
                   evaluate_inference(ds, fast, tp8, prompt).prefill_s);
}

// The query-row tile: DeepSeek's 128 heads over TP8 leave 16 rows per rank, a quarter of a 64-row
// tile and a whole 16-row one, so a compute-bound decode attention costs 4x less at 16; attention-DP
// keeps all 128 heads on a rank (two whole tiles either way) and does not care.
TEST(MlaDecode, TileRowsPadTheRanksQueryRows) {
  Hardware t64 = resolve_hardware(test_catalog(), "hgx-b200");
  t64.efficiency.infer_mla_decode_eff = 0.02;  // compute-bound: the padded math shows
  t64.efficiency.mla_decode_tile_rows = 64;
  Hardware t16 = t64;
  t16.efficiency.mla_decode_tile_rows = 16;
  const ModelArch ds = resolve_model("deepseek-r1");
  const InferenceParallel tp8{8, 1, 1, false}, adp{8, 8, 1, true};
  const double a64 = evaluate_inference(ds, t64, tp8, decodes(128)).decode_step.attention_s;
  const double a16 = evaluate_inference(ds, t16, tp8, decodes(128)).decode_step.attention_s;
  EXPECT_NEAR(a64 / a16, 4.0, 1e-6);
  EXPECT_DOUBLE_EQ(evaluate_inference(ds, t64, adp, decodes(1024)).decode_step.attention_s,
                   evaluate_inference(ds, t16, adp, decodes(1024)).decode_step.attention_s);
  // The built-in catalog: NVIDIA's MLA decode kernels tile 64 rows, AITER's on CDNA 16.
  EXPECT_EQ(test_catalog().efficiency("hopper").mla_decode_tile_rows, 64);
  EXPECT_EQ(test_catalog().efficiency("blackwell").mla_decode_tile_rows, 64);
  EXPECT_EQ(test_catalog().efficiency("cdna3").mla_decode_tile_rows, 16);
  EXPECT_EQ(test_catalog().efficiency("cdna4").mla_decode_tile_rows, 16);
}

// The catalog reads both fields within their ranges and refuses others, naming the key.
TEST(MlaDecode, CatalogReadsAndChecksTheFields) {
  Catalog c;
  c.merge_yaml("efficiencies:\n  - {generation: cdna4, infer_mla_decode_eff: 0.3, mla_decode_tile_rows: 16}\n",
               "e.yaml");
  EXPECT_DOUBLE_EQ(c.efficiency("cdna4").infer_mla_decode_eff, 0.3);
  EXPECT_EQ(c.efficiency("cdna4").mla_decode_tile_rows, 16);
  EXPECT_EQ(Efficiency{}.mla_decode_tile_rows, 64);
  EXPECT_EQ(Efficiency{}.infer_mla_decode_eff, 0.0) << "not fitted: attention_eff applies";
  for (const char* bad : {"{generation: x, mla_decode_tile_rows: 0}", "{generation: x, mla_decode_tile_rows: 16.5}",
                          "{generation: x, infer_mla_decode_eff: 1.5}"}) {
    Catalog d;
    try {
      d.merge_yaml(std::string("efficiencies:\n  - ") + bad + "\n", "e.yaml");
      ADD_FAILURE() << bad << " accepted";
    } catch (const std::exception& e) {
      const std::string what = e.what();
      EXPECT_TRUE(what.find("mla_decode") != std::string::npos) << what;
    }
  }
  // A written catalog keeps them.
  Efficiency e;
  e.generation = "cdna4";
  e.infer_mla_decode_eff = 0.3;
  e.mla_decode_tile_rows = 16;
  e.infer_mla_decode_fitted_on = "here";
  Catalog back;
  back.merge_yaml(efficiencies_to_yaml({e}, "test"), "w.yaml");
  EXPECT_DOUBLE_EQ(back.efficiency("cdna4").infer_mla_decode_eff, 0.3);
  EXPECT_EQ(back.efficiency("cdna4").mla_decode_tile_rows, 16);
  EXPECT_EQ(back.efficiency("cdna4").infer_mla_decode_fitted_on, "here");
}

// calibrate_mla_decode recovers a rate planted in TPOTs the model itself predicts (an attention-DP
// MI355X decode pool at several batches), starting from the training rate; the TTFT cases are held
// out: not scored, their efficiencies untouched.
TEST(MlaDecode, CalibrateRecoversAPlantedRate) {
  const double planted = 0.2;
  std::vector<InferenceCase> cases;
  for (long long batch : {256LL, 1024LL, 2048LL})
    for (const char* metric : {"tpot_ms", "ttft_ms"}) {
      InferenceCase c;
      c.source_id = "synthetic";
      c.model_name = "DeepSeek-R1";
      c.framework = c.engine = "SGLang";
      c.generation = "cdna4";
      c.metric = metric;
      c.model = resolve_model("deepseek-r1");
      c.hardware = resolve_hardware(test_catalog(), "mi355x");
      c.parallel = {8, 8, 1, true};
      c.workload = decodes(batch);
      c.workload.decode_only = false;
      c.hardware.efficiency.infer_mla_decode_eff = planted;
      c.reported = predict_inference_case(c);
      ASSERT_GT(c.reported, 0);
      c.hardware.efficiency.infer_mla_decode_eff = 0;  // the fit starts from attention_eff
      cases.push_back(c);
    }
  CalibrationOptions o;
  o.prior_weight = 0;
  const auto fits = calibrate_mla_decode(cases, o);
  ASSERT_EQ(fits.size(), 1u);
  EXPECT_EQ(fits[0].rows, 3u) << "the TPOT cases only";
  EXPECT_NEAR(fits[0].after.infer_mla_decode_eff, planted, 0.01);
  EXPECT_LT(fits[0].loss_after, fits[0].loss_before);
  for (const auto& c : cases)
    EXPECT_DOUBLE_EQ(c.hardware.efficiency.infer_mla_decode_eff, c.metric == "tpot_ms" ? fits[0].after.infer_mla_decode_eff : 0.0);
}

const std::string kMlaInferenceXFile = std::string(GPUPLAN_SHARED_DATA_DIR) + "/benchmarks/inferencex-deepseek-r1.csv";

// The built-in catalog's MLA decode rates are the fit of the InferenceX file's TPOTs where kept:
// cdna4 and blackwell_ultra (MI355X, B300: `calibrate --inference --params infer_mla_decode_eff
// --generation cdna4,blackwell_ultra`); hopper's and blackwell's fits were measured and not kept (the
// held-out inference.csv's long-output DeepSeek rows worsen) and cdna3's stays at its prior, so they
// keep attention_eff (docs/inference-model.md).
TEST(MlaDecode, CatalogValuesAreTheFitOfTheInferenceXFile) {
  if (!std::filesystem::exists(kMlaInferenceXFile)) GTEST_SKIP() << kMlaInferenceXFile << " not present";
  std::vector<SkippedRow> skipped;
  auto cases = map_inferencex_cases(read_csv_file(kMlaInferenceXFile, "--dataset"), test_catalog(), skipped);
  const auto fits = calibrate_mla_decode(cases);
  ASSERT_EQ(fits.size(), 5u);  // hopper, blackwell, blackwell_ultra, cdna3, cdna4
  for (const auto& f : fits) {
    const Efficiency& e = test_catalog().efficiency(f.generation);
    std::printf("%-16s rows %3zu  infer_mla_decode_eff %.3f (catalog %.3f, attention_eff %.3f)\n",
                f.generation.c_str(), f.rows, f.after.infer_mla_decode_eff, e.infer_mla_decode_eff, e.attention_eff);
    EXPECT_GE(f.after.infer_mla_decode_eff, 0.05);
    EXPECT_LE(f.after.infer_mla_decode_eff, 0.95);
    if (f.generation == "cdna4" || f.generation == "blackwell_ultra") {
      EXPECT_NEAR(f.after.infer_mla_decode_eff, e.infer_mla_decode_eff, 0.02);
    } else {
      EXPECT_EQ(e.infer_mla_decode_eff, 0.0) << f.generation << ": not kept";
    }
  }
}

}  // namespace
}  // namespace gpuplan
