#pragma once
// The statistics of routing tokens to experts, for the MoE step models (serving inference/step.cc,
// training training/training_step.cc): how unevenly a top-k router's assignments fall on experts and
// expert-parallel ranks, and how many GEMM rows an expert's uneven share pads up to. Uniform routing
// is the floor: each of N assignments lands on one of n bins independently, so a bin's count is
// binomial, close to Poisson with mean N / n (balls into bins). Real routers add their skew on top.
// See docs/inference-model.md ("MoE routing costs") and docs/training-model.md.

namespace gpuplan {

// Expected largest count over `bins` independent Poisson counts of mean `mean_load`, divided by the
// mean: the busiest bin's load over the mean (>= 1). The exact sum E[max] = sum_x (1 - F(x)^bins)
// while the mean is at most kExactMaxLoadMean; beyond it the counts are near-normal and the excess
// over the mean a fixed number of standard deviations, so the threshold's excess scaled by
// sqrt(threshold / mean) (Raab & Steger, "Balls into Bins - A Simple and Tight Analysis", RANDOM
// 1998: m / n + O(sqrt((m / n) ln n)) for m >> n ln n). 1 with one bin or no load.
double expected_max_load_ratio(double mean_load, int bins);

// Expected rows an expert's GEMM runs once its Poisson(`mean_rows`) tokens pad up to whole tiles of
// `tile_rows` (the M tile of the grouped GEMM kernel), counting only the experts that receive at
// least one row (the others launch no tile): E[ceil(X / t) t | X >= 1]. At least the conditional mean
// rows; about mean + (t - 1) / 2 when the mean is many tiles.
double expected_padded_rows(double mean_rows, double tile_rows);

// The share of a grouped GEMM's padded tile rows that carry tokens (the tensor cores' M-dimension
// utilisation) when each of its experts gets Poisson(`mean_rows`) rows: E[X | X >= 1] / E[pad(X) | X >= 1],
// in (0, 1]. Rises with mean_rows overall (towards 1 at many tiles per expert).
double grouped_tile_use(double mean_rows, double tile_rows);

inline constexpr double kExactMaxLoadMean = 4096.0;

}  // namespace gpuplan
