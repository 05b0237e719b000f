// The money of a sized purchase (see money.h).
#include "sizing/money.h"

#include <algorithm>
#include <cmath>

namespace gpuplan::sizing {

double rent_usd_per_year(double gpus, double usd_per_gpu_hour) { return gpus * usd_per_gpu_hour * cost::kHoursPerYear; }

double usd_per_million_tokens(double usd_per_year, double tokens_per_s) {
  if (tokens_per_s <= 0) return 0;
  return usd_per_year / (tokens_per_s * cost::kHoursPerYear * 3600.0) * 1e6;
}

std::vector<SensitivityBar> own_sensitivity(const cost::UnitCostInput& unit, const cost::CostProfile& profile,
                                            double units, double tokens_per_s, double capacity_tokens_per_s) {
  const auto usd_m = [&](const cost::CostProfile& p, double served_tokens_per_s) {
    const cost::Tco t = cost::compute_tco(unit, p);
    return usd_per_million_tokens(units * t.total_usd_per_year(), served_tokens_per_s);
  };
  std::vector<SensitivityBar> bars;
  const auto bar = [&](std::string name, std::string u, double base, double lo, double hi, auto set) {
    cost::CostProfile a = profile, b = profile;
    set(a, lo);
    set(b, hi);
    bars.push_back({std::move(name), std::move(u), base, lo, hi, usd_m(a, tokens_per_s), usd_m(b, tokens_per_s)});
  };
  const cost::Tco base = cost::compute_tco(unit, profile);
  const double price = base.system_price_usd;
  bar("system_price", "USD per unit", price, 0.7 * price, 1.3 * price, [&](cost::CostProfile& p, double v) {
    auto& s = p.systems[unit.system];
    s.price_usd = v;
    s.allin_capex_usd.reset();
  });
  bar("electricity", "USD/kWh", profile.electricity_usd_per_kwh, 0.05, 0.15,
      [](cost::CostProfile& p, double v) { p.electricity_usd_per_kwh = v; });
  bar("lifetime", "years", profile.depreciation_years, 3, 7, [](cost::CostProfile& p, double v) { p.depreciation_years = v; });
  bar("pue", "ratio", profile.pue, 1.1, 1.6, [](cost::CostProfile& p, double v) { p.pue = v; });
  const double u0 = capacity_tokens_per_s > 0 ? tokens_per_s / capacity_tokens_per_s : 0;
  if (capacity_tokens_per_s > 0)
    bars.push_back({"utilisation", "served / capacity", u0, 0.3, 0.9, usd_m(profile, 0.3 * capacity_tokens_per_s),
                    usd_m(profile, 0.9 * capacity_tokens_per_s)});
  // Widest bar first (a tornado).
  std::stable_sort(bars.begin(), bars.end(), [](const SensitivityBar& a, const SensitivityBar& b) {
    return std::abs(a.usd_per_million_tokens_high - a.usd_per_million_tokens_low) >
           std::abs(b.usd_per_million_tokens_high - b.usd_per_million_tokens_low);
  });
  return bars;
}

double own_beats_rent_utilisation(const cost::Tco& own, double rent_usd_per_gpu_hour) {
  if (rent_usd_per_gpu_hour <= 0 || !own.priced) return 0;
  return own.usd_per_gpu_hour() / rent_usd_per_gpu_hour;
}

}  // namespace gpuplan::sizing
