// Routing statistics of MoE layers (physics/moe_routing.h).
#include "physics/moe_routing.h"

#include <algorithm>
#include <cmath>
#include <unordered_map>

namespace gpuplan {

namespace {

// Calls f(x, pmf(x)) for x = 0 .. the point where the Poisson(mean) tail is below 1e-12 of the mass:
// the first probability in log space (no underflow at large means), the rest by p(x+1) = p(x) mean / (x+1).
template <class F>
void for_poisson(double mean, F&& f) {
  const double sd = std::sqrt(mean);
  const long long lo = std::max(0LL, static_cast<long long>(std::floor(mean - 12.0 * sd - 10.0)));
  const long long hi = static_cast<long long>(std::ceil(mean + 12.0 * sd + 20.0));
  double x = static_cast<double>(lo);
  double p = std::exp(x * std::log(mean) - mean - std::lgamma(x + 1.0));
  for (long long i = lo; i <= hi; ++i, x += 1.0) {
    f(x, p);
    p *= mean / (x + 1.0);
  }
}

}  // namespace

double expected_max_load_ratio(double mean_load, int bins) {
  if (bins <= 1 || !(mean_load > 0)) return 1.0;
  const double n = bins;
  if (mean_load > kExactMaxLoadMean) {
    // The excess over the mean is a fixed number of standard deviations (sqrt(mean)) once the counts
    // are near-normal: scale the exact excess at the threshold (cached per bin count).
    thread_local std::unordered_map<int, double> at_threshold;
    auto it = at_threshold.find(bins);
    if (it == at_threshold.end()) it = at_threshold.emplace(bins, expected_max_load_ratio(kExactMaxLoadMean, bins)).first;
    return 1.0 + (it->second - 1.0) * std::sqrt(kExactMaxLoadMean / mean_load);
  }
  // E[max] = sum_{x >= 0} P(max > x) = sum_x (1 - F(x)^n).
  double cdf = 0.0, e_max = 0.0;
  const double sd = std::sqrt(mean_load);
  const long long lo = std::max(0LL, static_cast<long long>(std::floor(mean_load - 12.0 * sd - 10.0)));
  e_max = static_cast<double>(lo);  // below lo, F(x) ~ 0: every term is 1
  for_poisson(mean_load, [&](double, double p) {
    cdf = std::min(1.0, cdf + p);
    e_max += 1.0 - std::pow(cdf, n);
  });
  return std::max(1.0, e_max / mean_load);
}

}  // namespace gpuplan
