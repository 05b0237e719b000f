#pragma once
// The statistics of routing tokens to experts for the MoE step models: how unevenly a top-k router's
// assignments fall on expert-parallel ranks (serving: inference/step.cc's busiest rank; training:
// docs/training-model.md, where the measured rows ran force-balanced). Uniform routing is the floor:
// each of N assignments lands on one of n bins independently, so a bin's count is binomial, close to
// Poisson with mean N / n (balls into bins). Real routers add their skew on top. See
// docs/inference-model.md ("MoE: experts, routing and the busiest rank").

namespace gpuplan {

// Expected largest count over `bins` independent Poisson counts of mean `mean_load`, divided by the
// mean: the busiest bin's load over the mean (>= 1). The exact sum E[max] = sum_x (1 - F(x)^bins)
// while the mean is at most kExactMaxLoadMean; beyond it the counts are near-normal and the excess
// over the mean a fixed number of standard deviations, so the threshold's excess scaled by
// sqrt(threshold / mean) (Raab & Steger, "Balls into Bins - A Simple and Tight Analysis", RANDOM
// 1998: m / n + O(sqrt((m / n) ln n)) for m >> n ln n). 1 with one bin or no load.
double expected_max_load_ratio(double mean_load, int bins);

inline constexpr double kExactMaxLoadMean = 4096.0;

}  // namespace gpuplan
