#include "cost/cost_profile.h"

#include <fmt/format.h>

#include <fstream>
#include <sstream>

#include "core/embedded_data.h"
#include "core/input_file.h"
#include "core/error.h"
#include "core/yaml_reader.h"
#include "core/yaml_tree.h"
#include "deploy/site.h"

namespace gpuplan::cost {
namespace {

struct Range {
  const char* key;
  double CostProfile::*field;
  double lo, hi;
};
// One table for parsing and validation: the key as written in YAML (and, with dashes, on the command
// line), the field, and the allowed range.
constexpr Range kCapital[] = {
    {"depreciation_years", &CostProfile::depreciation_years, 0.5, 30},
    {"cost_of_capital", &CostProfile::cost_of_capital, 0, 1},
    {"network_storage_fraction", &CostProfile::network_storage_fraction, 0, 5},
    {"storage_other_fraction", &CostProfile::storage_other_fraction, 0, 5},
    {"installation_fraction", &CostProfile::installation_fraction, 0, 5},
    {"liquid_facility_usd_per_kw", &CostProfile::liquid_facility_usd_per_kw, 0, 1e6},
};
constexpr Range kOperating[] = {
    {"electricity_usd_per_kwh", &CostProfile::electricity_usd_per_kwh, 0, 10},
    {"colocation_usd_per_kw_month", &CostProfile::colocation_usd_per_kw_month, 0, 1e5},
    {"maintenance_fraction_per_year", &CostProfile::maintenance_fraction_per_year, 0, 1},
    {"average_power_fraction", &CostProfile::average_power_fraction, 0.05, 1},
    {"pue", &CostProfile::pue, 1, 3},
};

void read_block(YamlMap& m, const Range* begin, const Range* end, CostProfile& p) {
  for (const Range* r = begin; r != end; ++r) {
    if (auto v = m.opt_num_in(r->key, r->lo, r->hi)) p.*(r->field) = *v;
    if (auto s = m.opt_str(std::string(r->key) + "_source")) p.sources[r->key] = *s;
    else if (m.has(r->key) && p.origin != "built-in") p.sources[r->key] = p.origin;
  }
  m.reject_unknown_keys();
}

}  // namespace

void validate_cost_profile(const CostProfile& p, const std::string& prefix) {
  auto check = [&](const Range& r) {
    const double v = p.*(r.field);
    if (!(v >= r.lo && v <= r.hi))
      throw InputError(prefix + r.key, fmt::format("must be {} to {}, got {}", r.lo, r.hi, v));
  };
  for (const auto& r : kCapital) check(r);
  for (const auto& r : kOperating) check(r);
}

namespace {

CostProfile parse_cost_document(const YAML::Node& doc, const std::string& origin, const CostProfile& base) {
  CostProfile p = base;
  p.origin = origin;
  YamlMap root(doc, origin);
  if (auto s = root.opt_str("schema"); s && *s != "gpuplan.cost/v1")
    throw InputError(origin + ": schema", "must be gpuplan.cost/v1, got '" + *s + "'");
  if (auto c = root.opt_map("capital")) read_block(*c, std::begin(kCapital), std::end(kCapital), p);
  if (auto o = root.opt_map("operating")) read_block(*o, std::begin(kOperating), std::end(kOperating), p);
  if (root.has("systems")) {
    YAML::Node node = root.raw("systems");
    if (!node.IsMap()) throw InputError(origin + ": systems", "must be a map of system name -> capex");
    for (const auto& kv : node) {
      const std::string name = kv.first.as<std::string>();
      YamlMap s(kv.second, origin + ": systems." + name);
      SystemCapex c;  // an entry replaces the base's entry for that system
      if (auto v = s.opt_num_in("price_usd", 1, 1e10)) c.price_usd = v;
      if (auto v = s.opt_num_in("allin_capex_usd", 1, 1e10)) c.allin_capex_usd = v;
      c.basis = s.opt_str("basis").value_or(origin == "built-in" ? "published" : "user");
      if (c.basis != "published" && c.basis != "estimate" && c.basis != "user")
        throw InputError(s.path() + ".basis", "must be published, estimate or user, got '" + c.basis + "'");
      c.source = s.opt_str("source").value_or(origin);
      s.reject_unknown_keys();
      if (!c.price_usd && !c.allin_capex_usd)
        throw InputError(s.path(), "give price_usd or allin_capex_usd");
      p.systems[name] = c;
    }
  }
  root.reject_unknown_keys();
  validate_cost_profile(p, origin + ": ");
  return p;
}

}  // namespace

CostProfile parse_cost_profile(const std::string& text, const std::string& origin, const CostProfile& base) {
  return parse_cost_document(parse_yaml(text, origin), origin, base);
}

CostProfile read_cost_profile(const std::string& path, const CostProfile& base) {
  return parse_cost_profile(read_input_file(path, "--cost-profile"), path, base);
}

const CostProfile& builtin_cost_profile() {
  static const CostProfile p = [] {
    CostProfile base;
    const deploy::SiteSpec site = deploy::builtin_site_defaults();
    base.pue = site.pue;
    base.sources["pue"] = "data/deploy/site.yaml (Uptime Institute 2024: new builds at 1.3 or better)";
    for (const auto& f : embedded_data_files())
      if (f.path == "cost/defaults.yaml") {
        CostProfile parsed = parse_cost_document(embedded_yaml(f), "built-in", base);
        parsed.origin = "built-in";
        return parsed;
      }
    throw InputError("cost/defaults.yaml", "not embedded in this build");
  }();
  return p;
}

}  // namespace gpuplan::cost
