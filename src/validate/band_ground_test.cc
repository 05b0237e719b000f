// Error bands off the data: distance from a band's ground, widening, and its fit on left-out rows.
#include <gtest/gtest.h>

#include <cmath>

#include "catalog/error_band.h"
#include "core/error.h"
#include "core/yaml_reader.h"
#include "validate/band_ground.h"

namespace gpuplan {
namespace {

ErrorBand grounded_band() {
  ErrorBand b;
  b.kind = std::string(kBandTrainingDense);
  b.generation = "blackwell_ultra";
  b.set_edges(-0.1, 0.15);
  b.ground.precisions = {"fp8", "nvfp4"};
  b.ground.gpus_min = 8;
  b.ground.gpus_max = 8192;
  b.ground.params_b_min = 8;
  b.ground.params_b_max = 405;
  b.widening = {1.3, 1.5, 1.4, 1.2};
  return b;
}

TEST(BandGround, OnTheGroundTheBandIsTheFittedOne) {
  const ErrorBand b = grounded_band();
  const ErrorBand w = widen_band(b, ground_distance(b, {true, "fp8", 512, 70, "", "", ""}));
  EXPECT_DOUBLE_EQ(w.low_log, b.low_log);
  EXPECT_DOUBLE_EQ(w.high_log, b.high_log);
  EXPECT_TRUE(w.widened_by.empty());
}

TEST(BandGround, EachDimensionOffTheGroundWidensAndSaysWhy) {
  const ErrorBand b = grounded_band();
  const GroundDistance d = ground_distance(b, {false, "bf16", 16384, 70, "", "", ""});
  EXPECT_DOUBLE_EQ(d.source, 1);
  EXPECT_DOUBLE_EQ(d.precision, 1);
  EXPECT_DOUBLE_EQ(d.scale, 1);  // log2(16384 / 8192)
  EXPECT_DOUBLE_EQ(d.model_size, 0);
  const ErrorBand w = widen_band(b, d);
  // Each edge moves out by (m - 1) x the half-width (0.125), m the product of the three factors.
  EXPECT_NEAR(w.high_log, 0.15 + (1.3 * 1.5 * 1.4 - 1) * 0.125, 1e-12);
  EXPECT_NEAR(w.low_log, -0.1 - (1.3 * 1.5 * 1.4 - 1) * 0.125, 1e-12);
  ASSERT_EQ(w.widened_by.size(), 3u);
  EXPECT_EQ(w.widened_by[1], "precision bf16 never fitted on blackwell_ultra (fitted: fp8, nvfp4)");
  EXPECT_EQ(w.widened_by[2], "scale 16384 GPUs above fitted 8192");
  // Half a doubling below the smallest fitted model: half the distance.
  EXPECT_NEAR(ground_distance(b, {true, "", 0, 8 / std::sqrt(2.0), "", "", ""}).model_size, 0.5, 1e-12);
  // The unfitted band is already the widest: no ground, no widening.
  ErrorBand u = b;
  u.generation = std::string(kBandUnfitted);
  EXPECT_DOUBLE_EQ(widen_band(u, ground_distance(u, {false, "bf16", 1 << 20, 2000, "", "", ""})).high_log, b.high_log);
}

// An accelerator the band's rows measured too rarely widens by its own fitted factor and says so; one
// measured enough, or a question naming none, does not.
TEST(BandGround, AnAcceleratorOffTheGroundWidensAndSaysWhy) {
  ErrorBand b = grounded_band();
  b.ground.accelerators = {"b300", "gb300"};
  b.widening.accelerator = 1.25;
  const GroundDistance off = ground_distance(b, {true, "fp8", 512, 70, "", "rtx-pro-6000-server", ""});
  EXPECT_DOUBLE_EQ(off.accelerator, 1);
  const ErrorBand w = widen_band(b, off);
  EXPECT_NEAR(w.high_log, 0.15 + 0.25 * 0.125, 1e-12);
  ASSERT_EQ(w.widened_by.size(), 1u);
  EXPECT_EQ(w.widened_by[0], "accelerator rtx-pro-6000-server has too few fitted training_dense rows on "
                             "blackwell_ultra (fitted: b300, gb300)");
  EXPECT_DOUBLE_EQ(ground_distance(b, {true, "fp8", 512, 70, "", "gb300", ""}).accelerator, 0);
  EXPECT_DOUBLE_EQ(ground_distance(b, {true, "fp8", 512, 70, "", "", ""}).accelerator, 0);
  // A factor of 1 (what the shared files fit) widens nothing and names nothing.
  b.widening.accelerator = 1;
  EXPECT_TRUE(widen_band(b, off).widened_by.empty());
}

// A published row's source on the band's ground is known ground (case aside); another source, a known
// one's new round or release, or a planner's question naming none, is a new source, and the reason names it.
TEST(BandGround, ARowOfAFittedSourceIsKnownAndAnotherIsNot) {
  ErrorBand b = grounded_band();
  b.ground.sources = {"mlperf-v5.0 / tensorrt 10.2.0, cuda 12.4", "nemo-24.07"};
  BandQuestion q{false, "fp8", 512, 70, "", "", ""};
  q.source = "MLPerf-v5.0 / TensorRT 10.2.0, CUDA 12.4";
  EXPECT_DOUBLE_EQ(ground_distance(b, q).source, 0);
  q.source = "MLPerf-v5.1 / TensorRT 10.2.0, CUDA 12.4";  // a known source's new round
  EXPECT_DOUBLE_EQ(ground_distance(b, q).source, 1);
  q.source = "MLPerf-v5.0 / TensorRT 10.11, CUDA 12.9";  // a new release in a known round
  const GroundDistance d = ground_distance(b, q);
  EXPECT_DOUBLE_EQ(d.source, 1);
  ASSERT_EQ(d.why.size(), 1u);
  EXPECT_EQ(d.why[0].text, "source MLPerf-v5.0 / TensorRT 10.11, CUDA 12.9 not among the 2 the band was fitted on");
  q.source.clear();
  EXPECT_DOUBLE_EQ(ground_distance(b, q).source, 1);
  EXPECT_EQ(ground_distance(b, q).why[0].text, "a source the bands were not fitted on");
}

// A question farther from the data never gets a narrower band, along any dimension.
TEST(BandGround, FartherNeverNarrower) {
  const ErrorBand b = grounded_band();
  double last_hi = 0, last_lo = 0;
  for (int gpus = 8192; gpus <= 8192 * 64; gpus *= 2) {
    for (double params : {405.0, 600.0, 810.0, 2000.0}) {
      const ErrorBand w = widen_band(b, ground_distance(b, {false, "bf16", gpus, params, "", "", ""}));
      EXPECT_GE(w.high_log, b.high_log);
      EXPECT_LE(w.low_log, b.low_log);
      const ErrorBand nearer = widen_band(b, ground_distance(b, {false, "bf16", gpus, 405.0, "", "", ""}));
      EXPECT_GE(w.high_log, nearer.high_log);
    }
    const ErrorBand w = widen_band(b, ground_distance(b, {false, "bf16", gpus, 405.0, "", "", ""}));
    EXPECT_GE(w.high_log, last_hi);
    EXPECT_LE(w.low_log, last_lo);
    last_hi = w.high_log;
    last_lo = w.low_log;
  }
  // Adding an off-ground dimension never narrows it either.
  const GroundDistance known = ground_distance(b, {true, "fp8", 64, 70, "", "", ""});
  const GroundDistance fresh = ground_distance(b, {false, "fp8", 64, 70, "", "", ""});
  EXPECT_GE(widening_multiplier(b.widening, fresh), widening_multiplier(b.widening, known));
}

TEST(BandGround, WideningIsFittedToHoldTheNominalShareOfLeftOutRows) {
  // 100 left-out rows against a +/-10% band; the rows spread +/-20% uniformly: the source factor that
  // holds 80% is about 1.6 (80% of a uniform +/-0.2 lies within +/-0.16).
  std::vector<NewGroundRow> rows;
  ErrorBand b = grounded_band();
  b.set_edges(-0.1, 0.1);
  for (int i = 0; i < 100; ++i) {
    NewGroundRow r;
    r.row = HeldOutResidual(std::string(kBandTrainingDense), "blackwell_ultra", "F", -0.2 + 0.4 * (i + 0.5) / 100);
    r.band = b;
    r.distance.source = 1;
    rows.push_back(r);
  }
  const auto w = fit_widening(rows, 0.8);
  ASSERT_TRUE(w.count(std::string(kBandTrainingDense)));
  EXPECT_NEAR(w.at(std::string(kBandTrainingDense)).source, 1.6, 0.02);
  EXPECT_DOUBLE_EQ(w.at(std::string(kBandTrainingDense)).precision, 1.0);  // no row off the ground there: no widening
  const auto cov = new_ground_coverage(rows, w);
  EXPECT_NEAR(cov.by_kind.at("all").share(), 0.8, 0.011);
  EXPECT_LT(new_ground_coverage(rows, {}).by_kind.at("all").share(), 0.6);
}

// The widening's own held-out check: a family whose rows lie farther out than every other family's is
// held by the factor fitted with it, not by the one fitted without it.
TEST(BandGround, TheNestedCheckFitsTheWideningWithoutTheFamilyScored) {
  std::vector<NewGroundRow> rows;
  ErrorBand b = grounded_band();
  b.set_edges(-0.1, 0.1);
  const char* families[] = {"A", "B", "C", "D"};
  for (int f = 0; f < 4; ++f)
    for (int i = 0; i < 30; ++i) {
      NewGroundRow r;
      const double spread = f == 3 ? 0.6 : 0.2;  // D spreads three times as far
      r.row = HeldOutResidual(std::string(kBandTrainingDense), "blackwell_ultra", families[f],
                              -spread + 2 * spread * (i + 0.5) / 30);
      r.band = b;
      r.distance.source = 1;
      rows.push_back(r);
    }
  const auto all = new_ground_coverage(rows, fit_widening(rows, 0.8));
  const auto nested = nested_new_ground_coverage(rows, 0.8);
  EXPECT_EQ(nested.by_kind.at("all").rows, rows.size());
  EXPECT_LT(nested.by_kind.at("all").share(), all.by_kind.at("all").share());
  // D's rows against the factor A, B and C fit (about 1.6: +/-0.16 of +/-0.6): under a third inside.
  std::vector<NewGroundRow> d(rows.end() - 30, rows.end()), rest(rows.begin(), rows.end() - 30);
  EXPECT_LT(new_ground_coverage(d, fit_widening(rest, 0.8)).by_kind.at("all").share(), 0.34);
}

// Rows of sources the model was never built on (BandHoldOut::unseen) set the source factor where they
// need more than the left-out families: families inside +/-10% need none, unseen rows spread +/-20% need
// about 1.6; with fewer than nine unseen rows the families' factor stands, and unseen rows that need less
// never narrow it.
TEST(BandGround, UnseenSourcesSetTheSourceFactorWhereTheyNeedMore) {
  ErrorBand b = grounded_band();
  b.set_edges(-0.1, 0.1);
  auto rows_of = [&](const std::string& family, double spread, int n, BandHoldOut how) {
    std::vector<NewGroundRow> out;
    for (int i = 0; i < n; ++i) {
      NewGroundRow r;
      r.row = HeldOutResidual(std::string(kBandTrainingDense), "blackwell_ultra", family,
                              -spread + 2 * spread * (i + 0.5) / n);
      r.band = b;
      r.distance.source = 1;
      r.held_out_by = how;
      out.push_back(r);
    }
    return out;
  };
  const std::string kind(kBandTrainingDense);
  std::vector<NewGroundRow> rows;
  for (const char* f : {"A", "B", "C"}) {
    auto fam = rows_of(f, 0.05, 30, BandHoldOut::source_family);
    rows.insert(rows.end(), fam.begin(), fam.end());
  }
  EXPECT_DOUBLE_EQ(fit_widening(rows, 0.8).at(kind).source, 1.0);
  std::vector<NewGroundRow> with_unseen = rows;
  const auto unseen = rows_of("U", 0.2, 100, BandHoldOut::unseen);
  with_unseen.insert(with_unseen.end(), unseen.begin(), unseen.end());
  const auto w = fit_widening(with_unseen, 0.8);
  EXPECT_NEAR(w.at(kind).source, 1.6, 0.02);
  EXPECT_NEAR(new_ground_coverage(unseen, w).by_kind.at("all").share(), 0.8, 0.011);
  // Eight unseen rows are fewer than a band needs: the families' factor stands.
  std::vector<NewGroundRow> few = rows;
  const auto eight = rows_of("U", 0.2, 8, BandHoldOut::unseen);
  few.insert(few.end(), eight.begin(), eight.end());
  EXPECT_DOUBLE_EQ(fit_widening(few, 0.8).at(kind).source, 1.0);
  // Families that need 1.6 keep it beside unseen rows that need none.
  std::vector<NewGroundRow> wide;
  for (const char* f : {"A", "B", "C"}) {
    auto fam = rows_of(f, 0.2, 30, BandHoldOut::source_family);
    wide.insert(wide.end(), fam.begin(), fam.end());
  }
  const double families_alone = fit_widening(wide, 0.8).at(kind).source;
  const auto near = rows_of("U", 0.05, 100, BandHoldOut::unseen);
  wide.insert(wide.end(), near.begin(), near.end());
  EXPECT_GT(families_alone, 1.5);
  EXPECT_DOUBLE_EQ(fit_widening(wide, 0.8).at(kind).source, families_alone);
  // The nested check scores the unseen family against the factor fitted without it: the families' 1.0.
  const auto nested = nested_new_ground_coverage(with_unseen, 0.8);
  EXPECT_EQ(nested.by_kind.at("all").rows, with_unseen.size());
  EXPECT_NEAR(nested.by_kind.at("all").share(), (90 + 50) / 190.0, 0.011);
}

// unseen_source_rows: each row against its band, off the ground along the source unless its source id
// (with the framework for serving rows) is among the band's sources.
TEST(BandGround, UnseenSourceRowsTakeTheirBandAndDistance) {
  ErrorBand b = grounded_band();
  b.ground.sources = {"mbridge-26.06"};
  HeldOutResidual known(std::string(kBandTrainingDense), "blackwell_ultra", "MBRIDGE", 0.3);
  known.source_id = "MBRIDGE-26.06";
  known.precision = "fp8";
  known.num_gpus = 64;
  known.params_b = 70;
  HeldOutResidual fresh = known;
  fresh.source_id = "MOSAICML-2024";
  fresh.precision = "bf16";
  const auto rows = unseen_source_rows({known, fresh}, {b});
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].held_out_by, BandHoldOut::unseen);
  EXPECT_DOUBLE_EQ(rows[0].distance.source, 0);
  EXPECT_DOUBLE_EQ(rows[1].distance.source, 1);
  EXPECT_DOUBLE_EQ(rows[1].distance.precision, 1);
  EXPECT_DOUBLE_EQ(rows[1].band.high_log, b.high_log);
}

