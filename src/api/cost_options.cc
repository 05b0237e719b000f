#include "api/cost_options.h"

#include "core/error.h"

namespace gpuplan::api {

void add_cost_options(CLI::App& app, CostOptions& o) {
  app.add_option("--cost-profile", o.profile_path,
                 "Cost profile YAML (gpuplan.cost/v1: capital, operating, systems); overrides the built-in defaults");
  app.add_option("--electricity-usd-per-kwh", o.electricity_usd_per_kwh, "Electricity price (default 0.0862, EIA 2025)");
  app.add_option("--pue", o.pue, "Power usage effectiveness (default 1.3)");
  app.add_option("--depreciation-years", o.depreciation_years, "Depreciation life (default 5)");
  app.add_option("--cost-of-capital", o.cost_of_capital, "Annual cost of capital, fraction (default 0.10)");
  app.add_option("--colocation-usd-per-kw-month", o.colocation_usd_per_kw_month,
                 "Colocation per provisioned kW-month (default 196.25, CBRE 2025)");
  app.add_option("--average-power-fraction", o.average_power_fraction,
                 "Average draw as a share of full-load power (default 0.8)");
  app.add_option("--maintenance-fraction", o.maintenance_fraction_per_year,
                 "Maintenance per year as a share of capex (default 0)");
}

cost::CostProfile load_cost_profile(const CostOptions& o) {
  cost::CostProfile p = cost::builtin_cost_profile();
  if (!o.profile_path.empty()) p = cost::read_cost_profile(o.profile_path, p);
  auto set = [&](const std::optional<double>& v, double cost::CostProfile::*field, const char* key) {
    if (!v) return;
    p.*field = *v;
    p.sources[key] = "command line";
  };
  set(o.electricity_usd_per_kwh, &cost::CostProfile::electricity_usd_per_kwh, "electricity_usd_per_kwh");
  set(o.pue, &cost::CostProfile::pue, "pue");
  set(o.depreciation_years, &cost::CostProfile::depreciation_years, "depreciation_years");
  set(o.cost_of_capital, &cost::CostProfile::cost_of_capital, "cost_of_capital");
  set(o.colocation_usd_per_kw_month, &cost::CostProfile::colocation_usd_per_kw_month, "colocation_usd_per_kw_month");
  set(o.average_power_fraction, &cost::CostProfile::average_power_fraction, "average_power_fraction");
  set(o.maintenance_fraction_per_year, &cost::CostProfile::maintenance_fraction_per_year,
      "maintenance_fraction_per_year");
  // Errors name the option as typed: --pue, --cost-of-capital ...
  try {
    cost::validate_cost_profile(p, "");
  } catch (const InputError& e) {
    std::string option = e.field() == "maintenance_fraction_per_year" ? "maintenance_fraction" : e.field();
    for (auto& c : option) if (c == '_') c = '-';
    throw InputError("--" + option, std::string(e.what()).substr(e.field().size() + 2));
  }
  return p;
}

cost::Tco system_tco(const Catalog& catalog, const std::string& system, const cost::CostProfile& profile,
                     const std::string& option) {
  return cost::compute_tco(cost::unit_cost_input(catalog, catalog.system(system, option)), profile);
}

nlohmann::json tco_json(const cost::Tco& t) {
  const double h = cost::kHoursPerYear * t.gpus_per_unit;
  nlohmann::json j = {{"system", t.system},
                      {"gpus_per_unit", t.gpus_per_unit},
                      {"priced", t.priced},
                      {"price_basis", t.price_basis},
                      {"price_kind", t.price_kind},
                      {"price_source", t.price_source},
                      {"it_w_full", t.it_w_full},
                      {"it_w_average", t.it_w_average},
                      {"facility_w_average", t.facility_w_average}};
  if (!t.priced) return j;
  j["capex_usd"] = {{"system", t.system_price_usd},
                    {"network_storage", t.network_storage_usd},
                    {"network_fabric", t.network_fabric_usd},
                    {"network_basis", t.network_basis},
                    {"network_detail", t.network_detail},
                    {"installation", t.installation_usd},
                    {"liquid_facility", t.liquid_facility_usd},
                    {"total", t.capex_usd()},
                    {"per_gpu", t.capex_per_gpu_usd()}};
  j["capital_recovery_factor"] = t.capital_recovery_factor;
  j["usd_per_year"] = {{"capital", t.capital_usd_per_year},
                       {"maintenance", t.maintenance_usd_per_year},
                       {"electricity", t.electricity_usd_per_year},
                       {"colocation", t.colocation_usd_per_year},
                       {"total", t.total_usd_per_year()}};
  j["usd_per_gpu_hour"] = {{"capital", t.capital_usd_per_year / h},
                           {"maintenance", t.maintenance_usd_per_year / h},
                           {"electricity", t.electricity_usd_per_year / h},
                           {"colocation", t.colocation_usd_per_year / h},
                           {"total", t.usd_per_gpu_hour()}};
  return j;
}

nlohmann::json cost_profile_json(const cost::CostProfile& p) {
  nlohmann::json j = {{"origin", p.origin},
                      {"depreciation_years", p.depreciation_years},
                      {"cost_of_capital", p.cost_of_capital},
                      {"network_storage_fraction", p.network_storage_fraction},
                      {"storage_other_fraction", p.storage_other_fraction},
                      {"installation_fraction", p.installation_fraction},
                      {"liquid_facility_usd_per_kw", p.liquid_facility_usd_per_kw},
                      {"electricity_usd_per_kwh", p.electricity_usd_per_kwh},
                      {"colocation_usd_per_kw_month", p.colocation_usd_per_kw_month},
                      {"maintenance_fraction_per_year", p.maintenance_fraction_per_year},
                      {"average_power_fraction", p.average_power_fraction},
                      {"pue", p.pue}};
  j["sources"] = p.sources;
  return j;
}

}  // namespace gpuplan::api
