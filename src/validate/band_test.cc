// Error bands: fitted from held-out residuals, wider where rows are few, widest where nothing was
// measured; lookups, reciprocals, ratios and overlap.
#include <gtest/gtest.h>

#include <cmath>

#include "catalog/catalog.h"
#include "validate/band_fit.h"

namespace gpuplan {
namespace {

// Residuals spread evenly over [-0.2, 0.2], `copies` times over, from two families.
std::vector<HeldOutResidual> spread(const std::string& gen, int copies) {
  std::vector<HeldOutResidual> v;
  for (int c = 0; c < copies; ++c)
    for (int i = 0; i <= 10; ++i)
      v.push_back({std::string(kBandTrainingDense), gen, c % 2 ? "A" : "B", -0.2 + 0.04 * i});
  return v;
}

double width(const ErrorBand& b) { return b.high_log - b.low_log; }

TEST(ErrorBand, WidthGrowsAsRowsAreRemoved) {
  double last = 0;
  for (int copies : {20, 5, 2, 1}) {
    const auto bands = fit_error_bands(spread("hopper", copies), {});
    const double w = width(find_band(bands, kBandTrainingDense, "hopper"));
    EXPECT_GT(w, last) << copies << " copies";
    last = w;
  }
}

TEST(ErrorBand, FewFamiliesThatDisagreeWidenTheBand) {
  // The same rows, each family shifted by its own offset: fewer families leave a new family's shift
  // less known (t quantile with fewer degrees of freedom), so the band widens; families that agree
  // add nothing.
  auto families = [](int n, double offset) {
    std::vector<HeldOutResidual> v;
    for (int f = 0; f < n; ++f)
      for (int i = 0; i <= 20; ++i)
        v.push_back({std::string(kBandTrainingDense), "hopper", std::string(1, char('A' + f)),
                     (f % 2 ? offset : -offset) + (f / 2) * 0.01 - 0.1 + 0.01 * i});
    return v;
  };
  auto w = [](const std::vector<HeldOutResidual>& v) {
    return width(find_band(fit_error_bands(v, {}), kBandTrainingDense, "hopper"));
  };
  const double agree = w(families(6, 0.0)), six = w(families(6, 0.1)), two = w(families(2, 0.1));
  EXPECT_GT(six, agree * 1.3);
  EXPECT_GT(two, six);  // 42 rows against 126, but mostly: 1 degree of freedom against 5
  // Under leave-one-family-out, the held-out families' rows land inside bands fitted without them.
  const auto cov = band_coverage_lofo(families(6, 0.1), {});
  EXPECT_GE(cov.at("all").share(), 0.70);
}

TEST(ErrorBand, NominalEightyPercentHoldsOnItsRows) {
  const auto rows = spread("hopper", 20);
  const auto bands = fit_error_bands(rows, {});
  const auto cov = band_coverage(rows, bands);
  EXPECT_GE(cov.at("all").share(), 0.80);
  EXPECT_LE(cov.at("all").share(), 0.95);  // widened for finite rows, not unbounded
}

TEST(ErrorBand, UnfittedGenerationHasTheWidestBand) {
  auto held = spread("hopper", 4);
  for (auto& h : spread("blackwell", 1)) held.push_back({h.kind, h.generation, h.family, 2.0 * h.log_ratio});
  std::vector<HeldOutResidual> prior;
  for (int i = 0; i <= 10; ++i) prior.push_back({std::string(kBandTrainingDense), "hopper", "A", -0.1 + 0.02 * i});
  const auto bands = fit_error_bands(held, prior);
  const ErrorBand& unfitted = find_band(bands, kBandTrainingDense, "no_such_generation");
  EXPECT_EQ(unfitted.generation, kBandUnfitted);
  for (const auto& b : bands) {
    if (b.kind != kBandTrainingDense || b.generation == kBandUnfitted) continue;
    EXPECT_LT(unfitted.low_log, b.low_log) << b.generation;
    EXPECT_GT(unfitted.high_log, b.high_log) << b.generation;
  }
  // A kind nobody measured gets a band as wide as the widest unfitted one.
  const ErrorBand& none = find_band(bands, kBandServingDisaggLatency, "hopper");
  EXPECT_EQ(none.rows, 0);
  EXPECT_LE(none.low_log, unfitted.low_log);
  EXPECT_GE(none.high_log, unfitted.high_log);
}

TEST(ErrorBand, BuiltinBandsCoverEveryKindAndTheUnfittedIsWidest) {
  const Catalog catalog = Catalog::builtin();
  const auto& bands = catalog.error_bands();
  ASSERT_FALSE(bands.empty());
  for (const auto& kind : band_kinds()) {
    const ErrorBand& u = find_band(bands, kind, "a_generation_nobody_measured");
    EXPECT_EQ(u.generation, kBandUnfitted) << kind;
    for (const auto& b : bands)
      if (b.kind == kind) {
        EXPECT_LE(u.low_log, b.low_log) << kind << " " << b.generation;
        EXPECT_GE(u.high_log, b.high_log) << kind << " " << b.generation;
      }
  }
  const ErrorBand& h = find_band(bands, kBandTrainingDense, "hopper");
  EXPECT_EQ(h.generation, "hopper");
  EXPECT_GT(h.rows, 10);
  EXPECT_GE(h.families, 2);
}

TEST(ErrorBand, ReciprocalRatioAndOverlap) {
  ErrorBand b;
  b.kind = std::string(kBandTrainingDense);
  b.set_edges(std::log(0.9), std::log(1.2));
  const BandedFigure rate = with_band(100.0, b);
  EXPECT_NEAR(rate.low, 90.0, 1e-9);
  EXPECT_NEAR(rate.high, 120.0, 1e-9);
  EXPECT_NEAR(rate.plus_minus_pct(), 20.0, 1e-9);
  // A step time under a throughput band: a 20% faster truth is a 1/1.2 shorter time.
  const BandedFigure time = with_band(10.0, b, /*reciprocal=*/true);
  EXPECT_NEAR(time.low, 10.0 / 1.2, 1e-9);
  EXPECT_NEAR(time.high, 10.0 / 0.9, 1e-9);
  // A ratio of two independent figures is wider than either side, and contains the ratio.
  const BandedFigure r = ratio_band(rate, with_band(50.0, b));
  EXPECT_NEAR(r.value, 2.0, 1e-12);
  EXPECT_LT(r.low, 2.0);
  EXPECT_GT(r.high, 2.0);
  EXPECT_GT(std::log(r.high / r.low), std::log(rate.high / rate.low));
  EXPECT_TRUE(bands_overlap(rate, with_band(110.0, b)));
  EXPECT_FALSE(bands_overlap(rate, with_band(200.0, b)));
}

TEST(ErrorBand, BadBandFileNamesTheField) {
  Catalog c = Catalog::builtin();
  EXPECT_THROW(c.merge_yaml("error_bands:\n  - {kind: training_dense, generation: hopper, low_log: 0.2, high_log: 0.3}\n",
                            "test"),
               InputError);
  EXPECT_THROW(c.merge_yaml("error_bands:\n  - {kind: nonsense, generation: hopper, low_log: -0.2, high_log: 0.3}\n",
                            "test"),
               InputError);
  c.merge_yaml("error_bands:\n  - {kind: training_dense, generation: hopper, low_log: -0.5, high_log: 0.5}\n", "test");
  EXPECT_DOUBLE_EQ(find_band(c.error_bands(), kBandTrainingDense, "hopper").high_log, 0.5);
}

}  // namespace
}  // namespace gpuplan