// Off the ground a skewed band's thin side widens as much as its wide side (a new source's shift can go
// either way); a band symmetric about 0 widens as its edges times the multiplier.
TEST(BandGround, TheThinSideOfASkewedBandWidensAsMuchAsTheWideSide) {
  const LogEdges skewed = widened_log_edges(-0.15, 1.25, 1.2);
  EXPECT_NEAR(skewed.low_log, -0.15 - 0.14, 1e-12);
  EXPECT_NEAR(skewed.high_log, 1.25 + 0.14, 1e-12);
  const LogEdges even = widened_log_edges(-0.2, 0.2, 1.5);
  EXPECT_NEAR(even.low_log, -0.3, 1e-12);
  EXPECT_NEAR(even.high_log, 0.3, 1e-12);
  EXPECT_DOUBLE_EQ(widened_log_edges(-4.0, 4.5, 3.0).low_log, -5.0);  // clamped
}

ErrorBand serving_band_on(std::vector<std::string> engines, double engine_factor);

// A serving band states the engine its question named, or that none was; a training band has none.
TEST(BandGround, AServingBandSaysWhichEngineItsQuestionStated) {
  ErrorBand s = serving_band_on({"sglang"}, 1.4);
  const std::vector<ErrorBand> bands = {s, grounded_band()};
  EXPECT_EQ(band_for(bands, kBandServingAggTpot, "hopper", {false, "", 0, 0, "", "", ""}).engine, kBandEngineNotStated);
  EXPECT_EQ(band_for(bands, kBandServingAggTpot, "hopper", {false, "", 0, 0, "vllm", "", ""}).engine, "vllm");
  EXPECT_EQ(with_band(1.0, band_for(bands, kBandServingAggTpot, "hopper", {false, "", 0, 0, "", "", ""})).engine,
            kBandEngineNotStated);
  EXPECT_TRUE(band_for(bands, kBandTrainingDense, "blackwell_ultra", {false, "fp8", 8, 70, "", "", ""}).engine.empty());
}

