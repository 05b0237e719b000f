// Error bands: fitted from held-out residuals, wider where rows are few, widest where nothing was
// measured; lookups, reciprocals, ratios and overlap.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

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

// Standard normal quantile (bisection on erfc).
double normal_quantile(double p) {
  double lo = -10, hi = 10;
  for (int i = 0; i < 100; ++i) {
    const double mid = 0.5 * (lo + hi);
    (0.5 * std::erfc(-mid / std::sqrt(2.0)) < p ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

// n residuals at the expected order statistics of a normal of spread `sd` (Blom's positions
// (i - 3/8)/(n + 1/4)), in turn from three families.
std::vector<HeldOutResidual> normal_sample(const std::string& gen, int n, double sd = 0.1) {
  std::vector<HeldOutResidual> v;
  for (int i = 1; i <= n; ++i)
    v.push_back({std::string(kBandTrainingDense), gen, std::string(1, char('A' + i % 3)),
                 sd * normal_quantile((i - 0.375) / (n + 0.25))});
  return v;
}

TEST(ErrorBand, PredictiveQuantilesOfAKnownSample) {
  // 1..99: the 10% and 90% quantiles at position p(n+1) are the 10th and 90th values.
  std::vector<double> v;
  for (int i = 1; i <= 99; ++i) v.push_back(i);
  EXPECT_DOUBLE_EQ(*predictive_quantile(v, 0.1), 10.0);
  EXPECT_DOUBLE_EQ(*predictive_quantile(v, 0.9), 90.0);
  EXPECT_DOUBLE_EQ(*predictive_quantile(v, 0.5), 50.0);
  EXPECT_DOUBLE_EQ(*predictive_quantile(v, 0.105), 10.5);  // interpolated between order statistics
  // 9 rows is the fewest with both 80% tails (positions 1 and 9: the extremes); 8 have none.
  EXPECT_EQ(min_band_rows(0.80), 9);
  EXPECT_EQ(min_band_rows(0.90), 19);
  v.assign({-0.3, -0.2, -0.1, 0.0, 0.05, 0.1, 0.15, 0.2, 0.4});
  const auto e = predictive_band(v, 0.80);
  ASSERT_TRUE(e);
  EXPECT_DOUBLE_EQ(e->low_log, -0.3);
  EXPECT_DOUBLE_EQ(e->high_log, 0.4);
  v.pop_back();
  EXPECT_FALSE(predictive_band(v, 0.80));
  // A sample whose plotting positions are exact: i/(n+1) quantiles of a normal of spread 0.1 give
  // back its 10% and 90% points, +/-0.1282.
  std::vector<double> exact;
  for (int i = 1; i <= 199; ++i) exact.push_back(0.1 * normal_quantile(i / 200.0));
  const auto n = predictive_band(exact, 0.80);
  ASSERT_TRUE(n);
  EXPECT_NEAR(n->low_log, -0.128155, 1e-5);
  EXPECT_NEAR(n->high_log, 0.128155, 1e-5);
  // The band always holds the prediction: a sample all above 0 is stretched down to 0.
  std::vector<double> up(20, 0.3);
  EXPECT_EQ(predictive_band(up, 0.80)->low_log, 0.0);
  // On its own rows, the band of a generation holds about the nominal share.
  const auto rows = normal_sample("hopper", 199);
  const auto cov = band_coverage(rows, fit_error_bands(rows, {}));
  EXPECT_GE(cov.by_kind.at("all").share(), 0.78);
  EXPECT_LE(cov.by_kind.at("all").share(), 0.82);
}

TEST(ErrorBand, TooFewRowsOrFamiliesTakeTheKindsPooledBand) {
  auto held = normal_sample("hopper", 60, 0.1);
  // 8 rows of blackwell (under 9), 30 of ampere from two families and 20 of volta from one, all much
  // narrower.
  for (const auto& h : normal_sample("blackwell", 8, 0.01)) held.push_back(h);
  for (auto h : normal_sample("ampere", 30, 0.01)) held.push_back({h.kind, h.generation, h.family == "A" ? "B" : h.family, h.log_ratio});
  for (auto h : normal_sample("volta", 20, 0.01)) held.push_back({h.kind, h.generation, "C", h.log_ratio});
  const auto bands = fit_error_bands(held, {});
  const ErrorBand& hopper = find_band(bands, kBandTrainingDense, "hopper");
  EXPECT_EQ(hopper.rows, 60);
  EXPECT_EQ(hopper.families, 3);
  std::vector<double> all;
  for (const auto& h : held) all.push_back(h.log_ratio);
  const auto pooled = *predictive_band(all, 0.80);
  for (const std::string gen : {"blackwell", "ampere", "volta"}) {
    const ErrorBand& b = find_band(bands, kBandTrainingDense, gen);
    EXPECT_EQ(b.generation, gen);
    EXPECT_EQ(b.rows, 118) << gen;  // the basis is the pooled sample's
    EXPECT_EQ(b.families, 3) << gen;
    EXPECT_DOUBLE_EQ(b.low_log, pooled.low_log) << gen;
    EXPECT_DOUBLE_EQ(b.high_log, pooled.high_log) << gen;
  }
  // A kind with under 9 rows takes their range.
  const std::vector<HeldOutResidual> few = {{std::string(kBandTrainingMoe), "hopper", "A", -0.2},
                                            {std::string(kBandTrainingMoe), "hopper", "B", 0.1},
                                            {std::string(kBandTrainingMoe), "hopper", "B", 0.3}};
  const std::vector<ErrorBand> few_bands = fit_error_bands(few, {});
  const ErrorBand& moe = find_band(few_bands, kBandTrainingMoe, "hopper");
  EXPECT_DOUBLE_EQ(moe.low_log, -0.2);
  EXPECT_DOUBLE_EQ(moe.high_log, 0.3);
}

TEST(ErrorBand, WidthGrowsAsRowsAreRemoved) {
  // Fewer rows take more extreme order statistics of the same distribution.
  double last = 0;
  for (int n : {399, 99, 39, 19, 9}) {
    const double w = width(find_band(fit_error_bands(normal_sample("hopper", n), {}), kBandTrainingDense, "hopper"));
    EXPECT_GT(w, last) << n << " rows";
    last = w;
  }
}

TEST(ErrorBand, MoreSpreadNeverNarrowsTheBand) {
  // Property: residuals spread further from the prediction (each scaled by s >= 1) give a band that
  // holds the first one, whatever the sample (random sizes, skews, families and generations).
  std::mt19937 rng(13);
  std::uniform_int_distribution<int> size(1, 80), fam(0, 3), gen(0, 2);
  std::lognormal_distribution<double> skew(0.0, 0.5);
  std::normal_distribution<double> z(0.0, 0.15);
  std::uniform_real_distribution<double> more(1.0, 3.0);
  const std::string gens[] = {"ampere", "hopper", "blackwell"};
  for (int trial = 0; trial < 300; ++trial) {
    std::vector<HeldOutResidual> v;
    const double k = skew(rng), centre = 0.5 * z(rng);
    for (int i = 0, n = size(rng); i < n; ++i) {
      const double x = z(rng);
      v.push_back({std::string(kBandTrainingDense), gens[gen(rng)], std::string(1, char('A' + fam(rng))),
                   centre + (x > 0 ? k * x : x)});
    }
    const double s = more(rng);
    auto wider = v;
    for (auto& h : wider) h.log_ratio *= s;
    const auto a = fit_error_bands(v, {}), b = fit_error_bands(wider, {});
    for (const std::string g : {"ampere", "hopper", "blackwell", "volta"}) {
      const ErrorBand &x = find_band(a, kBandTrainingDense, g), &y = find_band(b, kBandTrainingDense, g);
      EXPECT_LE(y.low_log, x.low_log + 1e-12) << trial << " " << g;
      EXPECT_GE(y.high_log, x.high_log - 1e-12) << trial << " " << g;
    }
  }
}

TEST(ErrorBand, LeaveOneFamilyOutCoverageIsCountedPerKindAndFile) {
  auto held = normal_sample("hopper", 99);
  for (size_t i = 0; i < held.size(); ++i) {
    held[i].family = std::string(1, char('A' + i % 5));
    held[i].file = i % 3 ? "training.csv" : "other.csv";
  }
  const auto cov = band_coverage_lofo(held, {});
  EXPECT_EQ(cov.by_kind.at("all").rows, 99u);
  EXPECT_EQ(cov.by_file.at("training.csv").at("all").rows, 66u);
  EXPECT_EQ(cov.by_file.at("other.csv").at(std::string(kBandTrainingDense)).rows, 33u);
  EXPECT_GE(cov.by_kind.at("all").share(), 0.70);
  EXPECT_LE(cov.by_kind.at("all").share(), 0.90);
}

TEST(ErrorBand, NominalEightyPercentHoldsOnItsRows) {
  const auto rows = spread("hopper", 20);
  const auto bands = fit_error_bands(rows, {});
  const auto cov = band_coverage(rows, bands);
  EXPECT_GE(cov.by_kind.at("all").share(), 0.80);
  EXPECT_LE(cov.by_kind.at("all").share(), 0.90);  // widened for finite rows, not unbounded
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
  const ErrorBand& none = find_band(bands, kBandServingDisaggTtft, "hopper");
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

TEST(ErrorBand, EachServingFigureHasItsOwnKind) {
  InferenceCase c;
  const auto kind = [&](const char* metric, const char* deployment) {
    c.metric = metric;
    c.deployment = deployment;
    return band_kind_of(c);
  };
  EXPECT_EQ(kind("ttft_ms", "aggregated"), kBandServingAggTtft);
  EXPECT_EQ(kind("tpot_ms", "aggregated"), kBandServingAggTpot);
  EXPECT_EQ(kind("tokens_per_sec_per_user", "aggregated"), kBandServingAggTpot);
  EXPECT_TRUE(band_reciprocal_of(c));  // tokens/s per user under the TPOT band
  EXPECT_EQ(kind("tokens_per_sec_per_gpu", "aggregated"), kBandServingAggThroughput);
  EXPECT_EQ(kind("tokens_per_sec_total", "aggregated"), kBandServingAggThroughput);
  EXPECT_EQ(kind("ttft_ms", "disaggregated"), kBandServingDisaggTtft);
  EXPECT_EQ(kind("tpot_ms", "disaggregated"), kBandServingDisaggTpot);
  EXPECT_EQ(kind("tokens_per_sec_per_gpu", "disaggregated"), kBandServingDisaggThroughput);
  // The shipped bands, fitted on held-out rows: TTFT's errors spread wider than the decode interval's
  // on every generation measured on both (the reason they are separate kinds).
  const Catalog catalog = Catalog::builtin();
  for (const char* gen : {"hopper", "blackwell"})
    for (bool disagg : {false, true}) {
      const ErrorBand& tpot = find_band(catalog.error_bands(), serving_band_kind(disagg, ServingFigure::tpot), gen);
      const ErrorBand& ttft = find_band(catalog.error_bands(), serving_band_kind(disagg, ServingFigure::ttft), gen);
      EXPECT_GT(ttft.rows, 0) << gen << disagg;
      EXPECT_GT(ttft.high_log - ttft.low_log, tpot.high_log - tpot.low_log) << gen << " disaggregated " << disagg;
    }
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

TEST(ErrorBand, CorrelatedSidesNarrowTheRatioBand) {
  ErrorBand b;
  b.kind = std::string(kBandServingAggThroughput);
  b.generation = "hopper";
  b.set_edges(std::log(0.8), std::log(1.25));
  const BandedFigure a = with_band(100.0, b), c = with_band(50.0, b);
  BandCorrelation corr;
  // Independent (the default) is the quadrature rule.
  const BandedFigure indep = ratio_band(a, c);
  EXPECT_NEAR(std::log(indep.high / indep.low), std::sqrt(2.0) * std::log(1.25 / 0.8), 1e-12);
  EXPECT_NEAR(std::log(ratio_band(a, c, corr).high), std::log(indep.high), 1e-12);
  // One generation: the same-generation correlation; the more the sides move together, the narrower.
  corr.same_generation = 0.5;
  corr.cross_generation = 0.2;
  double last = 1e9;
  for (double rho : {0.0, 0.3, 0.6, 0.9}) {
    corr.same_generation = rho;
    const BandedFigure r = ratio_band(a, c, corr);
    EXPECT_NEAR(r.value, 2.0, 1e-12);
    EXPECT_LT(r.low, 2.0);
    EXPECT_GT(r.high, 2.0);
    EXPECT_LT(std::log(r.high / r.low), last);
    last = std::log(r.high / r.low);
    EXPECT_NEAR(std::log(r.high / r.low), std::sqrt(2 * (1 - rho)) * std::log(1.25 / 0.8), 1e-12);
  }
  // Equal bands moving as one: no error left in the ratio.
  corr.same_generation = 1;
  EXPECT_NEAR(ratio_band(a, c, corr).low, 2.0, 1e-12);
  // Two generations take the cross-generation figure; the unfitted band is no generation's own.
  ErrorBand other = b;
  other.generation = "blackwell";
  corr.cross_generation = 0;
  EXPECT_NEAR(ratio_band(a, with_band(50.0, other), corr).high, indep.high, 1e-12);
  ErrorBand unfitted = b;
  unfitted.generation = std::string(kBandUnfitted);
  EXPECT_NEAR(ratio_band(with_band(100.0, unfitted), with_band(50.0, unfitted), corr).high, indep.high, 1e-12);
}

TEST(ErrorBand, ProbabilityAtLeastReadsTheBandAsItsQuantiles) {
  ErrorBand b;
  b.kind = std::string(kBandTrainingDense);
  b.set_edges(std::log(0.8), std::log(1.25));
  const BandedFigure f = with_band(2.0, b);
  EXPECT_NEAR(probability_at_least(f, 2.0), 0.5, 1e-9);   // the band is centred on the value
  EXPECT_NEAR(probability_at_least(f, f.high), 0.1, 1e-9);  // its edges are the 10% and 90% quantiles
  EXPECT_NEAR(probability_at_least(f, f.low), 0.9, 1e-9);
  double last = 1;
  for (double t = 1.0; t <= 3.0; t += 0.1) {
    const double p = probability_at_least(f, t);
    EXPECT_LE(p, last);
    EXPECT_GE(p, 0);
    last = p;
  }
  BandedFigure exact;
  exact.value = exact.low = exact.high = 2.0;
  EXPECT_EQ(probability_at_least(exact, 1.9), 1.0);
  EXPECT_EQ(probability_at_least(exact, 2.1), 0.0);
}

// Pairs of residuals drawn from a bivariate normal of correlation `rho`, each side's band the exact 80%
// interval of its spread: the fit recovers the correlation, and holds the nominal share.
TEST(ErrorBand, CorrelationFitRecoversTheDrawnCorrelation) {
  std::mt19937_64 rng(11);
  std::normal_distribution<double> n01;
  const double z90 = 1.2815515655446004;
  for (double rho : {0.0, 0.5, 0.8}) {
    std::vector<BandPair> pairs;
    for (int i = 0; i < 20000; ++i) {
      const double x = n01(rng), y = rho * x + std::sqrt(1 - rho * rho) * n01(rng);
      BandPair p;
      p.residual_a = 0.2 * x;
      p.residual_b = 0.1 * y;
      p.half_a = 0.2 * z90;
      p.half_b = 0.1 * z90;
      p.same_generation = i % 2 == 0;
      pairs.push_back(p);
    }
    const BandCorrelation c = fit_band_correlation(pairs, 0.8);
    EXPECT_NEAR(c.same_generation, rho, 0.04) << rho;
    EXPECT_NEAR(c.cross_generation, rho, 0.04) << rho;
    EXPECT_GE(c.same_generation, c.cross_generation);
    std::vector<BandPair> cross;
    for (const auto& p : pairs)
      if (!p.same_generation) cross.push_back(p);
    EXPECT_GE(pair_coverage(cross, c.cross_generation), 0.8);
    EXPECT_EQ(c.pairs_same + c.pairs_cross, 20000);
  }
  // Too few pairs measure nothing: independent.
  std::vector<BandPair> few(10);
  EXPECT_EQ(fit_band_correlation(few, 0.8).same_generation, 0.0);
}

// Rows of one question on two accelerators pair up; other rows do not.
TEST(ErrorBand, RowsOfOneQuestionOnTwoAcceleratorsPairUp) {
  std::vector<HeldOutResidual> v;
  auto row = [&](const std::string& gen, const std::string& acc, const std::string& key, double r) {
    HeldOutResidual h(std::string(kBandTrainingDense), gen, "F", r);
    h.accelerator = acc;
    h.pair_key = key;
    v.push_back(h);
  };
  row("hopper", "h100", "q1", 0.1);
  row("hopper", "h200", "q1", 0.2);
  row("blackwell", "b200", "q1", -0.1);
  row("hopper", "h100", "q1", 0.5);  // a second row of the same accelerator: the first counts
  row("hopper", "h100", "q2", 0.1);  // alone on its question
  row("hopper", "h200", "", 0.1);    // no question
  const auto pairs = band_pairs(v, {});
  ASSERT_EQ(pairs.size(), 3u);
  int same = 0;
  for (const auto& p : pairs) same += p.same_generation;
  EXPECT_EQ(same, 1);
}

TEST(ErrorBand, BuiltinCorrelationIsFittedAndInRange) {
  Catalog cat = Catalog::builtin();
  const BandCorrelation c = cat.band_correlation();
  EXPECT_GT(c.pairs_same, 0);
  EXPECT_GT(c.pairs_cross, 0);
  EXPECT_GE(c.cross_generation, 0);
  EXPECT_LE(c.cross_generation, c.same_generation);
  EXPECT_LE(c.same_generation, 1);
  EXPECT_THROW(cat.merge_yaml("error_band_correlation: {same_generation: 1.5, cross_generation: 0.2}\n", "test"),
               InputError);
  EXPECT_THROW(cat.merge_yaml("error_band_correlation: {same_generation: 0.5, cross_generation: 0.2, typo: 1}\n", "test"),
               InputError);
  EXPECT_THROW(cat.merge_yaml("error_band_correlation: {same_generation: 0.2, cross_generation: 0.5}\n", "test"),
               InputError);
  cat.merge_yaml("error_band_correlation: {same_generation: 0.5, cross_generation: 0.2}\n", "test");
  EXPECT_EQ(cat.band_correlation().same_generation, 0.5);
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
