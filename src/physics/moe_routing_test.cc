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

}  // namespace
}  // namespace gpuplan
