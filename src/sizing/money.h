#pragma once
// The money of a sized purchase: what a unit costs a year owned (the TCO of cost/tco.h) or rented
// (GPUs x price per GPU-hour x hours), $ per million output tokens at the average demand, the tornado of
// $ per million tokens over the cost model's main inputs, and the utilisation above which owning beats
// renting, and the price at which one purchase costs what another does. See docs/sizing.md ("The money").
#include <optional>
#include <string>
#include <vector>

#include "cost/tco.h"

namespace gpuplan::sizing {

// A year of rent of `gpus` GPUs at `usd_per_gpu_hour`, all hours of the year.
double rent_usd_per_year(double gpus, double usd_per_gpu_hour);

// $ per million output tokens: a year's cost over the tokens a year of `tokens_per_s` (average) gives.
double usd_per_million_tokens(double usd_per_year, double tokens_per_s);

// One bar of the tornado: the parameter at its low and high value and the $ per million tokens then.
struct SensitivityBar {
  std::string parameter, unit;
  double base = 0, low = 0, high = 0;
  double usd_per_million_tokens_low = 0, usd_per_million_tokens_high = 0;
};

// The tornado for `units` owned units of `unit` serving `tokens_per_s` on average out of a capacity of
// `capacity_tokens_per_s` (the utilisation bar rescales the tokens served): system price x0.7 / x1.3,
// electricity 0.05 / 0.15 $/kWh, utilisation 0.3 / 0.9, lifetime 3 / 7 years, PUE 1.1 / 1.6.
std::vector<SensitivityBar> own_sensitivity(const cost::UnitCostInput& unit, const cost::CostProfile& profile,
                                            double units, double tokens_per_s, double capacity_tokens_per_s);

// The unit price at which `units` owned units of `unit` cost `target_usd_per_year` a year (the TCO's other
// inputs as `profile` states them): where the runner-up's price must fall for it to overtake the first,
// or the first's rise for it to lose its place. Bisection on the price (the TCO rises with it); nullopt
// where no price reaches the target (even free, the unit's power, space and running costs exceed it).
std::optional<double> unit_price_for_usd_per_year(const cost::UnitCostInput& unit, const cost::CostProfile& profile,
                                                  double units, double target_usd_per_year);

// The utilisation (served / capacity) above which owning costs less per token than renting on demand
// (rent is paid only while used, ownership all year): own $/GPU-hour / rent $/GPU-hour; above 1: never.
double own_beats_rent_utilisation(const cost::Tco& own, double rent_usd_per_gpu_hour);

}  // namespace gpuplan::sizing
