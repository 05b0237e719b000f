#pragma once
// The inputs of a cost of ownership: capital (price, network and storage share, installation, liquid
// cooling facility, depreciation, cost of capital) and operating (electricity, PUE, colocation,
// maintenance, average draw). Defaults: data/cost/defaults.yaml, each figure with its source; a user
// profile (same keys) or command-line options override any of them.
#include <map>
#include <optional>
#include <string>

namespace gpuplan::cost {

// What the profile knows about one system's capital cost beyond the catalog's price.
struct SystemCapex {
  std::optional<double> price_usd;        // system unit price (overrides the catalog's)
  std::optional<double> allin_capex_usd;  // price + network + storage + installation, when published
  std::string basis;                      // published | estimate | user
  std::string source;
};

struct CostProfile {
  // capital
  double depreciation_years = 5;
  double cost_of_capital = 0.10;           // per year
  double network_storage_fraction = 0.287; // of the system price, when no all-in figure
  double storage_other_fraction = 0.16;    // of the price, beside a fabric bill of materials (storage etc.)
  double installation_fraction = 0.0;      // of the system price
  double liquid_facility_usd_per_kw = 1000;
  // operating
  double electricity_usd_per_kwh = 0.0862;
  double colocation_usd_per_kw_month = 196.25;
  double maintenance_fraction_per_year = 0.0;  // of capex
  double average_power_fraction = 0.8;         // of the full-load rating
  double pue = 1.3;

  std::map<std::string, SystemCapex> systems;  // by catalog system name
  std::map<std::string, std::string> sources;  // field -> source
  std::string origin = "built-in";
};

// The built-in defaults (data/cost/defaults.yaml, PUE from data/deploy/site.yaml).
const CostProfile& builtin_cost_profile();

// Parses a profile (schema gpuplan.cost/v1) on top of `base`: keys it gives replace base's. Unknown
// keys and out-of-range values are InputErrors naming the key path.
CostProfile parse_cost_profile(const std::string& yaml_text, const std::string& origin, const CostProfile& base);
CostProfile read_cost_profile(const std::string& path, const CostProfile& base);

// Checks every figure's range (after command-line overrides); InputError names `prefix`+field.
void validate_cost_profile(const CostProfile& p, const std::string& prefix = "");

}  // namespace gpuplan::cost
