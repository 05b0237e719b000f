// Error bands off the data: distance from a band's ground, widening, and its fit on left-out rows.
#include <gtest/gtest.h>

#include <cmath>

#include "catalog/error_band.h"
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
  const ErrorBand w = widen_band(b, ground_distance(b, {true, "fp8", 512, 70}));
  EXPECT_DOUBLE_EQ(w.low_log, b.low_log);
  EXPECT_DOUBLE_EQ(w.high_log, b.high_log);
  EXPECT_TRUE(w.widened_by.empty());
}

TEST(BandGround, EachDimensionOffTheGroundWidensAndSaysWhy) {
  const ErrorBand b = grounded_band();
  const GroundDistance d = ground_distance(b, {false, "bf16", 16384, 70});
  EXPECT_DOUBLE_EQ(d.source, 1);
  EXPECT_DOUBLE_EQ(d.precision, 1);
  EXPECT_DOUBLE_EQ(d.scale, 1);  // log2(16384 / 8192)
  EXPECT_DOUBLE_EQ(d.model_size, 0);
  const ErrorBand w = widen_band(b, d);
  EXPECT_NEAR(w.high_log, 0.15 * 1.3 * 1.5 * 1.4, 1e-12);
  ASSERT_EQ(w.widened_by.size(), 3u);
  EXPECT_EQ(w.widened_by[1], "precision bf16 never fitted on blackwell_ultra (fitted: fp8, nvfp4)");
  EXPECT_EQ(w.widened_by[2], "scale 16384 GPUs above fitted 8192");
  // Half a doubling below the smallest fitted model: half the distance.
  EXPECT_NEAR(ground_distance(b, {true, "", 0, 8 / std::sqrt(2.0)}).model_size, 0.5, 1e-12);
  // The unfitted band is already the widest: no ground, no widening.
  ErrorBand u = b;
  u.generation = std::string(kBandUnfitted);
  EXPECT_DOUBLE_EQ(widen_band(u, ground_distance(u, {false, "bf16", 1 << 20, 2000})).high_log, b.high_log);
}

// A question farther from the data never gets a narrower band, along any dimension.
TEST(BandGround, FartherNeverNarrower) {
  const ErrorBand b = grounded_band();
  double last_hi = 0, last_lo = 0;
  for (int gpus = 8192; gpus <= 8192 * 64; gpus *= 2) {
    for (double params : {405.0, 600.0, 810.0, 2000.0}) {
      const ErrorBand w = widen_band(b, ground_distance(b, {false, "bf16", gpus, params}));
      EXPECT_GE(w.high_log, b.high_log);
      EXPECT_LE(w.low_log, b.low_log);
      const ErrorBand nearer = widen_band(b, ground_distance(b, {false, "bf16", gpus, 405.0}));
      EXPECT_GE(w.high_log, nearer.high_log);
    }
    const ErrorBand w = widen_band(b, ground_distance(b, {false, "bf16", gpus, 405.0}));
    EXPECT_GE(w.high_log, last_hi);
    EXPECT_LE(w.low_log, last_lo);
    last_hi = w.high_log;
    last_lo = w.low_log;
  }
  // Adding an off-ground dimension never narrows it either.
  const GroundDistance known = ground_distance(b, {true, "fp8", 64, 70});
  const GroundDistance fresh = ground_distance(b, {false, "fp8", 64, 70});
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

TEST(BandGround, GroundAndWideningRoundTripThroughTheBandFile) {
  const ErrorBand b = grounded_band();
  const std::string yaml = error_bands_to_yaml({b}, "test");
  EXPECT_NE(yaml.find("precisions: \"fp8,nvfp4\""), std::string::npos);
  EXPECT_NE(yaml.find("widen_precision: 1.500"), std::string::npos);
  EXPECT_NE(yaml.find("gpus_max: 8192"), std::string::npos);
}

}  // namespace
}  // namespace gpuplan
