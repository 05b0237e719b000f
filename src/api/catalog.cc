// gpuplan catalog list [accelerators|systems|networks] | gpuplan catalog show NAME
// Lists the catalog (built-in plus --catalog overlays) or shows one entry with each figure's unit and
// source and where the entry came from.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <iostream>
#include <map>

#include "api/catalog.h"
#include "api/text.h"
#include "core/error.h"
#include "core/suggest.h"

namespace gpuplan::api {
namespace {

using nlohmann::json;

// 989.5, 1979, 0.819, 15000: up to 3 decimals, trailing zeros dropped.
std::string num(double v) {
  std::string s = fmt::format("{:.3f}", v);
  while (!s.empty() && s.back() == '0') s.pop_back();
  if (!s.empty() && s.back() == '.') s.pop_back();
  return s;
}

std::string opt_num(double v, double scale) { return v > 0 ? num(v / scale) : "-"; }

json to_json(const Accelerator& a) {
  json peaks = json::object();
  for (const auto& [f, v] : a.peak_flops) peaks[std::string(to_string(f))] = v;
  json j = {{"name", a.name},
            {"display_name", a.display_name},
            {"aliases", a.aliases},
            {"vendor", a.vendor},
            {"architecture", a.architecture},
            {"generation", a.generation},
            {"launch_year", a.launch_year},
            {"form_factor", a.form_factor},
            {"peak_flops_per_s", peaks},
            {"memory_bytes", a.memory_bytes},
            {"memory_basis", a.memory_basis},
            {"memory_type", a.memory_type},
            {"memory_bandwidth_bytes_per_s", a.memory_bandwidth_bytes_per_s},
            {"scaleup_link", a.scaleup_link},
            {"scaleup_bandwidth_bytes_per_s", a.scaleup_bandwidth_bytes_per_s},
            {"max_scaleup_domain", a.max_scaleup_domain},
            {"tdp_w", a.tdp_w > 0 ? json(a.tdp_w) : json(nullptr)},
            {"arch_target", a.arch_target},
            {"compute_capability", a.compute_capability},
            {"min_cuda", a.min_cuda},
            {"min_driver", a.min_driver},
            {"first_pytorch", a.first_pytorch},
            {"price_usd", a.price_usd ? json(*a.price_usd) : json(nullptr)},
            {"sources", a.sources},
            {"origin", a.origin}};
  return j;
}

// The host side of a node: its DRAM and bandwidth (per node, shared by its GPUs) and each GPU's link to
// it (the accelerator's; nullptr where the catalog does not hold the accelerator).
json host_json(const System& s, const Accelerator* a) {
  const auto or_null = [](double v) { return v > 0 ? json(v) : json(nullptr); };
  return {{"host_memory_bytes", or_null(s.host_memory_bytes)},
          {"host_memory_bytes_per_gpu", or_null(s.host_memory_bytes_per_gpu())},
          {"host_memory_bandwidth_bytes_per_s", or_null(s.host_memory_bandwidth_bytes_per_s)},
          {"host_link_bytes_per_s_per_gpu", a ? or_null(a->host_link_bytes_per_s) : json(nullptr)}};
}

json to_json(const System& s, const Accelerator* a) {
  return {{"name", s.name},
          {"display_name", s.display_name},
          {"aliases", s.aliases},
          {"accelerator", s.accelerator},
          {"gpus_per_node", s.gpus_per_node},
          {"nodes", s.nodes},
          {"gpus_per_unit", s.gpus_per_unit()},
          {"nvlink_domain_gpus", s.nvlink_domain_gpus},
          {"scaleup_network", s.scaleup_network},
          {"scaleup_topology", s.scaleup_topology == ScaleupTopology::direct_mesh ? "direct_mesh" : "switched"},
          {"scaleout_network", s.scaleout_network},
          {"scaleout_bandwidth_bytes_per_s_per_gpu", s.scaleout_bandwidth_bytes_per_s_per_gpu},
          {"power_w", s.power_w},
          {"host", host_json(s, a)},
          {"cooling", s.cooling == Cooling::liquid ? "liquid" : "air"},
          {"rack_units", s.rack_units ? json(*s.rack_units) : json(nullptr)},
          {"price_usd", s.price_usd ? json(*s.price_usd) : json(nullptr)},
          {"claims", s.claims},
          {"sources", s.sources},
          {"origin", s.origin}};
}

json to_json(const Network& n) {
  return {{"name", n.name},
          {"display_name", n.display_name},
          {"aliases", n.aliases},
          {"tier", n.tier == NetworkTier::scale_up ? "scale_up" : "scale_out"},
          {"bandwidth_bytes_per_s", n.bandwidth_bytes_per_s},
          {"latency_s", n.latency_s},
          {"latency_is_assumption", n.latency_is_assumption},
          {"sources", n.sources},
          {"origin", n.origin}};
}

void list_accelerators(std::ostream& os, const Catalog& c) {
  std::vector<std::vector<std::string>> rows;
  for (const auto& a : c.accelerators()) {
    rows.push_back({a.name, a.vendor, opt_num(a.peak(MathFormat::bf16), 1e12), opt_num(a.peak(MathFormat::fp8), 1e12),
                    opt_num(a.peak(MathFormat::fp4), 1e12), num(a.memory_bytes / 1e9),
                    num(a.memory_bandwidth_bytes_per_s / 1e12), num(a.scaleup_bandwidth_bytes_per_s / 1e9),
                    std::to_string(a.max_scaleup_domain), opt_num(a.tdp_w, 1)});
  }
  os << "Accelerators (dense peak TFLOP/s; scale-up GB/s per GPU, one direction)\n";
  print_table(os, {"name", "vendor", "BF16", "FP8", "FP4", "mem GB", "TB/s", "scale-up GB/s", "domain", "TDP W"}, rows);
}

void list_systems(std::ostream& os, const Catalog& c) {
  std::vector<std::vector<std::string>> rows;
  for (const auto& s : c.systems()) {
    rows.push_back({s.name, s.accelerator, std::to_string(s.gpus_per_unit()),
                    fmt::format("{}x{}", s.nodes, s.gpus_per_node), std::to_string(s.nvlink_domain_gpus),
                    s.scaleup_network, fmt::format("{} {}", s.scaleout_network,
                                                   num(s.scaleout_bandwidth_bytes_per_s_per_gpu / 1e9)),
                    num(s.power_w / 1e3), s.cooling == Cooling::liquid ? "liquid" : "air"});
  }
  os << "Systems (scale-out GB/s per GPU, one direction; power of the whole unit)\n";
  print_table(os, {"name", "accelerator", "GPUs", "nodes", "domain", "scale-up", "scale-out GB/s", "power kW", "cooling"},
              rows);
}

void list_networks(std::ostream& os, const Catalog& c) {
  std::vector<std::vector<std::string>> rows;
  for (const auto& n : c.networks()) {
    rows.push_back({n.name, n.tier == NetworkTier::scale_up ? "scale-up" : "scale-out",
                    num(n.bandwidth_bytes_per_s / 1e9),
                    num(n.latency_s * 1e6) + (n.latency_is_assumption ? " *" : ""), n.display_name});
  }
  os << "Networks (GB/s per port or GPU, one direction; * latency is a modelling assumption)\n";
  print_table(os, {"name", "tier", "GB/s", "latency us", "display name"}, rows);
}

// The source of a figure: its own, else its group's ("peak_tflops"); "" means the entry's source
// (key "*"), which the header prints once.
std::string source_of(const std::map<std::string, std::string>& src, const std::string& field,
                      const std::string& group = "") {
  if (auto it = src.find(field); it != src.end()) return it->second;
  if (!group.empty())
    if (auto it = src.find(group); it != src.end()) return it->second;
  return "";
}

struct Figure {
  std::string label, value, source;
};

void print_figures(std::ostream& os, const std::vector<Figure>& figs) {
  os << "figures (a figure's own source at the right; none shown = the entry's source):\n";
  size_t wl = 0, wv = 0;
  for (const auto& f : figs) {
    wl = std::max(wl, f.label.size());
    wv = std::max(wv, f.value.size());
  }
  for (const auto& f : figs) {
    std::string l = fmt::format("  {:<{}}  {:<{}}  {}", f.label, wl, f.value, wv, f.source);
    while (!l.empty() && l.back() == ' ') l.pop_back();
    os << l << "\n";
  }
}

template <typename T>
void print_header(std::ostream& os, const std::string& kind, const T& e) {
  os << fmt::format("{} {}: {}\n", kind, e.name, e.display_name);
  if (!e.aliases.empty()) os << fmt::format("aliases: {}\n", fmt::join(e.aliases, ", "));
  os << fmt::format("origin: {}\n", e.origin);
  auto it = e.sources.find("*");
  os << fmt::format("source: {}\n", it == e.sources.end() ? "(none given)" : it->second);
}

void show(std::ostream& os, const Accelerator& a) {
  print_header(os, "accelerator", a);
  os << fmt::format("vendor: {}; architecture: {}; generation (efficiency group): {}\n", a.vendor,
                           a.architecture, a.generation);
  const auto& s = a.sources;
  std::vector<Figure> f;
  for (MathFormat m : kAllMathFormats) {
    const std::string k(to_string(m));
    if (a.peak(m) > 0)
      f.push_back({"peak " + k, num(a.peak(m) / 1e12) + (m == MathFormat::int8 ? " TOP/s" : " TFLOP/s") + " dense",
                   source_of(s, k, "peak_tflops")});
  }
  if (a.memory_basis == "driver")
    f.push_back({"memory", fmt::format("{:.0f} MiB ({:.1f} GiB = {:.1f} GB) {}, total the driver reports",
                                       a.memory_bytes / 1048576.0, a.memory_bytes / 1073741824.0, a.memory_bytes / 1e9,
                                       a.memory_type),
                 source_of(s, "memory_mib")});
  else
    f.push_back({"memory", num(a.memory_bytes / 1e9) + " GB " + a.memory_type + ", datasheet", source_of(s, "memory_gb")});
  f.push_back({"memory bandwidth", num(a.memory_bandwidth_bytes_per_s / 1e12) + " TB/s",
               source_of(s, "memory_bandwidth_tb_per_s")});
  f.push_back({"scale-up link", a.scaleup_link, source_of(s, "scaleup_link")});
  f.push_back({"scale-up bandwidth", num(a.scaleup_bandwidth_bytes_per_s / 1e9) + " GB/s per direction",
               source_of(s, "scaleup_bandwidth_gb_per_s")});
  f.push_back({"max scale-up domain", std::to_string(a.max_scaleup_domain) + " GPUs", source_of(s, "max_scaleup_domain")});
  f.push_back({"TDP", a.tdp_w > 0 ? num(a.tdp_w) + " W" : "not published", source_of(s, "tdp_w")});
  f.push_back({"launch year", a.launch_year ? std::to_string(a.launch_year) : "-", source_of(s, "launch_year")});
  f.push_back({"form factor", a.form_factor, source_of(s, "form_factor")});
  f.push_back({"arch target", a.arch_target, source_of(s, "arch_target")});
  f.push_back({"compute capability", a.compute_capability ? std::to_string(a.compute_capability) : "- (not NVIDIA)",
               source_of(s, "compute_capability")});
  f.push_back({"min CUDA / SDK", a.min_cuda.empty() ? "-" : a.min_cuda, source_of(s, "min_cuda")});
  f.push_back({"min driver", a.min_driver.empty() ? "-" : a.min_driver, source_of(s, "min_driver")});
  f.push_back({"first PyTorch", a.first_pytorch.empty() ? "-" : a.first_pytorch, source_of(s, "first_pytorch")});
  f.push_back({"price", a.price_usd ? num(*a.price_usd) + " USD" : "not published", source_of(s, "price_usd")});
  print_figures(os, f);
}

void show(std::ostream& os, const System& sy, const Accelerator* acc) {
  print_header(os, "system", sy);
  const auto& s = sy.sources;
  std::vector<Figure> f;
  f.push_back({"accelerator", sy.accelerator, source_of(s, "accelerator")});
  f.push_back({"GPUs", fmt::format("{} ({} nodes x {} GPUs)", sy.gpus_per_unit(), sy.nodes, sy.gpus_per_node),
               source_of(s, "gpus_per_node")});
  f.push_back({"NVLink domain", std::to_string(sy.nvlink_domain_gpus) + " GPUs", source_of(s, "nvlink_domain_gpus")});
  f.push_back({"scale-up network", sy.scaleup_network, source_of(s, "scaleup_network")});
  f.push_back({"scale-up wiring",
               sy.scaleup_topology == ScaleupTopology::direct_mesh
                   ? fmt::format("direct mesh (a group of k of its {} GPUs: (k - 1) / {} of each GPU's links)",
                                 sy.nvlink_domain_gpus, std::max(1, sy.nvlink_domain_gpus - 1))
                   : std::string("switched (any group at each GPU's whole scale-up bandwidth)"),
               source_of(s, "scaleup_topology")});
  f.push_back({"scale-out network", sy.scaleout_network, source_of(s, "scaleout_network")});
  f.push_back({"scale-out bandwidth", num(sy.scaleout_bandwidth_bytes_per_s_per_gpu / 1e9) + " GB/s per GPU per direction",
               source_of(s, "scaleout_gb_per_s_per_gpu")});
  f.push_back({"power", num(sy.power_w / 1e3) + " kW", source_of(s, "power_kw")});
  f.push_back({"host memory",
               sy.host_memory_bytes > 0 ? fmt::format("{} GB per node ({} GB per GPU)", num(sy.host_memory_bytes / 1e9),
                                                      num(sy.host_memory_bytes_per_gpu() / 1e9))
                                        : "not published",
               source_of(s, "host_memory_gb")});
  f.push_back({"host memory bandwidth",
               sy.host_memory_bandwidth_bytes_per_s > 0
                   ? num(sy.host_memory_bandwidth_bytes_per_s / 1e9) + " GB/s per node per direction, shared by its GPUs"
                   : "not published",
               source_of(s, "host_memory_bandwidth_gb_per_s")});
  f.push_back({"host link", acc && acc->host_link_bytes_per_s > 0
                                ? num(acc->host_link_bytes_per_s / 1e9) + " GB/s per GPU per direction (" + acc->name + ")"
                                : "not published",
               acc ? source_of(acc->sources, "host_link_gb_per_s") : std::string()});
  f.push_back({"cooling", sy.cooling == Cooling::liquid ? "liquid" : "air", source_of(s, "cooling")});
  f.push_back({"rack units", sy.rack_units ? std::to_string(*sy.rack_units) + " U" : "not published",
               source_of(s, "rack_units")});
  f.push_back({"price", sy.price_usd ? num(*sy.price_usd) + " USD" : "not published", source_of(s, "price_usd")});
  print_figures(os, f);
  if (!sy.claims.empty()) {
    const std::string cs = source_of(s, "claims");
    os << "claims (verbatim, with conditions" << (cs.empty() ? "" : "; source: " + cs) << "):\n";
    for (const auto& c : sy.claims) os << "  - " << c << "\n";
  }
}

void show(std::ostream& os, const Network& n) {
  print_header(os, "network", n);
  const auto& s = n.sources;
  std::vector<Figure> f;
  f.push_back({"tier", n.tier == NetworkTier::scale_up ? "scale-up" : "scale-out", source_of(s, "tier")});
  f.push_back({"bandwidth", num(n.bandwidth_bytes_per_s / 1e9) + " GB/s per port per direction",
               source_of(s, "bandwidth_gb_per_s")});
  f.push_back({"latency", num(n.latency_s * 1e6) + " us" + (n.latency_is_assumption ? " (assumption)" : ""),
               source_of(s, "latency_us")});
  print_figures(os, f);
}

int run_list(const Catalog& c, const std::string& kind_typed, Output& output) {
  static const std::vector<std::string> kinds = {"accelerators", "systems", "networks"};
  std::string kind;
  if (!kind_typed.empty()) {
    const std::string t = normalize_name(kind_typed);
    for (const auto& k : kinds)
      if (t == k || t + "s" == k) kind = k;
    if (kind.empty())
      throw InputError("KIND", fmt::format("'{}' is not one of accelerators, systems, networks{}", kind_typed,
                                           did_you_mean(kind_typed, kinds)));
  }
  const bool acc = kind.empty() || kind == "accelerators";
  const bool sys = kind.empty() || kind == "systems";
  const bool net = kind.empty() || kind == "networks";
  if (output.json()) {
    json j;
    if (acc) {
      j["accelerators"] = json::array();
      for (const auto& a : c.accelerators()) j["accelerators"].push_back(to_json(a));
    }
    if (sys) {
      j["systems"] = json::array();
      for (const auto& s : c.systems()) j["systems"].push_back(to_json(s, c.find_accelerator(s.accelerator)));
    }
    if (net) {
      j["networks"] = json::array();
      for (const auto& n : c.networks()) j["networks"].push_back(to_json(n));
    }
    output.emit("catalog", std::move(j));
    return kExitOk;
  }
  bool first = true;
  auto gap = [&] {
    if (!first) output.os() << "\n";
    first = false;
  };
  if (acc) {
    gap();
    list_accelerators(output.os(), c);
  }
  if (sys) {
    gap();
    list_systems(output.os(), c);
  }
  if (net) {
    gap();
    list_networks(output.os(), c);
  }
  return kExitOk;
}

// An exact catalog key wins over an alias of another kind; otherwise accelerators, systems, networks.
int run_show(const Catalog& c, const std::string& name, Output& output) {
  const Accelerator* a = c.find_accelerator(name);
  const System* s = c.find_system(name);
  const Network* n = c.find_network(name);
  const std::string key = normalize_name(name);
  if (s && normalize_name(s->name) == key && !(a && normalize_name(a->name) == key)) a = nullptr;
  if (n && normalize_name(n->name) == key && !(a && normalize_name(a->name) == key) &&
      !(s && normalize_name(s->name) == key)) {
    a = nullptr;
    s = nullptr;
  }
  if (a) {
    if (output.json()) {
      output.emit("catalog", {{"kind", "accelerator"}, {"entry", to_json(*a)}});
    } else {
      show(output.os(), *a);
    }
    return kExitOk;
  }
  if (s) {
    if (output.json()) {
      output.emit("catalog", {{"kind", "system"}, {"entry", to_json(*s, c.find_accelerator(s->accelerator))}});
    } else {
      show(output.os(), *s, c.find_accelerator(s->accelerator));
    }
    return kExitOk;
  }
  if (n) {
    if (output.json()) {
      output.emit("catalog", {{"kind", "network"}, {"entry", to_json(*n)}});
    } else {
      show(output.os(), *n);
    }
    return kExitOk;
  }
  // Suggest the key of the entry with the closest spelling, of any kind.
  std::vector<std::string> spellings, owners;
  auto add = [&](const auto& list) {
    for (const auto& e : list) {
      for (const auto& sp : e.aliases) {
        spellings.push_back(sp);
        owners.push_back(e.name);
      }
      spellings.push_back(e.display_name);
      owners.push_back(e.name);
      spellings.push_back(e.name);
      owners.push_back(e.name);
    }
  };
  add(c.accelerators());
  add(c.systems());
  add(c.networks());
  std::string hint;
  const std::string best = closest_match(name, spellings);
  for (size_t i = 0; i < spellings.size() && !best.empty(); ++i)
    if (spellings[i] == best) {
      hint = " (did you mean '" + owners[i] + "'?)";
      break;
    }
  throw InputError("NAME", fmt::format("no accelerator, system or network named '{}'{}; see 'gpuplan catalog list'",
                                       name, hint));
}

}  // namespace

void add_catalog_options(CLI::App& app, CatalogRequest& req) {
  app.description("List the catalog's accelerators, systems and networks, or show one entry with the unit and "
               "source of every figure and the file it came from.");
  app.footer(
      "Examples:\n"
      "  gpuplan catalog list                    all three tables\n"
      "  gpuplan catalog list accelerators       one table\n"
      "  gpuplan catalog show h100-sxm           any name, display name or alias (case-insensitive)\n"
      "  gpuplan catalog show \"DGX H100\" --json\n"
      "  gpuplan catalog list --catalog ./my-catalog   with your YAML overriding built-in entries");
  app.require_subcommand(1, 1);
  CLI::App* list = app.add_subcommand("list", "Tables of accelerators, systems and networks (or one kind)");
  list->add_option("KIND", req.kind, "accelerators, systems or networks (default: all three)");
  list->fallthrough();
  list->callback([&req] { req.list = true; });
  CLI::App* show_cmd = app.add_subcommand("show", "Every figure of one entry with its unit and source");
  show_cmd->add_option("NAME", req.name, "Accelerator, system or network: name, display name or alias")->required();
  show_cmd->fallthrough();
}

int catalog(const Catalog& catalog, CatalogRequest req, Output& output) {
  if (req.list) return run_list(catalog, req.kind, output);
  return run_show(catalog, req.name, output);
}

}  // namespace gpuplan::api

