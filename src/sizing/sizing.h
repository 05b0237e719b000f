#pragma once
// Sizing a serving demand on candidate systems with the odds: for each system, the fewest whole units
// whose chance of meeting the SLA under the model's error reaches the confidence, and the chance that
// it is the cheapest. The errors are drawn from the error bands (catalog/error_band.h) as log-normal
// ratios measured / predicted, one draw per accelerator generation and band kind, shared by every
// candidate of that generation (a model that is 10% slow on one Blackwell system tends to be slow on all),
// mixed with one shared by all generations and one per system as the bands' pairs measured how far two
// systems' errors move together (SizingOptions::same_generation_correlation).
// Pure: the candidates come prepared (the deployment tabulated, the cost of a unit known); see
// docs/sizing.md.
#include <cstdint>
#include <string>
#include <vector>

#include "catalog/error_band.h"
#include "inference/open_loop.h"

namespace gpuplan::sizing {

// What every request must get.
struct Sla {
  double ttft_p99_s = 0;                 // 99th percentile TTFT (0: none)
  double tokens_per_s_per_user = 0;      // the median request's decode speed, 1 / TPOT p50 (0: none)
  double tpot_p99_s = 0;                 // 99th percentile TPOT (0: none)
};

// One system as sizing sees it: its deployment's open-loop curve (one replica), bought in replicas of
// whole units.
struct Candidate {
  std::string system, generation;
  int unit_gpus = 8;
  int replica_units = 1;          // units one replica of the deployment takes
  OpenLoopCurve curve;
  ErrorBand tpot_band, ttft_band; // the generation's serving bands (of the deployment's kind)
  double usd_per_unit_year = 0;   // what a unit costs a year (own or rent); 0: unpriced
  // Candidates of one group are alternative deployments of one system (the chooser's best on each
  // size, ServingChoice::by_size, smallest first): the one bought is the one needing the fewest units
  // (see size_candidates). -1: a group of its own.
  int group = -1;
};

struct SizingOptions {
  double requests_per_s = 0;   // the peak rate to serve
  Sla sla;
  double confidence = 0.9;     // P(meets SLA) the purchase must reach
  int draws = 1000;
  std::uint64_t seed = 1;
  long long max_replicas = 1'000'000;
  // How two candidates' errors move together (BandCorrelation, fitted by `calibrate --bands`): each
  // candidate's draw of a band kind is sqrt(cross) x one draw of the kind shared by all + sqrt(same -
  // cross) x one of its generation + sqrt(1 - same) x its own, so two systems of one generation
  // correlate `same` and of two `cross`. The defaults: a generation's systems move as one, generations
  // independently.
  double same_generation_correlation = 1, cross_generation_correlation = 0;
};

// The correlations `calibrate --bands` measured (the catalog's error_band_correlation) on `o`; a
// correlation no pair measured leaves the defaults (a generation as one, generations independent).
void apply_band_correlation(const BandCorrelation& measured, SizingOptions& o);

struct SizedOption {
  bool feasible = false;        // some number of replicas meets the SLA at the nominal model
  std::string why_not;
  long long replicas_nominal = 0;  // the fewest that meet it at the model's central figures
  long long replicas = 0;          // bought: the fewest whose P(meets SLA) >= confidence
  long long units = 0;
  long long gpus = 0;
  double p_meets_sla = 0;
  double p_cheapest = 0;
  OpenLoopResult at_bought;        // one replica's open-loop figures at the bought count, nominal model
  // Of its group, the alternative bought (false: another needs fewer units; its figures are still
  // given, and it takes no part in P(cheapest)).
  bool chosen = true;
};

// A draw needing more than this many times the replicas the central figures need counts as not meeting
// the SLA: there the SLA sits at the deployment's unloaded latency (a slower draw meets it only with the
// replicas nearly idle, at utilisations of a percent or less), which no purchase answers.
inline constexpr long long kMaxOverNominal = 16;

// Whether one replica meets `sla` at `rate`.
bool meets_sla(const OpenLoopCurve& c, double rate, const Sla& sla, const OpenLoopScale& scale = {});

// The fewest replicas (1 .. max) that meet the SLA at `total_rate` split evenly; 0 when even max do not.
// `hint` (0: none), a count near the answer, only shortens the search: the answer is the same.
long long fewest_replicas(const OpenLoopCurve& c, double total_rate, const Sla& sla, const OpenLoopScale& scale,
                          long long max_replicas, long long hint = 0);

// The multipliers on a candidate's times at the `confidence` quantile of its TPOT and TTFT bands' errors
// (band_error; each at least 1): the model as slow as the confidence allows.
OpenLoopScale error_at_confidence(const Candidate& c, double confidence);

// Whether some number of replicas within kMaxOverNominal times the central figures' count meets the
// options' SLA at their demand with the candidate's times scaled by `scale`; false where none meets it at
// the central figures either.
bool meets_within_reach(const Candidate& c, const SizingOptions& options, const OpenLoopScale& scale);

// The draws of the model's error: for each candidate, `options.draws` scales of its decode step and
// prefill times (its TPOT and TTFT bands' log-normal ratios, mixed across candidates as above). A seed
// gives the same draws on every platform, and a system the same draws whichever candidates are drawn
// beside it (each shared draw is a stream of its own, seeded by the seed and its name). InputError for
// draws or correlations out of range.
std::vector<std::vector<OpenLoopScale>> draw_scales(const std::vector<Candidate>& candidates,
                                                    const SizingOptions& options);

// Sizes every candidate under the same draws. Of each group of alternatives the one bought is the one
// whose purchase takes the fewest units (on a tie the smaller replica, the smaller failure domain for the
// same purchase, then the higher P(meets SLA)); where none reaches the confidence, the last (the
// chooser's own). P(cheapest) weighs the bought alternatives only, one per system, in each draw at the
// replicas that draw needs.
// The draw of a system's own error (SizingOptions' sqrt(1 - same)) is one per system, shared by its
// alternatives. InputError for options out of range.
std::vector<SizedOption> size_candidates(const std::vector<Candidate>& candidates, const SizingOptions& options);

// A band as a split normal distribution of log(measured / predicted): its median (the held-out rows'
// median where the band records one, else its midpoint), and below and above it the spread that puts
// the band's edges at the 10% and 90% quantiles (the distance to each edge over z(0.9) = 1.2816), so a
// draw matches the band's three quantiles even where the rows lie skewed within it (TTFT).
struct LogNormalError {
  double median = 0, sd_low = 0, sd_high = 0;
  // log(measured / predicted) at standard normal deviate z.
  double at(double z) const { return median + z * (z < 0 ? sd_low : sd_high); }
};
LogNormalError band_error(const ErrorBand& band);

}  // namespace gpuplan::sizing
