#include "core/yaml_reader.h"

#include <fmt/format.h>

#include <cmath>
#include <set>

#include "core/error.h"
#include "core/suggest.h"

namespace gpuplan {

namespace {

// Nesting and size far beyond any gpuplan file; past them the walk (and the readers) would recurse or
// loop without bound (deep nesting, aliases expanding exponentially).
constexpr int kMaxYamlDepth = 64;
constexpr long long kMaxYamlNodes = 1000000;

std::string where(const YAML::Node& n) {
  const YAML::Mark m = n.Mark();
  return m.is_null() ? std::string() : fmt::format(" at line {}, column {}", m.line + 1, m.column + 1);
}

// Every mapping key is a scalar and appears once: yaml-cpp lets the first of two duplicates win
// silently, and a key that is a list or map cannot name a field.
void check_structure(const YAML::Node& n, const std::string& path, int depth, long long& nodes,
                     const std::string& origin) {
  if (++nodes > kMaxYamlNodes)
    throw InputError(origin, fmt::format("more than {} YAML nodes (aliases expanding?)", kMaxYamlNodes));
  if (depth > kMaxYamlDepth) throw InputError(path, fmt::format("nested deeper than {} levels", kMaxYamlDepth));
  if (n.IsSequence()) {
    for (size_t i = 0; i < n.size(); ++i) check_structure(n[i], fmt::format("{}[{}]", path, i), depth + 1, nodes, origin);
  } else if (n.IsMap()) {
    std::set<std::string> seen;
    for (const auto& kv : n) {
      if (!kv.first.IsScalar())
        throw InputError(path, "a key must be plain text, not a list or mapping" + where(kv.first));
      const std::string& k = kv.first.Scalar();
      const std::string kp = path + "." + echo_name(k);
      if (!seen.insert(k).second) throw InputError(kp, "duplicate key" + where(kv.first));
      check_structure(kv.second, kp, depth + 1, nodes, origin);
    }
  }
}

}  // namespace

YAML::Node parse_yaml(const std::string& text, const std::string& origin) {
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    throw InputError(origin, fmt::format("malformed YAML at line {}, column {}: {}", e.mark.line + 1,
                                         e.mark.column + 1, e.msg));
  }
  long long nodes = 0;
  check_structure(root, origin, 0, nodes, origin);
  return root;
}

YamlMap::YamlMap(YAML::Node node, std::string path) : node_(std::move(node)), path_(std::move(path)) {
  if (!node_.IsMap()) throw InputError(path_, "expected a mapping of key: value");
  auto values = std::make_shared<std::map<std::string, YAML::Node, std::less<>>>();
  for (const auto& kv : node_)
    if (kv.first.IsScalar()) values->emplace(kv.first.Scalar(), kv.second);  // the first of duplicates, as yaml-cpp
  values_ = std::move(values);
}

std::string YamlMap::key_path(const std::string& key) const { return path_ + "." + key; }

bool YamlMap::has(const std::string& key) const {
  const YAML::Node n = find(key);
  return n && !n.IsNull();
}

// An absent key reads as an undefined node (false, not null), as yaml-cpp's lookup gives.
YAML::Node YamlMap::find(const std::string& key) const {
  const auto it = values_->find(key);
  return it != values_->end() ? it->second : YAML::Node(YAML::NodeType::Undefined);
}

YAML::Node YamlMap::get(const std::string& key) {
  used_.insert(key);
  return find(key);
}

std::optional<std::string> YamlMap::opt_str(const std::string& key) {
  YAML::Node n = get(key);
  if (!n || n.IsNull()) return std::nullopt;
  if (!n.IsScalar()) throw InputError(key_path(key), "expected a text value");
  return n.Scalar();
}

std::string YamlMap::str(const std::string& key) {
  auto v = opt_str(key);
  if (!v) throw InputError(key_path(key), "is required");
  return *v;
}

std::optional<double> YamlMap::opt_num(const std::string& key) {
  YAML::Node n = get(key);
  if (!n || n.IsNull()) return std::nullopt;
  double v = 0;
  if (!n.IsScalar() || !YAML::convert<double>::decode(n, v) || !std::isfinite(v))
    throw InputError(key_path(key), fmt::format("expected a number, got '{}'",
                                                n.IsScalar() ? n.Scalar() : std::string("a block")));
  return v;
}

