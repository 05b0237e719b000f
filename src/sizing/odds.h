#pragma once
// The odds of one deployment at one demand: the open-loop figures (inference/open_loop.h) under the
// model's error, drawn as sizing draws it (draw_scales: the decode step and prefill times scaled by the
// deployment's serving TPOT and TTFT bands), each figure's 80% band (its 10% and 90% quantiles over the
// draws), the chance the replica keeps up and the chance it meets an SLA. A figure's band widens with the
// load because the queue does: near capacity a step time a few percent slow is a queue without end,
// and the band's upper edge is then unbounded. See docs/sizing.md ("The odds of one deployment").
#include <optional>

#include "sizing/sizing.h"

namespace gpuplan::sizing {

// A figure's 80% band over the draws; `high` is absent where more than a tenth of the draws cannot keep
// up (the figure has no upper edge there), and `low` too where more than nine tenths cannot (no band).
struct FigureBand {
  std::optional<double> low, high;
};

struct OpenLoopOdds {
  int draws = 0;
  double p_stable = 0;     // share of draws whose replica keeps up with the arrivals
  double p_meets_sla = 0;  // share of draws that are stable and within the SLA
  FigureBand ttft_mean_s, ttft_p50_s, ttft_p99_s, tpot_p50_s, tpot_p99_s, tokens_per_s_per_user;
};

// One replica of `candidate` (its curve and bands) at `requests_per_s`, under `options`' draws, seed and
// correlations (its SLA for p_meets_sla; the rate is this one's, not options.requests_per_s). With the
// same options, p_meets_sla at R / k is the P(meets SLA) `size_candidates({candidate}, ...)` gives a
// purchase of k replicas at demand R.
// InputError for a rate or options out of range.
OpenLoopOdds open_loop_odds(const Candidate& candidate, double requests_per_s, const SizingOptions& options);

}  // namespace gpuplan::sizing
