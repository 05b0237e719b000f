// Routing statistics of MoE layers (physics/moe_routing.h): the balls-in-bins expectations.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "physics/moe_routing.h"

namespace gpuplan {
namespace {

// Monte Carlo of the busiest of `bins` Poisson counts over the mean.
double simulated_max_ratio(double mean, int bins, int trials = 20000) {
  std::mt19937_64 rng(7);
  std::poisson_distribution<long long> pois(mean);
  double sum = 0;
  for (int t = 0; t < trials; ++t) {
    long long mx = 0;
    for (int b = 0; b < bins; ++b) mx = std::max(mx, pois(rng));
    sum += static_cast<double>(mx);
  }
  return sum / trials / mean;
}

TEST(MaxLoad, OneBinOrNoLoadIsBalanced) {
  EXPECT_DOUBLE_EQ(expected_max_load_ratio(100, 1), 1.0);
  EXPECT_DOUBLE_EQ(expected_max_load_ratio(0, 8), 1.0);
}

TEST(MaxLoad, MatchesMonteCarlo) {
  for (double mean : {0.5, 2.0, 16.0, 200.0})
    for (int bins : {2, 8, 64}) {
      const double exact = expected_max_load_ratio(mean, bins);
      EXPECT_NEAR(exact, simulated_max_ratio(mean, bins), 0.02 * exact) << mean << " x " << bins;
    }
}

TEST(MaxLoad, FallsWithLoadRisesWithBins) {
  // More tokens per bin even out; more bins make the busiest one further from the mean.
  double last = 1e9;
  for (double mean : {1.0, 4.0, 16.0, 64.0, 256.0, 4096.0, 1e5}) {
    const double r = expected_max_load_ratio(mean, 8);
    EXPECT_LT(r, last) << mean;
    EXPECT_GE(r, 1.0);
    last = r;
  }
  last = 1.0;
  for (int bins : {2, 4, 8, 16, 64, 256}) {
    const double r = expected_max_load_ratio(32.0, bins);
    EXPECT_GT(r, last) << bins;
    last = r;
  }
  // The large-load branch meets the exact sum where it takes over.
  EXPECT_NEAR(expected_max_load_ratio(kExactMaxLoadMean * 1.0001, 64), expected_max_load_ratio(kExactMaxLoadMean, 64),
              1e-4);
  // ... and tends to the Gaussian tail's sqrt(2 ln n / mean) order at large loads.
  const double big = 1e7, excess = expected_max_load_ratio(big, 64) - 1.0;
  EXPECT_GT(excess, 0.6 * std::sqrt(2.0 * std::log(64.0) / big));
  EXPECT_LT(excess, std::sqrt(2.0 * std::log(64.0) / big));
}

TEST(PaddedRows, AtLeastTheRowsAndAboutHalfATileMore) {
  for (double mean : {0.1, 1.0, 10.0, 63.0, 64.0, 100.0, 1000.0, 1e5}) {
    const double cond = mean / -std::expm1(-mean);
    const double padded = expected_padded_rows(mean, 64);
    EXPECT_GE(padded, cond) << mean;
    EXPECT_GE(padded, 64.0) << mean;
    EXPECT_LE(padded, cond + 64.0) << mean;
  }
  EXPECT_NEAR(expected_padded_rows(1e5, 64) - 1e5, 31.5, 1.0);
  EXPECT_NEAR(expected_padded_rows(10, 1), 10.0 / -std::expm1(-10.0), 1e-9);
}

TEST(PaddedRows, TileUseRisesWithRowsOverTileMultiples) {
  // Tile quantization is a sawtooth in the mean, but its envelope (at whole tiles per expert) rises
  // with the rows, towards 1; the spread of rows over experts keeps it below the mean's own padding.
  double last = 0;
  for (double tiles : {0.25, 1.0, 2.0, 4.0, 16.0, 64.0}) {
    const double use = grouped_tile_use(64.0 * tiles, 64.0);
    EXPECT_GT(use, last) << tiles;
    EXPECT_LE(use, 1.0);
    last = use;
  }
  EXPECT_LT(grouped_tile_use(64.0, 64.0), 1.0);  // a mean of one whole tile spills into a second
  EXPECT_GT(grouped_tile_use(64.0 * 256, 64.0), 0.99);
}

}  // namespace
}  // namespace gpuplan
