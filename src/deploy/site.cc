#include "deploy/site.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>

#include "core/embedded_data.h"
#include "core/input_file.h"
#include "core/error.h"
#include "core/suggest.h"
#include "core/text.h"
#include "core/yaml_reader.h"
#include "core/yaml_tree.h"

namespace gpuplan::deploy {

namespace {

std::string cooling_name(Cooling c) { return c == Cooling::liquid ? "liquid" : "air"; }

Cooling parse_cooling(YamlMap& m, const std::string& key) {
  const std::string c = m.str(key);
  if (c == "air") return Cooling::air;
  if (c == "liquid") return Cooling::liquid;
  throw InputError(m.path() + "." + key, "must be air or liquid, got '" + c + "'" + did_you_mean(c, {"air", "liquid"}));
}

// Shared keys of the defaults file and a site file.
void read_shares(YamlMap& m, SiteSpec& s) {
  if (auto v = m.opt_num_in("pue", 1.0, 3.0)) s.pue = *v;
  if (auto v = m.opt_num_in("headroom_pct", 0, 90)) s.headroom = *v / 100.0;
  if (auto v = m.opt_num_in("scaleout_switch_share", 0, 1)) s.scaleout_switch_share = *v;
  if (auto v = m.opt_num_in("storage_share", 0, 1)) s.storage_share = *v;
  if (auto v = m.opt_num_in("nic_w", 0, 1000)) s.nic_w = *v;
  if (auto v = m.opt_integer_in("rack_units_usable", 1, 100)) s.rack_units_usable = static_cast<int>(*v);
  if (auto v = m.opt_integer_in("default_node_rack_units", 1, 100)) s.default_node_rack_units = static_cast<int>(*v);
}

}  // namespace

SiteSpec builtin_site_defaults() {
  for (const auto& f : embedded_data_files()) {
    if (f.path != "deploy/site.yaml") continue;
    YamlMap m(embedded_yaml(f), "deploy/site.yaml");
    SiteSpec s;
    m.opt_str("schema");
    for (const char* k : {"pue_source", "headroom_source", "share_source", "nic_source", "rack_units_source"})
      m.opt_str(k);
    read_shares(m, s);
    m.reject_unknown_keys();
    return s;
  }
  return SiteSpec{};
}

SiteSpec parse_site_yaml(const std::string& text, const std::string& origin, const SiteSpec& defaults) {
  YamlMap m(parse_yaml(text, origin), origin);
  SiteSpec s = defaults;
  if (auto v = m.opt_str("schema"); v && *v != "gpuplan.site/v1")
    throw InputError(origin + ": schema", "must be gpuplan.site/v1, got '" + *v + "'");
  if (auto v = m.opt_str("name")) s.name = *v;
  if (auto v = m.opt_num_in("total_power_mw", 0.001, 100000)) s.total_power_w = *v * 1e6;
  read_shares(m, s);
  s.positions.clear();
  auto list = m.map_list("positions");
  if (list.empty()) throw InputError(origin + ": positions", "must list at least one kind of rack position");
  for (YamlMap p : list) {
    PositionGroup g;
    g.name = p.opt_str("name").value_or(fmt::format("positions[{}]", s.positions.size()));
    g.count = static_cast<int>(p.integer_in("count", 1, 1000000));
    g.cooling = parse_cooling(p, "cooling");
    g.max_w = p.num_in("max_kw", 0.1, 10000) * 1e3;
    if (auto c = p.opt_num_in("cdu_capacity_kw", 1, 1e7)) {
      if (g.cooling != Cooling::liquid)
        throw InputError(p.path() + ".cdu_capacity_kw", "only liquid positions have CDUs (cooling: liquid)");
      g.cdu_capacity_w = *c * 1e3;
    }
    p.reject_unknown_keys();
    s.positions.push_back(g);
  }
  m.reject_unknown_keys();
  return s;
}

SiteSpec read_site_file(const std::string& path, const SiteSpec& defaults) {
  return parse_site_yaml(read_input_file(path, "--site"), path, defaults);
}

UnitPower unit_power(const SystemPowerInput& s, const SiteSpec& site) {
  UnitPower u;
  u.system = s.name;
  u.display_name = s.display_name.empty() ? s.name : s.display_name;
  if (auto at = u.display_name.find(" (rack)"); at != std::string::npos) u.display_name.erase(at, 7);
  u.unit_is_rack = s.nodes > 1;
  u.gpus = s.gpus_per_node * s.nodes;
  u.cooling = s.cooling;
  // GPUs at TDP and one scale-out NIC per GPU; the rest of the catalog's unit power is the host.
  u.gpu_w = std::min(s.power_w, u.gpus * s.gpu_tdp_w);
  u.nic_w = std::min(s.power_w - u.gpu_w, u.gpus * site.nic_w);
  u.host_w = s.power_w - u.gpu_w - u.nic_w;
  u.switch_w = s.power_w * site.scaleout_switch_share;
  u.storage_w = s.power_w * site.storage_share;
  const int ru = s.rack_units > 0 ? s.rack_units : site.default_node_rack_units;
  u.units_per_rack = u.unit_is_rack ? 1 : std::max(1, site.rack_units_usable / ru);
  return u;
}

int units_per_position(const UnitPower& u, const PositionGroup& g, const SiteSpec&) {
  if (u.cooling != g.cooling) return 0;
  if (u.unit_is_rack) return u.unit_w() <= g.max_w ? 1 : 0;
  return std::min(u.units_per_rack, static_cast<int>(std::floor(g.max_w / u.unit_w())));
}

namespace {

// floor(x) as an int, saturating (free capacity may be "unlimited").
int floor_int(double x) { return x >= 1e9 ? 1000000000 : static_cast<int>(std::floor(x)); }

int cdu_limit(const UnitPower& u, const PositionGroup& g) {
  if (g.cdu_capacity_w <= 0) return 1 << 30;
  return floor_int(g.cdu_capacity_w / u.unit_w());
}

// Why no position takes a unit of this system.
std::string why_not(const UnitPower& u, const SiteSpec& site) {
  std::string what = u.unit_is_rack ? "rack" : "node";
  std::string msg = fmt::format("a {} {} draws about {}", u.display_name, what, kilowatts_text(u.unit_w(), 0));
  std::string others;
  double best_same = 0;
  for (const auto& g : site.positions) {
    if (g.cooling == u.cooling) best_same = std::max(best_same, g.max_w);
    else
      others = fmt::format("your {} positions take {}", cooling_name(g.cooling), kilowatts_text(g.max_w, 0));
  }
  if (best_same <= 0)
    return msg + fmt::format(": needs {} cooling; ", cooling_name(u.cooling)) +
           (others.empty() ? "the site has no such positions" : others);
  return msg +
         fmt::format(": your {} positions take at most {}", cooling_name(u.cooling), kilowatts_text(best_same, 0));
}

}  // namespace

int units_for_budget(const UnitPower& u, double facility_budget_w, const SiteSpec& site) {
  const double per_unit = u.it_w() * site.pue;
  return floor_int(facility_budget_w * (1.0 - site.headroom) / per_unit + 1e-9);
}

SystemCapacity system_capacity(const UnitPower& u, const SiteSpec& site) {
  SystemCapacity c;
  c.system = u.system;
  bool cdu_bound = false;
  for (const auto& g : site.positions) {
    const long long n = static_cast<long long>(g.count) * units_per_position(u, g, site);
    cdu_bound |= cdu_limit(u, g) < n;
    c.by_positions += static_cast<int>(std::min<long long>(n, cdu_limit(u, g)));
  }
  c.by_power = site.total_power_w > 0 ? units_for_budget(u, site.total_power_w, site) : -1;
  c.units = c.by_power < 0 ? c.by_positions : std::min(c.by_positions, c.by_power);
  c.gpus = c.units * u.gpus;
  if (c.by_positions == 0) {
    c.limit = "cooling";
    c.why_not = why_not(u, site);
  } else {
    c.limit = (c.by_power >= 0 && c.by_power < c.by_positions) ? "power" : cdu_bound ? "cdu" : "positions";
    if (c.units == 0)
      c.why_not = fmt::format("one {} needs {} of feed with PUE and headroom", u.display_name,
                              kilowatts_text(u.it_w() * site.pue / (1.0 - site.headroom), 0));
  }
  return c;
}

SiteFit fit_site(const std::vector<std::pair<UnitPower, int>>& groups, const SiteSpec& site) {
  SiteFit fit;
  std::vector<int> free_positions;
  std::vector<double> free_cdu;
  for (const auto& g : site.positions) {
    free_positions.push_back(g.count);
    free_cdu.push_back(g.cdu_capacity_w > 0 ? g.cdu_capacity_w : 1e300);
  }
  double free_power = site.total_power_w > 0 ? site.usable_facility_w() : 1e300;
  for (const auto& [u, count] : groups) {
    GroupFit gf{u, count, 0, 0};
    const double unit_facility = u.it_w() * site.pue;
    fit.it_w += count * u.it_w();
    bool power_short = false, cdu_short = false;
    for (std::size_t i = 0; i < site.positions.size() && gf.placed < count; ++i) {
      const auto& g = site.positions[i];
      const int per = units_per_position(u, g, site);
      if (per == 0) continue;
      while (gf.placed < count && free_positions[i] > 0) {
        int n = std::min(per, count - gf.placed);
        n = std::min(n, floor_int(free_power / unit_facility));
        n = std::min(n, floor_int(free_cdu[i] / u.unit_w()));
        if (n <= 0) {
          if (free_power < unit_facility) power_short = true;
          else cdu_short = true;
          break;
        }
        gf.placed += n;
        gf.racks += 1;
        free_positions[i] -= 1;
        free_power -= n * unit_facility;
        if (g.cdu_capacity_w > 0) free_cdu[i] -= n * u.unit_w();
      }
      if (power_short) break;
    }
    if (gf.placed < count) {
      const int missing = count - gf.placed;
      std::string msg = fmt::format("{} of {} {} {} do not fit: ", missing, count, u.display_name,
                                    u.unit_is_rack ? "racks" : "nodes");
      std::string code;
      if (gf.placed == 0 && system_capacity(u, site).by_positions == 0) {
        code = "site.cooling";
        msg += why_not(u, site);
      } else if (power_short) {
        code = "site.power";
        msg += fmt::format("the feed of {:.2f} MW less {:.0f}% headroom is used up", site.total_power_w / 1e6,
                           site.headroom * 100);
      } else if (cdu_short) {
        code = "site.cdu";
        msg += "the CDU capacity of the liquid positions is used up";
      } else {
        code = "site.positions";
        msg += fmt::format("no free {} positions left", cooling_name(u.cooling));
      }
      fit.violations.push_back({code, u.system, msg});
    }
    fit.positions_used += gf.racks;
    fit.groups.push_back(gf);
    fit.capacity.push_back(system_capacity(u, site));
  }
  fit.facility_w = fit.it_w * site.pue;
  fit.planned_w = fit.facility_w / (1.0 - site.headroom);
  if (site.total_power_w > 0 && fit.planned_w > site.total_power_w)
    fit.violations.push_back({"site.power", "site",
                              fmt::format("the cluster needs {:.2f} MW of feed with PUE {:.2f} and {:.0f}% headroom; "
                                          "the site has {:.2f} MW",
                                          fit.planned_w / 1e6, site.pue, site.headroom * 100,
                                          site.total_power_w / 1e6)});
  return fit;
}

}  // namespace gpuplan::deploy