// Rows of one source share its shift: with residuals that differ only between groups, a group of many
// rows weighs about as one row, so a new source counts as one more group.
TEST(BandGround, RowsWeighTheirSourcesEffectiveSample) {
  std::vector<NewGroundRow> rows;
  auto add = [&](const std::string& family, int n, double shift) {
    for (int i = 0; i < n; ++i) {
      NewGroundRow r;
      r.row = HeldOutResidual(std::string(kBandServingAggTtft), "hopper", family, shift + 1e-6 * i);
      rows.push_back(r);
    }
  };
  add("A", 90, 0.5);
  add("B", 5, -0.3);
  add("C", 5, 0.1);
  std::vector<const NewGroundRow*> p;
  std::vector<double> v;
  for (const auto& r : rows) {
    p.push_back(&r);
    v.push_back(r.row.log_ratio);
  }
  EXPECT_GT(intra_group_correlation(p, v), 0.99);
  const auto w = effective_weights(p, v);
  double a = 0, b = 0;
  for (size_t i = 0; i < rows.size(); ++i) (rows[i].row.family == "A" ? a : b) += w[i];
  EXPECT_NEAR(a, 1.0, 0.05);  // 90 rows of one shift: about one row's weight
  EXPECT_NEAR(b, 2.0, 0.1);
}

