#include "catalog/catalog_parse.h"

#include <fmt/format.h>

#include <set>

#include "core/error.h"
#include "core/suggest.h"
#include "core/yaml_reader.h"

namespace gpuplan {
namespace {

constexpr double kTera = 1e12;
constexpr double kGiga = 1e9;

std::string key_path(const YamlMap& m, const std::string& key) { return m.path() + "." + key; }

// A physical figure: strictly positive and at most `hi` (in the file's unit).
std::optional<double> opt_positive(YamlMap& m, const std::string& key, double hi) {
  auto v = m.opt_num_in(key, 0.0, hi);
  if (v && *v <= 0.0) throw InputError(key_path(m, key), fmt::format("must be greater than 0 (and at most {}), got {}", hi, *v));
  return v;
}

double positive(YamlMap& m, const std::string& key, double hi) {
  auto v = opt_positive(m, key, hi);
  if (!v) throw InputError(key_path(m, key), "is required");
  return *v;
}

// `name` must be a usable catalog key: non-empty and with at least one letter or digit.
std::string entry_name(YamlMap& m) {
  std::string name = m.str("name");
  if (normalize_name(name).empty())
    throw InputError(key_path(m, "name"), fmt::format("'{}' is not a usable name (needs letters or digits)", name));
  return name;
}

// `sources:` maps a field name (or "*" for the entry as a whole) to a citation. Keys must name a
// field of the entry so a misspelt one cannot silently cite nothing.
std::map<std::string, std::string> parse_sources(YamlMap& m, const std::vector<std::string>& fields) {
  std::map<std::string, std::string> out;
  YAML::Node n = m.raw("sources");
  if (!n || n.IsNull()) return out;
  const std::string path = key_path(m, "sources");
  if (!n.IsMap()) throw InputError(path, "expected a mapping of field: source (use \"*\" for the whole entry)");
  std::vector<std::string> allowed = fields;
  allowed.push_back("*");
  const std::set<std::string> ok(allowed.begin(), allowed.end());
  for (const auto& kv : n) {
    const std::string k = kv.first.as<std::string>();
    if (!ok.count(k))
      throw InputError(path + "." + k, "names no field of this entry" + did_you_mean(k, fields));
    if (!kv.second.IsScalar() || kv.second.Scalar().empty())
      throw InputError(path + "." + k, "expected a non-empty source (URL or citation)");
    out[k] = kv.second.Scalar();
  }
  return out;
}

std::vector<std::string> with_formats(std::vector<std::string> fields) {
  for (MathFormat f : kAllMathFormats) fields.emplace_back(to_string(f));
  return fields;
}

}  // namespace

Accelerator parse_accelerator(YamlMap& m, const std::string& origin) {
  Accelerator a;
  a.name = entry_name(m);
  a.display_name = m.opt_str("display_name").value_or(a.name);
  a.aliases = m.str_list("aliases");
  a.vendor = m.str("vendor");
  a.architecture = m.opt_str("architecture").value_or("");
  a.generation = m.str("generation");
  a.launch_year = static_cast<int>(m.opt_integer_in("launch_year", 1990, 2100).value_or(0));
  a.form_factor = m.opt_str("form_factor").value_or("");

  YamlMap peaks = m.map("peak_tflops");
  for (MathFormat f : kAllMathFormats) {
    if (auto v = opt_positive(peaks, std::string(to_string(f)), 1e6)) a.peak_flops[f] = *v * kTera;
  }
  peaks.reject_unknown_keys();
  if (!a.peak_flops.count(MathFormat::bf16))
    throw InputError(peaks.path() + ".bf16", "is required (dense BF16 TFLOP/s)");

  // One convention: the capacity the device exposes. memory_mib is the total the driver reports
  // (binary MiB, e.g. 81559 MiB on an "80 GB" H100); memory_gb the datasheet's decimal GB where no
  // driver figure is sourced. Exactly one of the two.
  {
    const auto mib = opt_positive(m, "memory_mib", 1e8);
    const auto gb = opt_positive(m, "memory_gb", 1e5);
    if (mib && gb)
      throw InputError(m.path() + ".memory_mib", "give memory_mib (driver-reported total, binary MiB) or memory_gb "
                                                 "(datasheet, decimal GB), not both");
    if (!mib && !gb) throw InputError(m.path() + ".memory_gb", "is required (or memory_mib), a number above 0");
    a.memory_bytes = mib ? *mib * 1048576.0 : *gb * kGiga;
    a.memory_basis = mib ? "driver" : "datasheet";
  }
  a.memory_type = m.opt_str("memory_type").value_or("");
  a.memory_bandwidth_bytes_per_s = positive(m, "memory_bandwidth_tb_per_s", 1e3) * kTera;
  a.scaleup_link = m.opt_str("scaleup_link").value_or("");
  a.scaleup_bandwidth_bytes_per_s = positive(m, "scaleup_bandwidth_gb_per_s", 1e5) * kGiga;
  a.max_scaleup_domain = static_cast<int>(m.opt_integer_in("max_scaleup_domain", 1, 1000000).value_or(1));
  a.host_link_bytes_per_s = opt_positive(m, "host_link_gb_per_s", 1e5).value_or(0.0) * kGiga;
  a.tdp_w = opt_positive(m, "tdp_w", 1e5).value_or(0.0);  // 0: not published (TPUs)
  a.arch_target = m.opt_str("arch_target").value_or("");
  a.compute_capability = static_cast<int>(m.opt_integer_in("compute_capability", 0, 999).value_or(0));
  a.min_cuda = m.opt_str("min_cuda").value_or("");
  a.min_driver = m.opt_str("min_driver").value_or("");
  a.first_pytorch = m.opt_str("first_pytorch").value_or("");
  a.price_usd = opt_positive(m, "price_usd", 1e9);
  a.sources = parse_sources(
      m, with_formats({"name", "display_name", "aliases", "vendor", "architecture", "generation", "launch_year",
                       "form_factor", "peak_tflops", "memory_gb", "memory_mib", "memory_type", "memory_bandwidth_tb_per_s",
                       "scaleup_link", "scaleup_bandwidth_gb_per_s", "max_scaleup_domain", "host_link_gb_per_s", "tdp_w", "arch_target",
                       "compute_capability", "min_cuda", "min_driver", "first_pytorch", "price_usd"}));
  a.origin = origin;
  m.reject_unknown_keys();
  return a;
}

System parse_system(YamlMap& m, const std::string& origin) {
  System s;
  s.name = entry_name(m);
  s.display_name = m.opt_str("display_name").value_or(s.name);
  s.aliases = m.str_list("aliases");
  s.accelerator = m.str("accelerator");
  s.gpus_per_node = static_cast<int>(m.integer_in("gpus_per_node", 1, 4096));
  s.nodes = static_cast<int>(m.opt_integer_in("nodes", 1, 1000000).value_or(1));
  s.nvlink_domain_gpus = static_cast<int>(m.integer_in("nvlink_domain_gpus", 1, 1000000));
  s.scaleup_network = m.str("scaleup_network");
  if (const auto topology = m.opt_str("scaleup_topology")) {
    if (*topology == "switched") {
      s.scaleup_topology = ScaleupTopology::switched;
    } else if (*topology == "direct_mesh") {
      s.scaleup_topology = ScaleupTopology::direct_mesh;
    } else {
      throw InputError(key_path(m, "scaleup_topology"),
                       fmt::format("must be switched or direct_mesh, got '{}'", *topology) +
                           did_you_mean(*topology, {"switched", "direct_mesh"}));
    }
  }
  s.scaleout_network = m.str("scaleout_network");
  s.scaleout_bandwidth_bytes_per_s_per_gpu = positive(m, "scaleout_gb_per_s_per_gpu", 1e5) * kGiga;
  s.power_w = positive(m, "power_kw", 1e5) * 1e3;
  const std::string cooling = m.str("cooling");
  if (cooling == "air") {
    s.cooling = Cooling::air;
  } else if (cooling == "liquid") {
    s.cooling = Cooling::liquid;
  } else {
    throw InputError(key_path(m, "cooling"),
                     fmt::format("must be air or liquid, got '{}'", cooling) + did_you_mean(cooling, {"air", "liquid"}));
  }
  s.host_memory_bytes = opt_positive(m, "host_memory_gb", 1e6).value_or(0.0) * kGiga;
  s.host_memory_bandwidth_bytes_per_s = opt_positive(m, "host_memory_bandwidth_gb_per_s", 1e6).value_or(0.0) * kGiga;
  if (auto ru = m.opt_integer_in("rack_units", 1, 100)) s.rack_units = static_cast<int>(*ru);
  s.price_usd = opt_positive(m, "price_usd", 1e10);
  s.claims = m.str_list("claims");
  s.sources = parse_sources(m, {"name", "display_name", "aliases", "accelerator", "gpus_per_node", "nodes",
                                "nvlink_domain_gpus", "scaleup_network", "scaleup_topology", "scaleout_network",
                                "scaleout_gb_per_s_per_gpu", "power_kw", "cooling", "host_memory_gb",
                                "host_memory_bandwidth_gb_per_s", "rack_units", "price_usd", "claims"});
  s.origin = origin;
  m.reject_unknown_keys();
  return s;
}

Network parse_network(YamlMap& m, const std::string& origin) {
  Network n;
  n.name = entry_name(m);
  n.display_name = m.opt_str("display_name").value_or(n.name);
  n.aliases = m.str_list("aliases");
  const std::string tier = m.str("tier");
  if (tier == "scale_up") {
    n.tier = NetworkTier::scale_up;
  } else if (tier == "scale_out") {
    n.tier = NetworkTier::scale_out;
  } else {
    throw InputError(key_path(m, "tier"), fmt::format("must be scale_up or scale_out, got '{}'", tier) +
                                              did_you_mean(tier, {"scale_up", "scale_out"}));
  }
  n.bandwidth_bytes_per_s = positive(m, "bandwidth_gb_per_s", 1e5) * kGiga;
  n.latency_s = m.num_in("latency_us", 0.0, 1e6) * 1e-6;
  n.latency_is_assumption = m.opt_boolean("latency_is_assumption").value_or(true);
  n.sources = parse_sources(m, {"name", "display_name", "aliases", "tier", "bandwidth_gb_per_s", "latency_us",
                                "latency_is_assumption"});
  n.origin = origin;
  m.reject_unknown_keys();
  return n;
}

}  // namespace gpuplan
