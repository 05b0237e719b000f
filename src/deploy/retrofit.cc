#include "deploy/retrofit.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/embedded_data.h"
#include "core/text.h"
#include "core/yaml_reader.h"
#include "core/yaml_tree.h"

namespace gpuplan::deploy {
namespace {

constexpr double kWaterHeatCapacityJPerKgK = 4186;  // liquid water near 20-40 C

// Units of one group a position holds: the densest the site's positions of its cooling allow, else a
// full rack (the position to add).
int density(const UnitPower& u, const SiteSpec& site) {
  int best = 0;
  for (const auto& g : site.positions) best = std::max(best, units_per_position(u, g, site));
  return best > 0 ? best : (u.unit_is_rack ? 1 : std::max(1, u.units_per_rack));
}

}  // namespace

RetrofitDefaults builtin_retrofit_defaults() {
  RetrofitDefaults d;
  for (const auto& f : embedded_data_files()) {
    if (f.path != "deploy/retrofit.yaml") continue;
    YamlMap m(embedded_yaml(f), "deploy/retrofit.yaml");
    m.opt_str("schema");
    for (const auto& kv : m.raw("rack_weight_kg")) d.rack_weight_kg[kv.first.as<std::string>()] = kv.second.as<double>();
    for (const auto& kv : m.raw("rack_weight_source"))
      d.rack_weight_source[kv.first.as<std::string>()] = kv.second.as<std::string>();
    d.rack_footprint_m2 = m.num_in("rack_footprint_m2", 0.1, 10);
    d.water_delta_t_k = m.num_in("water_delta_t_k", 1, 50);
    d.liquid_retrofit_usd_per_kw = m.num_in("liquid_retrofit_usd_per_kw", 0, 1e6);
    d.circuit_voltage_v = m.num_in("circuit_voltage_v", 100, 1000);
    d.circuit_current_a = m.num_in("circuit_current_a", 1, 1000);
    d.circuit_derating = m.num_in("circuit_derating", 0.1, 1);
    d.feed_redundancy = static_cast<int>(m.integer_in("feed_redundancy", 1, 4));
    for (const char* k : {"rack_footprint_source", "water_delta_t_source", "liquid_retrofit_source", "circuit_source",
                          "feed_redundancy_source"})
      m.opt_str(k);
    m.reject_unknown_keys();
  }
  return d;
}

double RetrofitDefaults::circuit_w() const {
  return std::sqrt(3.0) * circuit_voltage_v * circuit_current_a * circuit_derating;
}

Retrofit plan_retrofit(const std::vector<std::pair<UnitPower, int>>& groups, const SiteSpec& site,
                       const NetworkLoad& network, const RetrofitDefaults& d) {
  Retrofit r;
  double it_w = 0;
  for (Cooling c : {Cooling::air, Cooling::liquid}) {
    PositionNeed need;
    need.cooling = c;
    double least_unit_w = 0;
    for (const auto& [u, units] : groups) {
      if (u.cooling != c || units <= 0) continue;
      const int per = density(u, site);
      need.needed += (units + per - 1) / per;
      need.max_position_w = std::max(need.max_position_w, u.unit_w() * std::min(per, units));
      least_unit_w = least_unit_w > 0 ? std::min(least_unit_w, u.unit_w()) : u.unit_w();
      if (c == Cooling::liquid) r.liquid_heat_w += u.unit_w() * units;
    }
    if (need.needed == 0) continue;
    // Site positions of this cooling that take at least one unit (`gpuplan site`'s placement is the exact
    // fit; this is the count to plan with).
    for (const auto& g : site.positions)
      if (g.cooling == c && g.max_w >= least_unit_w) need.available += g.count;
    need.circuits_per_position =
        d.feed_redundancy * static_cast<int>(std::ceil(need.max_position_w / d.circuit_w() - 1e-9));
    r.circuits += need.circuits_per_position * need.needed;
    r.positions.push_back(need);
    if (need.to_add() > 0)
      r.changes.push_back(fmt::format("add {} {}-cooled positions of at least {} (the site has {} that take a unit)",
                                      need.to_add(), c == Cooling::liquid ? "liquid" : "air",
                                      kilowatts_text(need.max_position_w, 0), need.available));
  }
  // With the fabric planned, its power replaces the units' flat scale-out switch share.
  const bool planned = network.power_w > 0 || network.switch_rack_units > 0;
  for (const auto& [u, units] : groups) it_w += (planned ? u.it_w() - u.switch_w : u.it_w()) * units;

  // CDUs and facility water for the liquid heat.
  for (const auto& g : site.positions)
    if (g.cooling == Cooling::liquid) r.cdu_capacity_w += g.cdu_capacity_w;
  const bool cdu_known = std::any_of(site.positions.begin(), site.positions.end(),
                                     [](const PositionGroup& g) { return g.cooling == Cooling::liquid && g.cdu_capacity_w > 0; });
  if (r.liquid_heat_w > 0) {
    r.cdu_to_add_w = std::max(0.0, r.liquid_heat_w - (cdu_known ? r.cdu_capacity_w : 0.0));
    r.water_delta_t_k = d.water_delta_t_k;
    r.water_flow_kg_per_s = r.liquid_heat_w / (kWaterHeatCapacityJPerKgK * d.water_delta_t_k);
    if (r.cdu_to_add_w > 0)
      r.changes.push_back(fmt::format("add {} of CDU capacity (liquid heat {}, CDUs {})",
                                      kilowatts_text(r.cdu_to_add_w, 0), kilowatts_text(r.liquid_heat_w, 0),
                                      cdu_known ? kilowatts_text(r.cdu_capacity_w, 0) : "not given"));
    r.changes.push_back(fmt::format("facility water: {:.1f} kg/s (about {:.0f} m3/h) at a {:.0f} K rise", r.water_flow_kg_per_s,
                                    r.water_flow_kg_per_s * 3.6, d.water_delta_t_k));
    r.liquid_retrofit_usd = r.cdu_to_add_w / 1e3 * d.liquid_retrofit_usd_per_kw;
  }

  // Feed: IT with the fabric's network where planned, PUE, headroom.
  r.feed_needed_w = (it_w + network.power_w) * site.pue / (1.0 - site.headroom);
  if (site.total_power_w > 0 && r.feed_needed_w > site.total_power_w) {
    r.feed_to_add_w = r.feed_needed_w - site.total_power_w;
    r.changes.push_back(fmt::format("add {:.2f} MW of feed (needs {:.2f} MW with {:.0f}% headroom, has {:.2f} MW)",
                                    r.feed_to_add_w / 1e6, r.feed_needed_w / 1e6, site.headroom * 100,
                                    site.total_power_w / 1e6));
  }

  r.circuit_w = d.circuit_w();
  for (const auto& p : r.positions)
    r.changes.push_back(fmt::format(
        "power distribution: {} circuits of {} per {}-cooled position ({} x {:.0f} V x "
        "{:.0f} A three-phase at {:.0f}%, {}N), {} in all",
        p.circuits_per_position, kilowatts_text(r.circuit_w, 0), p.cooling == Cooling::liquid ? "liquid" : "air",
        p.circuits_per_position / d.feed_redundancy, d.circuit_voltage_v, d.circuit_current_a, d.circuit_derating * 100,
        d.feed_redundancy, p.circuits_per_position * p.needed));

  // The fabric's switches in network racks.
  if (network.switch_rack_units > 0) {
    r.switch_racks = static_cast<int>((network.switch_rack_units + site.rack_units_usable - 1) / site.rack_units_usable);
    r.switch_racks_w = network.power_w;
    r.changes.push_back(fmt::format("{} network racks for the scale-out switches ({} U, {} with optics)",
                                    r.switch_racks, network.switch_rack_units, kilowatts_text(network.power_w, 0)));
  }

  // Floor loading of rack-scale systems with a sourced weight.
  for (const auto& [u, units] : groups) {
    if (!u.unit_is_rack || units <= 0) continue;
    const auto it = d.rack_weight_kg.find(u.system);
    if (it == d.rack_weight_kg.end()) continue;
    FloorLoad f{u.system, it->second, it->second / d.rack_footprint_m2, ""};
    if (auto s = d.rack_weight_source.find(u.system); s != d.rack_weight_source.end()) f.source = s->second;
    r.floor.push_back(f);
    r.changes.push_back(fmt::format("floor: {} racks of {} weigh {:.0f} kg each, {:.0f} kg/m2 on a {:.2f} m2 position",
                                    units, u.system, f.rack_kg, f.kg_per_m2, d.rack_footprint_m2));
  }
  if (r.liquid_retrofit_usd > 0)
    r.changes.push_back(fmt::format("liquid-cooling retrofit: order of ${:.1f}M (assumption ${:.0f}/kW of CDU capacity added)",
                                    r.liquid_retrofit_usd / 1e6, d.liquid_retrofit_usd_per_kw));
  return r;
}

}  // namespace gpuplan::deploy
