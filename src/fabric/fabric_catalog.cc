#include "fabric/fabric_catalog.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/embedded_data.h"
#include "core/error.h"
#include "core/suggest.h"
#include "core/yaml_reader.h"
#include "core/yaml_tree.h"

namespace gpuplan::fabric {
namespace {

constexpr double kMaxFigure = 1e9;

// `key` as a sourced number, or `key_assumption` naming an assumption; exactly one of them.
Figure figure(YamlMap& m, const std::string& key, bool required = true) {
  const auto v = m.opt_num_in(key, 0, kMaxFigure);
  const auto a = m.opt_str(key + "_assumption");
  if (v && a) throw InputError(m.path() + "." + key, fmt::format("give {} or {}_assumption, not both", key, key));
  if (!v && !a && required)
    throw InputError(m.path() + "." + key, fmt::format("missing (a figure, or {}_assumption naming one)", key));
  Figure f;
  if (v) f.value = *v;
  if (a) f.assumption = *a;
  return f;
}

std::map<std::string, std::string> sources(YamlMap& m) {
  std::map<std::string, std::string> out;
  YAML::Node n = m.raw("sources");
  if (!n || n.IsNull()) return out;
  if (!n.IsMap()) throw InputError(m.path() + ".sources", "expected a map of field: source");
  for (const auto& kv : n) out[kv.first.as<std::string>()] = kv.second.as<std::string>();
  return out;
}

std::vector<double> numbers(YamlMap& m, const std::string& key) {
  std::vector<double> out;
  YAML::Node n = m.raw(key);
  if (!n || n.IsNull()) return out;
  if (!n.IsSequence()) throw InputError(m.path() + "." + key, "expected a list of numbers");
  for (const auto& x : n) {
    const double v = x.as<double>();
    if (!(v > 0 && v < kMaxFigure)) throw InputError(m.path() + "." + key, "expected numbers > 0");
    out.push_back(v);
  }
  return out;
}

template <typename T>
const T* find(const std::vector<T>& list, const std::string& name) {
  const std::string n = normalize_name(name);
  for (const auto& e : list)
    if (normalize_name(e.name) == n) return &e;
  return nullptr;
}

template <typename T>
[[noreturn]] void unknown(const std::vector<T>& list, const std::string& name, const std::string& what,
                          const std::string& field) {
  std::vector<std::string> names;
  for (const auto& e : list) names.push_back(e.name);
  throw InputError(field, fmt::format("unknown {} '{}'{}; known: {}", what, name, did_you_mean(name, names),
                                      fmt::join(names, ", ")));
}

}  // namespace

int SwitchModel::radix_at(double gbps) const {
  if (gbps <= 0) return 0;
  bool ok = std::abs(gbps - port_gbps) < 1e-9;
  for (double b : breakout_gbps) ok = ok || std::abs(gbps - b) < 1e-9;
  return ok ? static_cast<int>(std::lround(ports * port_gbps / gbps)) : 0;
}

FabricCatalog FabricCatalog::parse(const std::string& text, const std::string& origin) {
  return parse(parse_yaml(text, origin), origin);
}

FabricCatalog FabricCatalog::parse(const YAML::Node& root, const std::string& origin) {
  YamlMap doc(root, origin);
  YamlMap fab = doc.map("fabric");
  FabricCatalog c;
  for (auto& m : fab.map_list("switches")) {
    SwitchModel s;
    s.name = m.str("name");
    s.display_name = m.str("display_name");
    s.ports = static_cast<int>(m.integer_in("ports", 1, 4096));
    s.port_gbps = m.num_in("port_gbps", 1, 1e5);
    s.breakout_gbps = numbers(m, "breakout_gbps");
    s.ports_per_cage = static_cast<int>(m.opt_integer_in("ports_per_cage", 1, 8).value_or(1));
    s.power_w = figure(m, "power_w");
    s.price_usd = figure(m, "price_usd");
    s.rack_units = static_cast<int>(m.integer_in("rack_units", 1, 48));
    s.sources = sources(m);
    m.reject_unknown_keys();
    c.switches_.push_back(std::move(s));
  }
  for (auto& m : fab.map_list("nics")) {
    NicModel n;
    n.name = m.str("name");
    n.display_name = m.str("display_name");
    n.gbps = m.num_in("gbps", 1, 1e5);
    n.power_w = figure(m, "power_w");
    n.price_usd = figure(m, "price_usd");
    n.sources = sources(m);
    m.reject_unknown_keys();
    c.nics_.push_back(std::move(n));
  }
  for (auto& m : fab.map_list("media")) {
    Medium d;
    d.name = m.str("name");
    d.display_name = m.str("display_name");
    d.generation = m.str("generation");
    d.copper = m.opt_boolean("copper").value_or(false);
    d.reach_m = figure(m, "reach_m");
    d.ports = static_cast<int>(m.integer_in("ports", 1, 8));
    d.power_w = figure(m, "power_w");
    d.single_port_power_w = figure(m, "single_port_power_w", !d.copper);
    d.price_usd = figure(m, "price_usd");
    d.sources = sources(m);
    m.reject_unknown_keys();
    c.media_.push_back(std::move(d));
  }
  for (auto& m : fab.map_list("kinds")) {
    FabricKind k;
    k.name = m.str("name");
    k.display_name = m.str("display_name");
    k.network = m.str("network");
    k.switch_name = m.str("switch");
    k.nic = m.str("nic");
    k.generation = m.str("generation");
    k.port_gbps = m.num_in("port_gbps", 1, 1e5);
    k.ports_per_nic = static_cast<int>(m.opt_integer_in("ports_per_nic", 1, 16).value_or(1));
    k.management_links = static_cast<int>(m.integer_in("management_links", 0, 1000));
    k.frontend = m.opt_boolean("frontend").value_or(false);
    k.switch_latency_ns = figure(m, "switch_latency_ns");
    k.sources = sources(m);
    m.reject_unknown_keys();
    c.kinds_.push_back(std::move(k));
  }
  for (auto& m : fab.map_list("assumptions")) {
    Assumption a;
    a.name = m.str("name");
    a.value = m.num_in("value", 0, kMaxFigure);
    a.basis = m.str("basis");
    m.reject_unknown_keys();
    c.assumptions_.push_back(std::move(a));
  }
  fab.reject_unknown_keys();
  c.check();
  return c;
}

void FabricCatalog::check() const {
  auto check_figure = [&](const Figure& f, const std::string& where) {
    if (!f.assumption.empty() && !find(assumptions_, f.assumption))
      throw InputError(where, fmt::format("names unknown assumption '{}'", f.assumption));
  };
  for (const auto& s : switches_) {
    check_figure(s.power_w, "fabric.switches." + s.name + ".power_w");
    check_figure(s.price_usd, "fabric.switches." + s.name + ".price_usd");
  }
  for (const auto& n : nics_) {
    check_figure(n.power_w, "fabric.nics." + n.name + ".power_w");
    check_figure(n.price_usd, "fabric.nics." + n.name + ".price_usd");
  }
  for (const auto& d : media_) {
    check_figure(d.reach_m, "fabric.media." + d.name + ".reach_m");
    check_figure(d.power_w, "fabric.media." + d.name + ".power_w");
    check_figure(d.single_port_power_w, "fabric.media." + d.name + ".single_port_power_w");
    check_figure(d.price_usd, "fabric.media." + d.name + ".price_usd");
  }
  for (const auto& k : kinds_) {
    const std::string at = "fabric.kinds." + k.name;
    const SwitchModel* s = find(switches_, k.switch_name);
    if (!s) unknown(switches_, k.switch_name, "switch", at + ".switch");
    if (s->radix_at(k.port_gbps) < 2)
      throw InputError(at + ".port_gbps", fmt::format("switch '{}' has no {:g}G ports", s->name, k.port_gbps));
    if (!find(nics_, k.nic)) unknown(nics_, k.nic, "NIC", at + ".nic");
    const bool has_medium = std::any_of(media_.begin(), media_.end(),
                                        [&](const Medium& d) { return d.generation == k.generation && !d.copper; });
    if (!has_medium) throw InputError(at + ".generation", fmt::format("no optical medium of generation '{}'", k.generation));
    check_figure(k.switch_latency_ns, at + ".switch_latency_ns");
  }
}

const FabricCatalog& FabricCatalog::builtin() {
  static const FabricCatalog cached = [] {
    for (const auto& f : embedded_data_files())
      if (f.path == "catalog/fabric.yaml") return parse(embedded_yaml(f), "catalog/fabric.yaml");
    throw InputError("catalog/fabric.yaml", "not embedded in this build");
  }();
  return cached;
}

void FabricCatalog::set_assumption(const std::string& name, double value) {
  for (auto& a : assumptions_) {
    if (normalize_name(a.name) == normalize_name(name)) {
      if (!std::isfinite(value) || value < 0 || value > kMaxFigure)
        throw InputError("--assume " + a.name, fmt::format("{:g} is out of range [0, {:g}]", value, kMaxFigure));
      a.value = value;
      a.overridden = true;
      return;
    }
  }
  unknown(assumptions_, name, "assumption", "--assume");
}

void FabricCatalog::set_assumption(const std::string& name_eq_value) {
  const auto eq = name_eq_value.find('=');
  if (eq == std::string::npos || eq == 0)
    throw InputError("--assume", fmt::format("'{}' is not NAME=VALUE (e.g. nic_400g_power_w=30)", name_eq_value));
  const std::string name = name_eq_value.substr(0, eq);
  const std::string v = name_eq_value.substr(eq + 1);
  size_t used = 0;
  double value = 0;
  try {
    value = std::stod(v, &used);
  } catch (...) {
    used = 0;
  }
  if (used == 0 || used != v.size())
    throw InputError("--assume " + name, fmt::format("'{}' is not a number", v));
  set_assumption(name, value);
}

const FabricKind& FabricCatalog::kind(const std::string& name, const std::string& field) const {
  if (const auto* k = find(kinds_, name)) return *k;
  unknown(kinds_, name, "fabric kind", field);
}
const SwitchModel& FabricCatalog::switch_model(const std::string& name) const {
  if (const auto* s = find(switches_, name)) return *s;
  unknown(switches_, name, "switch", "switch");
}
const NicModel& FabricCatalog::nic(const std::string& name) const {
  if (const auto* n = find(nics_, name)) return *n;
  unknown(nics_, name, "NIC", "nic");
}
const Assumption& FabricCatalog::assumption(const std::string& name) const {
  if (const auto* a = find(assumptions_, name)) return *a;
  unknown(assumptions_, name, "assumption", "--assume");
}
const FabricKind* FabricCatalog::kind_for_network(const std::string& network_name) const {
  const std::string n = normalize_name(network_name);
  for (const auto& k : kinds_)
    if (!k.frontend && normalize_name(k.network) == n) return &k;
  return nullptr;
}

double FabricCatalog::value(const Figure& f, std::set<std::string>* used) const {
  if (f.assumption.empty()) return f.value;
  if (used) used->insert(f.assumption);
  return assumption(f.assumption).value;
}

}  // namespace gpuplan::fabric
