// Erlang C, M/G/c waiting times and quantiles (see queueing.h).
#include "inference/queueing.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace gpuplan {

double erlang_c(int servers, double a) {
  if (servers < 1) return 1.0;
  if (a <= 0) return 0.0;
  const double c = servers;
  if (a >= c) return 1.0;
  const double rho = a / c;
  if (servers <= 256) {
    double b = 1.0;  // Erlang B, recursively over the servers
    for (int k = 1; k <= servers; ++k) b = a * b / (k + a * b);
    return b / (1.0 - rho * (1.0 - b));
  }
  // Halfin-Whitt: beta = (c - a) / sqrt(a); P(wait) = 1 / (1 + beta Phi(beta) / phi(beta)).
  const double beta = (c - a) / std::sqrt(a);
  const double phi = std::exp(-0.5 * beta * beta) / 2.5066282746310002;
  const double Phi = 0.5 * std::erfc(-beta / std::sqrt(2.0));
  if (phi <= 0) return 0.0;
  return 1.0 / (1.0 + beta * Phi / phi);
}

double mgc_wait_mean_s(int servers, double lambda, double service_s, double cv2) {
  if (lambda <= 0 || service_s <= 0) return 0.0;
  const double a = lambda * service_s;
  if (a >= servers) return std::numeric_limits<double>::infinity();
  // M/M/c: C / (c mu - lambda); Kingman's factor for general service.
  return erlang_c(servers, a) * service_s / (servers - a) * 0.5 * (1.0 + cv2);
}

double mgc_wait_quantile_s(int servers, double lambda, double service_s, double cv2, double q) {
  if (lambda <= 0 || service_s <= 0) return 0.0;
  const double a = lambda * service_s;
  if (a >= servers) return std::numeric_limits<double>::infinity();
  // M/M/c: P(W > t) = C exp(-(c mu - lambda) t).
  const double pw = erlang_c(servers, a);
  const double tail = 1.0 - q;
  if (pw <= tail) return 0.0;
  const double decay_per_s = (servers - a) / service_s;
  return std::log(pw / tail) / decay_per_s * 0.5 * (1.0 + cv2);
}

double normal_quantile(double p) {
  p = std::clamp(p, 1e-15, 1 - 1e-15);
  static const double a[] = {-3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02,
                             1.383577518672690e+02,  -3.066479806614716e+01, 2.506628277459239e+00};
  static const double b[] = {-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
                             6.680131188771972e+01,  -1.328068155288572e+01};
  static const double c[] = {-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
                             -2.549732539343734e+00, 4.374664141464968e+00,  2.938163982698783e+00};
  static const double d[] = {7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00,
                             3.754408661907416e+00};
  const double lo = 0.02425;
  if (p < lo) {
    const double q = std::sqrt(-2 * std::log(p));
    return (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
           ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
  }
  if (p > 1 - lo) return -normal_quantile(1 - p);
  const double q = p - 0.5, r = q * q;
  return (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
         (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
}

double poisson_quantile(double mean, double q) {
  if (mean <= 0) return 0.0;
  return std::max(0.0, mean + normal_quantile(q) * std::sqrt(mean) - 0.5);
}

}  // namespace gpuplan
