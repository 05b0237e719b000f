#include "cost/tco.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "deploy/site.h"
#include "fabric/system_fabric.h"

namespace gpuplan::cost {

UnitCostInput unit_cost_input(const Catalog& catalog, const System& s) {
  const Accelerator& a = catalog.accelerator(s.accelerator);
  const deploy::SystemPowerInput in{s.name,        s.display_name, s.gpus_per_node, s.nodes, s.power_w,
                                    a.tdp_w,       s.cooling,      s.rack_units.value_or(0)};
  const deploy::UnitPower u = deploy::unit_power(in, deploy::builtin_site_defaults());
  UnitCostInput c;
  c.system = s.name;
  c.gpus = s.gpus_per_unit();
  c.it_w = u.it_w();
  c.cooling = s.cooling;
  c.price_usd = s.price_usd;
  if (auto it = s.sources.find("price_usd"); it != s.sources.end()) c.price_source = it->second;
  // The network from the fabric's bill of materials where the system's network has a fabric kind.
  const fabric::FabricCatalog& fc = fabric::FabricCatalog::builtin();
  if (const fabric::FabricKind* kind = fc.kind_for_network(s.scaleout_network)) {
    const long long gpus = std::max<long long>(kFabricReferenceGpus / c.gpus, 1) * c.gpus;
    fabric::FabricSpec spec = fabric::spec_for_system(catalog, s, *kind, gpus);
    spec.management_links = 0;  // management (UFM) belongs to the "storage and other" share, not the GPUs' fabric
    const fabric::FabricResult f = fabric::plan_fabric(fc, *kind, spec);
    if (f.feasible()) {
      const double units = static_cast<double>(gpus) / c.gpus;
      c.network_capex_usd = (f.switch_capex_usd + f.optics_capex_usd + f.cable_capex_usd) / units;
      c.network_w = (f.switch_power_w + f.optics_power_w) / units;
      c.it_w = u.it_w() - u.switch_w + c.network_w;
      c.network_basis = fmt::format("{} fabric of {} GPUs", kind->name, gpus);
    }
  }
  return c;
}

double Tco::usd_per_unit_hour() const { return total_usd_per_year() / kHoursPerYear; }
double Tco::usd_per_gpu_hour() const { return gpus_per_unit ? usd_per_unit_hour() / gpus_per_unit : 0; }

Tco compute_tco(const UnitCostInput& unit, const CostProfile& p) {
  Tco t;
  t.system = unit.system;
  t.gpus_per_unit = unit.gpus;
  t.it_w_full = unit.it_w;
  t.it_w_average = unit.it_w * p.average_power_fraction;
  t.facility_w_average = t.it_w_average * p.pue;

  // Price: the profile's all-in figure, else its price, else the catalog's, each grossed up by the
  // network/storage and installation shares.
  const auto sc = p.systems.find(unit.system);
  const SystemCapex* capex = sc == p.systems.end() ? nullptr : &sc->second;
  if (capex && capex->allin_capex_usd) {
    t.priced = true;
    const double price = capex->price_usd.value_or(unit.price_usd.value_or(*capex->allin_capex_usd));
    t.system_price_usd = std::min(price, *capex->allin_capex_usd);
    t.network_storage_usd = *capex->allin_capex_usd - t.system_price_usd;
    t.network_basis = "all-in";
    t.price_basis = capex->basis;
    t.price_kind = "all-in";
    t.price_source = capex->source;
  } else if ((capex && capex->price_usd) || unit.price_usd) {
    t.priced = true;
    t.system_price_usd = capex && capex->price_usd ? *capex->price_usd : *unit.price_usd;
    if (unit.network_capex_usd) {
      t.network_fabric_usd = *unit.network_capex_usd;
      t.network_storage_usd = t.network_fabric_usd + t.system_price_usd * p.storage_other_fraction;
      t.network_basis = "fabric";
      t.network_detail = unit.network_basis;
    } else {
      t.network_storage_usd = t.system_price_usd * p.network_storage_fraction;
      t.network_basis = "share";
    }
    t.installation_usd = t.system_price_usd * p.installation_fraction;
    t.price_basis = capex && capex->price_usd ? capex->basis : "published";
    t.price_kind = "server";
    t.price_source = capex && capex->price_usd ? capex->source : unit.price_source;
  }
  if (unit.cooling == Cooling::liquid) t.liquid_facility_usd = p.liquid_facility_usd_per_kw * unit.it_w / 1e3;

  const double r = p.cost_of_capital, n = p.depreciation_years;
  t.capital_recovery_factor = r > 0 ? r / (1.0 - std::pow(1.0 + r, -n)) : 1.0 / n;
  t.electricity_usd_per_year = t.facility_w_average / 1e3 * kHoursPerYear * p.electricity_usd_per_kwh;
  t.colocation_usd_per_year = t.it_w_full / 1e3 * p.colocation_usd_per_kw_month * 12.0;
  if (t.priced) {
    t.capital_usd_per_year = t.capex_usd() * t.capital_recovery_factor;
    t.maintenance_usd_per_year = t.capex_usd() * p.maintenance_fraction_per_year;
  } else {
    t.liquid_facility_usd = 0;
    t.electricity_usd_per_year = t.colocation_usd_per_year = 0;
  }
  return t;
}

TokenCost token_cost(const Tco& tco, double gpus, double tokens_per_s) {
  TokenCost c;
  if (tokens_per_s <= 0 || gpus <= 0) return c;
  const double gpu_share = gpus / tco.gpus_per_unit;  // units' worth of GPUs
  c.joules_per_token = tco.facility_w_average * gpu_share / tokens_per_s;
  c.it_joules_per_token = tco.it_w_average * gpu_share / tokens_per_s;
  if (tco.priced) {
    const double usd_per_s = tco.usd_per_unit_hour() * gpu_share / 3600.0;
    c.usd_per_million_tokens = usd_per_s / tokens_per_s * 1e6;
    c.tokens_per_usd = tokens_per_s / usd_per_s;
  }
  return c;
}

RunCost run_cost(const Tco& tco, int gpus, double tokens_per_s, double tokens) {
  RunCost r;
  r.tokens = tokens;
  r.gpus = gpus;
  if (tokens_per_s <= 0) return r;
  r.wall_s = tokens / tokens_per_s;
  r.gpu_hours = r.wall_s / 3600.0 * gpus;
  r.per_token = token_cost(tco, gpus, tokens_per_s);
  r.usd = r.per_token.usd_per_million_tokens * tokens / 1e6;
  r.facility_energy_j = r.per_token.joules_per_token * tokens;
  return r;
}

}  // namespace gpuplan::cost