TEST(BandGround, GroundAndWideningRoundTripThroughTheBandFile) {
  ErrorBand b = grounded_band();
  b.ground.engines = {"sglang", "tensorrt-llm"};
  b.widening.engine = 1.25;
  b.ground.accelerators = {"b300", "gb300"};
  b.widening.accelerator = 1.125;
  const std::string yaml = error_bands_to_yaml({b}, "test");
  EXPECT_NE(yaml.find("accelerators: \"b300,gb300\""), std::string::npos);
  EXPECT_NE(yaml.find("widen_accelerator: 1.125"), std::string::npos);
  EXPECT_NE(yaml.find("precisions: \"fp8,nvfp4\""), std::string::npos);
  EXPECT_NE(yaml.find("widen_precision: 1.500"), std::string::npos);
  EXPECT_NE(yaml.find("gpus_max: 8192"), std::string::npos);
  EXPECT_NE(yaml.find("engines: \"sglang,tensorrt-llm\""), std::string::npos);
  EXPECT_NE(yaml.find("widen_engine: 1.250"), std::string::npos);
  // Source families hold commas, semicolons and quotes: a list of quoted strings, read back as written.
  b.ground.sources = {"trtllm / tensorrt-llm v0.17 (trt engine flow, trtllm-bench; gh200)", "x / \"quoted\""};
  const std::string with_sources = error_bands_to_yaml({b}, "test");
  EXPECT_NE(with_sources.find("    sources:\n      - \"trtllm / tensorrt-llm v0.17 (trt engine flow, trtllm-bench; "
                              "gh200)\"\n"),
            std::string::npos);
  YamlMap m(parse_yaml(with_sources, "test")["error_bands"][0], "error_bands[0]");
  EXPECT_EQ(parse_error_band(m, "test").ground.sources, b.ground.sources);
  // The rows' median: written, read back, kept by a widening, refused outside the edges.
  b.median_log = 0.05;
  const std::string with_median = error_bands_to_yaml({b}, "test");
  EXPECT_NE(with_median.find("    median_log: 0.0500\n"), std::string::npos);
  YamlMap mm(parse_yaml(with_median, "test")["error_bands"][0], "error_bands[0]");
  const ErrorBand back = parse_error_band(mm, "test");
  ASSERT_TRUE(back.median_log);
  EXPECT_DOUBLE_EQ(*back.median_log, 0.05);
  EXPECT_DOUBLE_EQ(*widen_band(back, ground_distance(back, {false, "bf16", 8, 70, "", "", ""})).median_log, 0.05);
  b.median_log = 0.3;  // above high_log 0.15
  YamlMap bad(parse_yaml(error_bands_to_yaml({b}, "test"), "test")["error_bands"][0], "error_bands[0]");
  try {
    parse_error_band(bad, "test");
    FAIL() << "accepted a median outside the band";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("median_log"), std::string::npos) << e.what();
  }
}

