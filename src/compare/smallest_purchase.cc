#include "compare/smallest_purchase.h"

namespace gpuplan::compare {

std::optional<std::size_t> smallest_purchase(const RecommendResult& res) {
  const auto pick = [&](bool fitted_only) -> std::optional<std::size_t> {
    std::optional<std::size_t> best;
    for (std::size_t i = 0; i < res.ranked.size(); ++i) {
      const Recommendation& r = res.ranked[i];
      if (!r.feasible || !r.is_system || !r.priced || r.capex_usd <= 0) continue;
      if (fitted_only && !r.calibrated) continue;
      if (!best) {
        best = i;
        continue;
      }
      const Recommendation& b = res.ranked[*best];
      if (r.capex_usd < b.capex_usd || (r.capex_usd == b.capex_usd && r.it_kw < b.it_kw)) best = i;
    }
    return best;
  };
  if (res.spec.unfitted_last)
    if (const auto fitted = pick(true)) return fitted;
  return pick(false);
}

}  // namespace gpuplan::compare
