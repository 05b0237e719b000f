#pragma once
// The fitting routine of calibrate's per-generation fits (calibrate, calibrate_inference,
// calibrate_mla_decode, calibrate_prefill): coordinate descent on shrinking log-spaced grids.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <span>

#include "catalog/efficiency.h"

namespace gpuplan {

// One fitted parameter: its field and its physically plausible range.
struct GridParam {
  const char* name;
  double Efficiency::*field;
  double lo, hi;
};

// A trial's loss (what the descent minimises) and the median error it reports.
struct FitScore {
  double loss = 0;
  double median_ape = 0;
};

// Coordinate descent from `best` (whose score is `best_score`): for `rounds` rounds, each parameter k
// of `params` for which fits(k) holds, in order, tries `grid` values spaced evenly in log over a window
// around its current value, clipped to [lo, hi]; the window spans the whole range at round 0 and half
// of it (in log) each round after. A trial replaces the best when score(trial).loss is lower by more
// than 1e-12. A range from 0 has no log point there: its lowest trial is skipped. Leaves the best
// values in `best` and their score in `best_score`.
template <class Fits, class Score>
void fit_grid(Efficiency& best, FitScore& best_score, std::span<const GridParam> params, int rounds, int grid,
              Fits&& fits, Score&& score) {
  for (int round = 0; round < rounds; ++round) {
    const double span = std::pow(0.5, round);
    for (std::size_t k = 0; k < params.size(); ++k) {
      if (!fits(k)) continue;
      const GridParam& p = params[k];
      const double cur = best.*(p.field);
      const double lo = std::max(p.lo, cur * std::pow(p.hi / p.lo, -0.5 * span));
      const double hi = std::min(p.hi, cur * std::pow(p.hi / p.lo, 0.5 * span));
      for (int g = 0; g < grid; ++g) {
        if (p.lo <= 0 && g == 0) continue;
        Efficiency trial = best;
        trial.*(p.field) = lo * std::pow(hi / lo, double(g) / (grid - 1));
        const FitScore s = score(trial);
        if (s.loss < best_score.loss - 1e-12) {
          best_score = s;
          best = trial;
        }
      }
    }
  }
}

}  // namespace gpuplan
