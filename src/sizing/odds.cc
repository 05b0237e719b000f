// The odds of one deployment at one demand (see odds.h).
#include "sizing/odds.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "core/error.h"

namespace gpuplan::sizing {

namespace {

// The 10% and 90% quantiles (plotting position p(n + 1), as the error bands are read) of `v`, in which an
// unstable draw counts as +infinity.
FigureBand band_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const auto at = [&](double p) {
    const double pos = std::clamp(p * double(v.size() + 1), 1.0, double(v.size()));
    const std::size_t k = std::size_t(std::floor(pos));
    const double frac = pos - double(k);
    const double a = v[k - 1];
    const double b = v[std::min(k, v.size() - 1)];
    if (std::isinf(a) || std::isinf(b)) return frac == 0 && !std::isinf(a) ? a : std::numeric_limits<double>::infinity();
    return a + frac * (b - a);
  };
  FigureBand f;
  if (const double l = at(0.1); std::isfinite(l)) f.low = l;
  if (const double h = at(0.9); std::isfinite(h)) f.high = h;
  return f;
}

}  // namespace

OpenLoopOdds open_loop_odds(const Candidate& c, double rate, const SizingOptions& o) {
  if (!(rate > 0 && std::isfinite(rate))) throw InputError("--requests-per-s", "must be above 0");
  const std::vector<OpenLoopScale> scales = draw_scales({c}, o).front();
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<double> ttft_mean, ttft50, ttft99, tpot50, tpot99;
  OpenLoopOdds odds;
  odds.draws = o.draws;
  int stable = 0, met = 0;
  for (const OpenLoopScale& s : scales) {
    const OpenLoopResult r = open_loop(c.curve, rate, s);
    if (r.stable) {
      ++stable;
      if (meets_sla(c.curve, rate, o.sla, s)) ++met;
    }
    ttft_mean.push_back(r.stable ? r.ttft_mean_s : inf);
    ttft50.push_back(r.stable ? r.ttft_p50_s : inf);
    ttft99.push_back(r.stable ? r.ttft_p99_s : inf);
    tpot50.push_back(r.stable ? r.tpot_p50_s : inf);
    tpot99.push_back(r.stable ? r.tpot_p99_s : inf);
  }
  odds.p_stable = double(stable) / o.draws;
  odds.p_meets_sla = double(met) / o.draws;
  odds.ttft_mean_s = band_of(ttft_mean);
  odds.ttft_p50_s = band_of(ttft50);
  odds.ttft_p99_s = band_of(ttft99);
  odds.tpot_p50_s = band_of(tpot50);
  odds.tpot_p99_s = band_of(tpot99);
  // A speed falls as the time rises: its band is the TPOT p50's, inverted (an unbounded TPOT is a speed
  // that can fall to nothing).
  const FigureBand tp = odds.tpot_p50_s;
  if (tp.low) {
    odds.tokens_per_s_per_user.low = tp.high ? 1.0 / *tp.high : 0.0;
    if (*tp.low > 0) odds.tokens_per_s_per_user.high = 1.0 / *tp.low;
  }
  return odds;
}

}  // namespace gpuplan::sizing
