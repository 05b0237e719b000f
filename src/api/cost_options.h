#pragma once
// The cost inputs every costing command takes: a YAML cost profile and per-figure overrides.
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <optional>
#include <string>

#include "catalog/catalog.h"
#include "cost/cost_profile.h"
#include "cost/tco.h"

namespace gpuplan::api {

struct CostOptions {
  std::string profile_path;
  std::optional<double> electricity_usd_per_kwh, pue, depreciation_years, cost_of_capital,
      colocation_usd_per_kw_month, average_power_fraction, maintenance_fraction_per_year;
};

// --cost-profile FILE and --electricity-usd-per-kwh, --pue, --depreciation-years, --cost-of-capital,
// --colocation-usd-per-kw-month, --average-power-fraction, --maintenance-fraction.
void add_cost_options(CLI::App& app, CostOptions& o);
// The built-in profile, the file on top, the options on top of that; ranges checked.
cost::CostProfile load_cost_profile(const CostOptions& o);
// TCO of a catalog system under a profile; an unknown system is an InputError naming `option`.
cost::Tco system_tco(const Catalog& catalog, const std::string& system, const cost::CostProfile& profile,
                     const std::string& option = "--system");

// JSON of a TCO (per unit and per GPU-hour, by part) and of the profile's inputs with their sources.
nlohmann::json tco_json(const cost::Tco& t);
nlohmann::json cost_profile_json(const cost::CostProfile& p);

}  // namespace gpuplan::api