// A fitted band records its rows' median: the 50% predictive quantile, within the edges.
TEST(BandGround, AFittedBandRecordsItsRowsMedian) {
  std::vector<double> r;
  for (int i = 0; i < 99; ++i) r.push_back(i < 80 ? 0.01 * i : 0.5 + 0.05 * i);  // skewed upwards
  const auto e = predictive_band(r, 0.8);
  ASSERT_TRUE(e);
  ASSERT_TRUE(e->median_log);
  EXPECT_NEAR(*e->median_log, 0.49, 1e-12);  // the 50th of 99
  EXPECT_LT(*e->median_log, 0.5 * (e->low_log + e->high_log));
}

ErrorBand serving_band_on(std::vector<std::string> engines, double engine_factor) {
  ErrorBand b;
  b.kind = std::string(kBandServingAggTpot);
  b.generation = "hopper";
  b.set_edges(-0.2, 0.25);
  b.ground.engines = std::move(engines);
  b.widening.engine = engine_factor;
  return b;
}

// The serving engine is a dimension: an engine with too few fitted rows of the kind on the generation
// gets the wider band, and says which; one on the ground, or none stated, does not.
TEST(BandGround, AnEngineOffTheGroundWidensAndSaysWhich) {
  const ErrorBand b = serving_band_on({"sglang", "tensorrt-llm"}, 1.4);
  BandQuestion q{true, "", 0, 0, "vllm", "", ""};
  const GroundDistance d = ground_distance(b, q);
  EXPECT_DOUBLE_EQ(d.engine, 1);
  const ErrorBand w = widen_band(b, d);
  EXPECT_NEAR(w.high_log, 0.25 + 0.4 * 0.225, 1e-12);
  EXPECT_NEAR(w.low_log, -0.2 - 0.4 * 0.225, 1e-12);
  ASSERT_EQ(w.widened_by.size(), 1u);
  EXPECT_EQ(w.widened_by[0],
            "engine vllm has too few fitted serving_aggregated_tpot rows on hopper (fitted: sglang, tensorrt-llm)");
  for (const char* on : {"sglang", "SGLang", ""}) {
    q.engine = on;
    EXPECT_DOUBLE_EQ(ground_distance(b, q).engine, 0) << on;
    EXPECT_DOUBLE_EQ(widen_band(b, ground_distance(b, q)).high_log, 0.25) << on;
  }
  // A band without recorded engines (a training band, an older band file): not known, no widening.
  q.engine = "vllm";
  EXPECT_DOUBLE_EQ(ground_distance(serving_band_on({}, 1.4), q).engine, 0);
}

