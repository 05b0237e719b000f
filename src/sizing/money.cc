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

namespace {

// `profile` with the unit's system priced at `price_usd`: where the profile states an all-in capex its
// network, storage and installation (the all-in less the price) stay as they are; else they follow the
// price as the profile's shares do.
cost::CostProfile priced_at(const cost::UnitCostInput& unit, const cost::CostProfile& profile, double price_usd) {
  cost::CostProfile p = profile;
  auto& s = p.systems[unit.system];
  if (s.allin_capex_usd) {
    const cost::Tco base = cost::compute_tco(unit, profile);
    s.allin_capex_usd = price_usd + base.network_storage_usd;
  }
  s.price_usd = price_usd;
  return p;
}

}  // namespace

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
  bar("system_price", "USD per unit", price, 0.7 * price, 1.3 * price,
      [&](cost::CostProfile& p, double v) { p = priced_at(unit, p, v); });
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

std::optional<double> unit_price_for_usd_per_year(const cost::UnitCostInput& unit, const cost::CostProfile& profile,
                                                  double units, double target_usd_per_year) {
  if (!(units > 0) || !(target_usd_per_year > 0)) return std::nullopt;
  const auto usd_year = [&](double price) {
    return units * cost::compute_tco(unit, priced_at(unit, profile, price)).total_usd_per_year();
  };
  if (usd_year(0) > target_usd_per_year) return std::nullopt;
  double lo = 0, hi = 1e6;
  while (usd_year(hi) < target_usd_per_year) {
    if (hi > 1e12) return std::nullopt;
    hi *= 4;
  }
  for (int i = 0; i < 100 && hi - lo > 1e-6 * hi; ++i) {
    const double mid = 0.5 * (lo + hi);
    (usd_year(mid) < target_usd_per_year ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

double own_beats_rent_utilisation(const cost::Tco& own, double rent_usd_per_gpu_hour) {
  if (rent_usd_per_gpu_hour <= 0 || !own.priced) return 0;
  return own.usd_per_gpu_hour() / rent_usd_per_gpu_hour;
}

}  // namespace gpuplan::sizing
