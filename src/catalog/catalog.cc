#include "catalog/catalog.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>
#include <sstream>

#include "catalog/catalog_parse.h"
#include "core/embedded_data.h"
#include "core/input_file.h"
#include "core/error.h"
#include "core/suggest.h"
#include "core/text.h"
#include "core/yaml_reader.h"
#include "core/yaml_tree.h"

namespace gpuplan {
namespace {

namespace fs = std::filesystem;

constexpr const char* kBuiltin = "built-in";

// Every spelling an entry answers to: name, display name, aliases.
template <typename T>
std::vector<std::string> spellings(const T& e) {
  std::vector<std::string> out = {e.name, e.display_name};
  out.insert(out.end(), e.aliases.begin(), e.aliases.end());
  return out;
}

// Lookup order: catalog key first, then display names and aliases, so that a key always wins over
// another entry's alias.
template <typename T>
const T* find_entry(const std::vector<T>& list, const std::string& typed) {
  const std::string n = normalize_name(typed);
  if (n.empty()) return nullptr;
  for (const auto& e : list)
    if (normalize_name(e.name) == n) return &e;
  for (const auto& e : list)
    for (const auto& s : spellings(e))
      if (normalize_name(s) == n) return &e;
  return nullptr;
}

// "unknown accelerator 'x' (did you mean 'y'?); known: a, b, c" — suggests the catalog key of the
// entry with the closest spelling.
template <typename T>
[[noreturn]] void throw_unknown(const std::vector<T>& list, const std::string& typed, const std::string& kind,
                                const std::string& field) {
  std::vector<std::string> all;
  std::vector<const T*> owner;
  std::vector<std::string> keys;
  for (const auto& e : list) {
    keys.push_back(e.name);
    for (const auto& s : spellings(e)) {
      all.push_back(s);
      owner.push_back(&e);
    }
  }
  std::string hint;
  const std::string best = closest_match(typed, all);
  if (!best.empty()) {
    const auto i = static_cast<size_t>(std::find(all.begin(), all.end(), best) - all.begin());
    hint = " (did you mean '" + owner[i]->name + "'?)";
  }
  throw InputError(field, fmt::format("unknown {} '{}'{}; known: {}", kind, echo_name(typed), hint, fmt::join(keys, ", ")));
}

// Adds `e`, or replaces the entry of the same name (a user overlay redefining a built-in entry).
template <typename T>
void upsert(std::vector<T>& list, T e) {
  const std::string n = normalize_name(e.name);
  for (auto& old : list) {
    if (normalize_name(old.name) == n) {
      old = std::move(e);
      return;
    }
  }
  list.push_back(std::move(e));
}

// Two entries of one kind must not answer to the same spelling.
template <typename T>
void check_unique_spellings(const std::vector<T>& list, const std::string& kind) {
  std::map<std::string, const T*> seen;
  for (const auto& e : list) {
    std::set<std::string> own;
    for (const auto& s : spellings(e)) {
      const std::string n = normalize_name(s);
      if (n.empty() || !own.insert(n).second) continue;
      auto [it, fresh] = seen.emplace(n, &e);
      if (!fresh)
        throw InputError(fmt::format("{}s.{}", kind, e.name),
                         fmt::format("name or alias '{}' also names {} '{}' ({})", s, kind, it->second->name,
                                     it->second->origin));
    }
  }
}

template <typename Parse>
auto parse_list(const YAML::Node& node, const std::string& where, const std::string& key, const std::string& origin,
                Parse parse) {
  using T = decltype(parse(std::declval<YamlMap&>(), origin));
  std::vector<T> out;
  if (!node || node.IsNull()) return out;
  if (!node.IsSequence()) throw InputError(where + "." + key, "expected a list of entries");
  std::set<std::string> names;
  for (size_t i = 0; i < node.size(); ++i) {
    YamlMap m(node[i], fmt::format("{}: {}[{}]", where, key, i));
    T e = parse(m, origin);
    if constexpr (requires { e.name; }) {
      if (!names.insert(normalize_name(e.name)).second)
        throw InputError(m.path() + ".name", fmt::format("'{}' is defined twice in this file", e.name));
    }
    out.push_back(std::move(e));
  }
  return out;
}

std::string read_file(const fs::path& p) { return read_input_file(p.string(), p.string()); }

// The name without a leading vendor word ("NVIDIA H200-SXM", "AMD Instinct MI300X", "NVIDIA DGX
// B200"), as tables and nvidia-smi write them; empty when it has none.
std::string without_vendor(const std::string& name) {
  const std::string low = to_lower(name);
  for (const char* v : {"nvidia ", "amd instinct ", "amd ", "instinct "})
    if (low.rfind(v, 0) == 0) return name.substr(std::string(v).size());
  return {};
}

// A trailing memory size, as tables and product names write it ("B200-SXM-180GB", "H200 SXM 141GB",
// "MI300X 192 GB"): the name before it and the size in GB (decimal or binary, as printed).
std::optional<std::pair<std::string, double>> memory_suffix(const std::string& name) {
  if (name.size() > 200) return std::nullopt;  // no product name is longer; never scan a huge input
  const std::string low = to_lower(name);
  size_t end = low.size();
  for (const char* unit : {"gib", "gb", "g"}) {
    const size_t n = std::char_traits<char>::length(unit);
    if (end >= n && low.compare(end - n, n, unit) == 0) {
      end -= n;
      break;
    }
  }
  if (end == low.size()) return std::nullopt;
  while (end > 0 && low[end - 1] == ' ') --end;
  size_t begin = end;
  while (begin > 0 && (std::isdigit(static_cast<unsigned char>(low[begin - 1])) || low[begin - 1] == '.')) --begin;
  if (begin == end || !std::isdigit(static_cast<unsigned char>(low[begin]))) return std::nullopt;
  size_t stem = begin;
  while (stem > 0 && (low[stem - 1] == ' ' || low[stem - 1] == '-' || low[stem - 1] == '_')) --stem;
  if (stem == 0 || stem == begin) return std::nullopt;  // a size alone, or glued to the name ("H20096GB")
  return std::make_pair(name.substr(0, stem), std::stod(low.substr(begin, end - begin)));
}

// The stated size names this part: vendors print decimal GB, binary GiB or a rounded figure of
// either ("180 GB" B200 = 179 GiB = 192 GB), so within 8% of one of them; an "A100 40GB" is never
// the 80 GB part.
bool capacity_matches(const Accelerator& a, double stated_gb) {
  if (a.memory_bytes <= 0 || stated_gb <= 0) return false;
  auto near = [&](double gb) { return std::abs(stated_gb / gb - 1.0) <= 0.08; };
  return near(a.memory_bytes / 1e9) || near(a.memory_bytes / 1073741824.0);
}

}  // namespace

void Catalog::merge_yaml(const std::string& text, const std::string& origin) {
  merge_document(parse_yaml(text, origin), origin, origin);
}

void Catalog::merge_document(const YAML::Node& root, const std::string& where, const std::string& origin) {
  if (!root || root.IsNull()) return;  // an empty file adds nothing
  YamlMap doc(root, where);
  // Parse everything first, so a bad entry leaves the catalog unchanged.
  auto accs = parse_list(doc.raw("accelerators"), where, "accelerators", origin, parse_accelerator);
  auto syss = parse_list(doc.raw("systems"), where, "systems", origin, parse_system);
  auto nets = parse_list(doc.raw("networks"), where, "networks", origin, parse_network);
  auto effs = parse_list(doc.raw("efficiencies"), where, "efficiencies", origin,
                         [](YamlMap& m, const std::string& o) { return parse_efficiency(m, o); });
  auto bands = parse_list(doc.raw("error_bands"), where, "error_bands", origin, parse_error_band);
  std::optional<BandCorrelation> correlation;
  if (auto m = doc.opt_map("error_band_correlation")) correlation = parse_band_correlation(*m);
  auto engines = parse_list(doc.raw("serving_engines"), where, "serving_engines", origin, parse_serving_engine);
  doc.raw("fabric");  // scale-out fabric components: read by src/fabric/fabric_catalog.cc
  doc.reject_unknown_keys();
  // The engines merged and their shared front ends resolved on a copy, so a bad reference leaves the
  // catalog unchanged too.
  std::vector<ServingEngine> merged_engines = serving_engines_;
  for (auto& e : engines) {
    // A redefined engine keeps its place in the match order; a new one is tried after the built-in ones.
    const std::string n = normalize_name(e.name);
    auto old = std::find_if(merged_engines.begin(), merged_engines.end(),
                            [&](const ServingEngine& x) { return normalize_name(x.name) == n; });
    if (old != merged_engines.end()) {
      // An overlay may restate only the figures: unset MTP acceptance, match list, vendors and front end
      // keep the built-in's.
      if (e.match.empty()) e.match = old->match;
      if (e.vendors.empty()) e.vendors = old->vendors;
      if (!e.mtp_accept) e.mtp_accept = old->mtp_accept;
      if (e.kv_admission.empty()) e.kv_admission = old->kv_admission;
      if (e.kv_pool.empty()) e.kv_pool = old->kv_pool;
      if (e.attention_dp_dense.empty()) e.attention_dp_dense = old->attention_dp_dense;
      if (e.attention_dp_moe_exchange.empty()) e.attention_dp_moe_exchange = old->attention_dp_moe_exchange;
      if (e.window_kv.empty()) e.window_kv = old->window_kv;
      if (e.newest_release.empty()) {
        e.newest_release = old->newest_release;
        e.releases = old->releases;
      }
      if (e.front_end_of.empty() && !e.states_request_overhead) {
        e.front_end_of = old->front_end_of;
        e.request_overhead_s = old->request_overhead_s;
        e.states_request_overhead = old->states_request_overhead;
      }
      *old = std::move(e);
    } else {
      merged_engines.push_back(std::move(e));
    }
  }
  resolve_serving_front_ends(merged_engines, where + ": serving_engines");
  for (auto& b : bands) {
    auto same = [&](const ErrorBand& x) { return x.kind == b.kind && x.generation == b.generation; };
    std::erase_if(error_bands_, same);
    error_bands_.push_back(std::move(b));
  }
  if (correlation) band_correlation_ = std::move(*correlation);
  for (auto& a : accs) upsert(accelerators_, std::move(a));
  for (auto& s : syss) upsert(systems_, std::move(s));
  for (auto& n : nets) upsert(networks_, std::move(n));
  for (auto& e : effs) set_efficiency(e);
  serving_engines_ = std::move(merged_engines);
}

const Catalog& Catalog::builtin() {
  static const Catalog cached = [] {
    Catalog c;
    for (const auto& f : embedded_data_files()) {
      if (f.path.substr(0, 8) != "catalog/") continue;
      c.merge_document(embedded_yaml(f), std::string(f.path), kBuiltin);
    }
    c.check();
    return c;
  }();
  return cached;
}

Catalog Catalog::load(const std::vector<std::string>& overlay_dirs) {
  Catalog c = builtin();
  for (const auto& dir : overlay_dirs) {
    std::error_code ec;
    if (!fs::is_directory(dir, ec))
      throw InputError("--catalog", fmt::format("'{}' is not a directory{}", dir,
                                                fs::exists(dir, ec) ? "" : " (it does not exist)"));
    std::vector<fs::path> files;
    for (const auto& de : fs::directory_iterator(dir, ec)) {
      const auto ext = de.path().extension().string();
      if (de.is_regular_file(ec) && (ext == ".yaml" || ext == ".yml")) files.push_back(de.path());
    }
    if (ec) throw InputError("--catalog", fmt::format("cannot list '{}': {}", dir, ec.message()));
    std::sort(files.begin(), files.end());
    for (const auto& p : files) c.merge_yaml(read_file(p), p.string());
  }
  c.check();
  return c;
}

void Catalog::check() const {
  check_unique_spellings(accelerators_, "accelerator");
  check_unique_spellings(systems_, "system");
  check_unique_spellings(networks_, "network");
  for (const auto& e : serving_engines_) {
    const std::string at = fmt::format("serving_engines.{} ({})", e.name, e.origin);
    const bool is_default = normalize_name(e.name) == kDefaultServingEngine;
    if (is_default && !e.mtp_accept) throw InputError(at + ".mtp_accept", "the default entry must give it (0.01 to 0.99)");
    if (!is_default && e.match.empty())
      throw InputError(at + ".match", "must list the framework words this engine answers to (only 'default' has none)");
  }
  for (const auto& s : systems_) {
    const std::string at = fmt::format("systems.{} ({})", s.name, s.origin);
    if (!find_accelerator(s.accelerator)) throw_unknown(accelerators_, s.accelerator, "accelerator", at + ".accelerator");
    const Network* up = find_network(s.scaleup_network);
    if (!up) throw_unknown(networks_, s.scaleup_network, "network", at + ".scaleup_network");
    if (!find_network(s.scaleout_network)) throw_unknown(networks_, s.scaleout_network, "network", at + ".scaleout_network");
    if (up->tier != NetworkTier::scale_up)
      throw InputError(at + ".scaleup_network", fmt::format("'{}' is a scale-out network", up->name));
  }
}

const Accelerator* Catalog::find_accelerator(const std::string& name) const {
  if (const Accelerator* a = find_entry(accelerators_, name)) return a;
  const std::string bare = without_vendor(name);
  if (!bare.empty()) return find_accelerator(bare);
  // A memory size the aliases do not spell: the part without it, when that part has this capacity.
  if (const auto split = memory_suffix(name)) {
    const Accelerator* a = find_entry(accelerators_, split->first);
    if (a && capacity_matches(*a, split->second)) return a;
  }
  return nullptr;
}
const System* Catalog::find_system(const std::string& name) const {
  if (const System* s = find_entry(systems_, name)) return s;
  const std::string bare = without_vendor(name);
  return bare.empty() ? nullptr : find_system(bare);
}
const System* Catalog::first_system_of(const std::string& accelerator) const {
  for (const auto& s : systems_)
    if (s.accelerator == accelerator) return &s;
  return nullptr;
}
const Network* Catalog::find_network(const std::string& name) const { return find_entry(networks_, name); }

const Accelerator& Catalog::accelerator(const std::string& name, const std::string& field) const {
  if (const auto* a = find_accelerator(name)) return *a;
  throw_unknown(accelerators_, name, "accelerator", field);
}

const System& Catalog::system(const std::string& name, const std::string& field) const {
  if (const auto* s = find_system(name)) return *s;
  throw_unknown(systems_, name, "system", field);
}

const Network& Catalog::network(const std::string& name, const std::string& field) const {
  if (const auto* n = find_network(name)) return *n;
  throw_unknown(networks_, name, "network", field);
}

const Efficiency& Catalog::efficiency(const std::string& generation) const {
  const Efficiency* fallback = nullptr;
  for (const auto& e : efficiencies_) {
    if (e.generation == generation) return e;
    if (e.generation == "default") fallback = &e;
  }
  if (fallback) return *fallback;
  static const Efficiency kDefault{};  // before any efficiency.yaml exists
  return kDefault;
}

const ServingEngine* Catalog::find_serving_engine(const std::string& framework) const {
  for (const auto& e : serving_engines_)
    if (serving_engine_matches(e, framework)) return &e;
  return nullptr;
}

const ServingEngine& Catalog::default_serving_engine() const {
  for (const auto& e : serving_engines_)
    if (normalize_name(e.name) == kDefaultServingEngine) return e;
  throw InputError("serving_engines", "the catalog has no 'default' entry (data/catalog/serving_engines.yaml)");
}

void Catalog::set_efficiency(const Efficiency& e) {
  for (auto& old : efficiencies_) {
    if (old.generation == e.generation) {
      old = e;
      return;
    }
  }
  efficiencies_.push_back(e);
}

}  // namespace gpuplan