// A reason is listed only where its dimension's fitted factor widens the band: a factor of 1.00 adds
// nothing, so the basis does not name it.
TEST(BandGround, ReasonsListOnlyTheDimensionsThatWiden) {
  ErrorBand b = grounded_band();
  b.ground.engines = {"sglang"};
  b.widening = {1.0, 1.5, 1.0, 1.0, 1.0, 1.0};  // only precision widens
  const ErrorBand w = widen_band(b, ground_distance(b, {false, "bf16", 16384, 2000, "vllm", "", ""}));
  ASSERT_EQ(w.widened_by.size(), 1u);
  EXPECT_EQ(w.widened_by[0], "precision bf16 never fitted on blackwell_ultra (fitted: fp8, nvfp4)");
  EXPECT_NEAR(w.high_log, 0.15 + 0.5 * 0.125, 1e-12);
  // Every factor 1: the band is the fitted one, with no reasons, however far off the question lies.
  b.widening = {};
  const ErrorBand same = widen_band(b, ground_distance(b, {false, "bf16", 16384, 2000, "vllm", "", ""}));
  EXPECT_TRUE(same.widened_by.empty());
  EXPECT_DOUBLE_EQ(same.high_log, b.high_log);
  EXPECT_DOUBLE_EQ(widening_factor(b.widening, "engine"), 1.0);
  EXPECT_DOUBLE_EQ(widening_factor({1.1, 1.2, 1.3, 1.4, 1.5, 1.6}, "engine"), 1.5);
  EXPECT_DOUBLE_EQ(widening_factor({1.1, 1.2, 1.3, 1.4, 1.5, 1.6}, "accelerator"), 1.6);
}

