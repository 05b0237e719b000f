#pragma once
// Textbook queueing formulas the open-loop serving model is built of: Erlang C (the chance an arrival
// waits at c servers under Poisson arrivals), the M/M/c waiting time's mean and quantiles, with
// Kingman's (1 + cs^2) / 2 factor carrying them to general service times (M/G/c), and the Poisson
// quantile of an infinite-server population. See docs/sizing.md ("Open-loop traffic").
namespace gpuplan {

// Erlang C: P(wait) at `servers` servers offered `load_erlangs` = arrivals x service time (< servers).
// Exact (Erlang B recursion) up to 256 servers; beyond, the Halfin-Whitt approximation. 1 at or above
// saturation.
double erlang_c(int servers, double load_erlangs);

// The waiting time before service of an M/G/c queue: `service_s` the mean service time, `service_cv2`
// its squared coefficient of variation (0: deterministic, 1: exponential). The mean, and the quantile
// q in (0, 1) (0 when fewer than 1 - q of the arrivals wait). Infinite at or above saturation.
double mgc_wait_mean_s(int servers, double arrivals_per_s, double service_s, double service_cv2);
double mgc_wait_quantile_s(int servers, double arrivals_per_s, double service_s, double service_cv2, double q);

// The standard normal's quantile (Acklam's rational approximation, |error| < 1.2e-9).
double normal_quantile(double p);

// The q-quantile of a Poisson population of mean `mean` (normal approximation with its continuity
// correction; exact enough above a few): the concurrency of an infinite-server queue.
double poisson_quantile(double mean, double q);

}  // namespace gpuplan
