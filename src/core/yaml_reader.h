#pragma once
// Strict reading of YAML documents: every key is checked against the keys a reader asks for, so an
// unknown or misspelt key is an error naming its path (with a suggestion), never silently ignored.
#include <yaml-cpp/yaml.h>

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace gpuplan {

// Parses YAML text; a syntax error becomes an InputError naming `origin` and the line.
YAML::Node parse_yaml(const std::string& text, const std::string& origin);

class YamlMap {
 public:
  // node must be a map; path names it in errors ("catalog/accelerators.yaml: accelerators[2]").
  YamlMap(YAML::Node node, std::string path);

  const std::string& path() const { return path_; }
  bool has(const std::string& key) const;

  std::string str(const std::string& key);
  std::optional<std::string> opt_str(const std::string& key);
  double num(const std::string& key);  // any finite number
  std::optional<double> opt_num(const std::string& key);
  // A number in [lo, hi]; out of range is an error naming the range.
  double num_in(const std::string& key, double lo, double hi);
  std::optional<double> opt_num_in(const std::string& key, double lo, double hi);
  long long integer_in(const std::string& key, long long lo, long long hi);
  std::optional<long long> opt_integer_in(const std::string& key, long long lo, long long hi);
  bool boolean(const std::string& key);
  std::optional<bool> opt_boolean(const std::string& key);
  std::vector<std::string> str_list(const std::string& key);
  std::optional<YamlMap> opt_map(const std::string& key);
  YamlMap map(const std::string& key);
  std::vector<YamlMap> map_list(const std::string& key);
  // Raw access for free-form blocks (e.g. `sources`); marks the key as known.
  YAML::Node raw(const std::string& key);

  // Throws if the map holds a key no reader asked for.
  void reject_unknown_keys() const;

 private:
  std::string key_path(const std::string& key) const;
  YAML::Node find(const std::string& key) const;
  YAML::Node get(const std::string& key);  // find, marking the key known
  YAML::Node node_;
  std::string path_;
  std::set<std::string> used_;
  // node_'s values by key, built once: yaml-cpp finds a key by converting every key before it, and
  // its non-const lookup adds a pending entry for a missing one.
  std::shared_ptr<const std::map<std::string, YAML::Node, std::less<>>> values_;
};

}  // namespace gpuplan