HeldOutResidual engine_row(const std::string& family, const std::string& engine, double log_ratio) {
  HeldOutResidual h(std::string(kBandServingAggTpot), "hopper", family, log_ratio);
  h.engine = engine;
  h.precision = "fp8";
  h.num_gpus = 8;
  h.params_b = 70;
  return h;
}

// The ground records an engine only with enough rows for a band of its own (min_band_rows).
TEST(BandGround, TheGroundRecordsEnginesWithEnoughRows) {
  std::vector<HeldOutResidual> rows;
  for (int i = 0; i < 9; ++i) rows.push_back(engine_row("A / SGLang", "sglang", 0.01 * i));
  for (int i = 0; i < 8; ++i) rows.push_back(engine_row("B / vLLM", "vllm", 0.01 * i));
  std::vector<ErrorBand> bands = fit_error_bands(rows, rows);
  attach_ground(bands, rows, min_band_rows(0.8));
  const ErrorBand& b = find_band(bands, kBandServingAggTpot, "hopper");
  EXPECT_EQ(b.ground.engines, std::vector<std::string>{"sglang"});
}

// Leave-one-engine-out: each engine's rows against bands fitted without any row it ran (whichever source
// measured it); the engine factor is fitted on those rows alone, the others on the source families'.
TEST(BandGround, TheEngineFactorIsFittedLeavingOneEngineOut) {
  std::vector<HeldOutResidual> rows;
  // Three engines, each measured by two sources; sglang and trtllm agree (+/-5%), vllm runs ~10% faster
  // than predicted (its rows lie outside a band fitted on the other two).
  for (const char* src : {"A", "B"}) {
    for (int i = 0; i < 12; ++i) {
      const double x = -0.05 + 0.1 * (i + 0.5) / 12;
      rows.push_back(engine_row(std::string(src) + " / sglang", "sglang", x));
      rows.push_back(engine_row(std::string(src) + " / trtllm", "tensorrt-llm", x));
      rows.push_back(engine_row(std::string(src) + " / vllm", "vllm", 0.1 + x));
    }
  }
  BandFitOptions o;
  o.min_families = 2;
  const auto by_engine = new_ground_rows(rows, rows, o, {}, BandHoldOut::engine);
  ASSERT_EQ(by_engine.size(), rows.size());
  size_t vllm_off = 0;
  for (const auto& r : by_engine) {
    EXPECT_EQ(r.held_out_by, BandHoldOut::engine);
    EXPECT_DOUBLE_EQ(r.distance.engine, 1) << r.row.engine;  // its engine is off the others' ground
    vllm_off += r.row.engine == "vllm" ? 1 : 0;
  }
  EXPECT_EQ(vllm_off, 24u);
  // By source family every engine stays on the ground (the other source ran it): no engine distance.
  const auto by_source = new_ground_rows(rows, rows, o, {});
  for (const auto& r : by_source) EXPECT_DOUBLE_EQ(r.distance.engine, 0) << r.row.family;
  std::vector<NewGroundRow> all = by_source;
  all.insert(all.end(), by_engine.begin(), by_engine.end());
  const auto w = fit_widening(all, 0.8);
  const std::string domain = band_domain(rows.front().kind);
  ASSERT_TRUE(w.count(domain));
  EXPECT_GT(w.at(domain).engine, 1.05);
  // Without the engine pass nothing is off the ground along the engine: factor 1.
  EXPECT_DOUBLE_EQ(fit_widening(by_source, 0.8).at(domain).engine, 1.0);
  // The widened bands hold more of the left-out engines' rows than the unwidened ones.
  EXPECT_GT(new_ground_coverage(by_engine, w).by_kind.at("all").share(),
            new_ground_coverage(by_engine, {}).by_kind.at("all").share());
  EXPECT_EQ(off_ground_counts(by_engine).at("engine"), by_engine.size());
}

}  // namespace
}  // namespace gpuplan