double YamlMap::num(const std::string& key) {
  auto v = opt_num(key);
  if (!v) throw InputError(key_path(key), "is required");
  return *v;
}

std::optional<double> YamlMap::opt_num_in(const std::string& key, double lo, double hi) {
  auto v = opt_num(key);
  if (v && (*v < lo || *v > hi))
    throw InputError(key_path(key), fmt::format("must be between {} and {}, got {}", lo, hi, *v));
  return v;
}

double YamlMap::num_in(const std::string& key, double lo, double hi) {
  auto v = opt_num_in(key, lo, hi);
  if (!v) throw InputError(key_path(key), "is required");
  return *v;
}

std::optional<long long> YamlMap::opt_integer_in(const std::string& key, long long lo, long long hi) {
  auto v = opt_num(key);
  if (!v) return std::nullopt;
  if (std::floor(*v) != *v) throw InputError(key_path(key), fmt::format("must be a whole number, got {}", *v));
  if (*v < static_cast<double>(lo) || *v > static_cast<double>(hi))
    throw InputError(key_path(key), fmt::format("must be between {} and {}, got {}", lo, hi, *v));
  return static_cast<long long>(*v);
}

long long YamlMap::integer_in(const std::string& key, long long lo, long long hi) {
  auto v = opt_integer_in(key, lo, hi);
  if (!v) throw InputError(key_path(key), "is required");
  return *v;
}

std::optional<bool> YamlMap::opt_boolean(const std::string& key) {
  YAML::Node n = get(key);
  if (!n || n.IsNull()) return std::nullopt;
  bool v = false;
  if (!n.IsScalar() || !YAML::convert<bool>::decode(n, v))
    throw InputError(key_path(key), "expected true or false");
  return v;
}

bool YamlMap::boolean(const std::string& key) {
  auto v = opt_boolean(key);
  if (!v) throw InputError(key_path(key), "is required");
  return *v;
}

std::vector<std::string> YamlMap::str_list(const std::string& key) {
  YAML::Node n = get(key);
  std::vector<std::string> out;
  if (!n || n.IsNull()) return out;
  if (!n.IsSequence()) throw InputError(key_path(key), "expected a list");
  for (size_t i = 0; i < n.size(); ++i) {
    if (!n[i].IsScalar()) throw InputError(fmt::format("{}[{}]", key_path(key), i), "expected a text value");
    out.push_back(n[i].Scalar());
  }
  return out;
}

std::optional<YamlMap> YamlMap::opt_map(const std::string& key) {
  YAML::Node n = get(key);
  if (!n || n.IsNull()) return std::nullopt;
  return YamlMap(n, key_path(key));
}

YamlMap YamlMap::map(const std::string& key) {
  auto m = opt_map(key);
  if (!m) throw InputError(key_path(key), "is required");
  return *m;
}

std::vector<YamlMap> YamlMap::map_list(const std::string& key) {
  YAML::Node n = get(key);
  std::vector<YamlMap> out;
  if (!n || n.IsNull()) return out;
  if (!n.IsSequence()) throw InputError(key_path(key), "expected a list");
  for (size_t i = 0; i < n.size(); ++i) out.emplace_back(n[i], fmt::format("{}[{}]", key_path(key), i));
  return out;
}

YAML::Node YamlMap::raw(const std::string& key) { return get(key); }

void YamlMap::reject_unknown_keys() const {
  std::vector<std::string> known(used_.begin(), used_.end());
  for (const auto& kv : node_) {
    if (!kv.first.IsScalar()) throw InputError(path_, "a key must be plain text, not a list or mapping");
    const std::string k = kv.first.Scalar();
    if (!used_.count(k))
      throw InputError(key_path(k), "unknown key" + did_you_mean(k, known) +
                                        (known.empty() ? "" : "; allowed keys: " + fmt::format("{}", fmt::join(known, ", "))));
  }
}

}  // namespace gpuplan
