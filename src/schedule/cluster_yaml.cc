#include "schedule/cluster_yaml.h"

#include <fmt/format.h>

#include <fstream>
#include <sstream>

#include "core/input_file.h"
#include "core/error.h"
#include "core/suggest.h"
#include "core/yaml_reader.h"

namespace gpuplan::schedule {

namespace {

// Names go into Slurm configuration, Kubernetes labels and a shell script (export), so each is held to
// the character set of every target at parse time, and no quoting can be escaped later.
bool alnum(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'); }
bool lower_alnum(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }

// A Kubernetes label value (also a Slurm partition name): at most `max` of [A-Za-z0-9._-], starting
// and ending with a letter or digit.
void check_label_value(const std::string& v, size_t max, const std::string& field) {
  bool ok = !v.empty() && v.size() <= max && alnum(v.front()) && alnum(v.back());
  for (char c : v) ok = ok && (alnum(c) || c == '.' || c == '_' || c == '-');
  if (!ok)
    throw InputError(field, fmt::format("'{}' is not a valid name: 1 to {} letters, digits, '.', '_' or '-', "
                                        "starting and ending with a letter or digit (it becomes a Kubernetes "
                                        "label value and a Slurm name)",
                                        echo_name(v), max));
}

// A node name prefix: lower-case letters, digits and '-', starting with a letter or digit (node names
// are DNS labels for Kubernetes and hostnames for Slurm; the node number follows the prefix).
void check_node_prefix(const std::string& v, const std::string& field) {
  bool ok = !v.empty() && v.size() <= 48 && lower_alnum(v.front());
  for (char c : v) ok = ok && (lower_alnum(c) || c == '-');
  if (!ok)
    throw InputError(field, fmt::format("'{}' is not a valid node name prefix: 1 to 48 lower-case letters, "
                                        "digits or '-', starting with a letter or digit",
                                        echo_name(v)));
}

// GPUs a cluster file may describe in all; far above any built cluster, and small enough that GPU and
// node counts stay exact in int.
constexpr long long kMaxClusterGpus = 1LL << 24;

}  // namespace

ClusterSpec parse_cluster_yaml(const std::string& text, const std::string& origin, const SystemResolver& resolve) {
  YAML::Node root = parse_yaml(text, origin);
  if (!root.IsMap()) throw InputError(origin, "a cluster file is a map with a 'systems' list");
  YamlMap top(root, origin);
  ClusterSpec spec;
  if (auto schema = top.opt_str("schema"); schema && *schema != "gpuplan.cluster/v1")
    throw InputError(origin + ": schema", "'" + *schema + "' is not supported (expected gpuplan.cluster/v1)");
  spec.name = top.opt_str("name").value_or("cluster");
  check_label_value(spec.name, 48, origin + ": name");
  long long total_gpus = 0;
  auto systems = top.map_list("systems");
  if (systems.empty()) throw InputError(origin + ": systems", "the list is empty; name at least one system");
  for (YamlMap& s : systems) {
    SystemGroup g;
    g.system = s.str("system");
    g.count = static_cast<int>(s.integer_in("count", 1, 100000));
    check_label_value(g.system, 63, s.path() + ".system");
    g.node_prefix = s.opt_str("node_prefix").value_or("");
    if (s.has("node_prefix")) check_node_prefix(g.node_prefix, s.path() + ".node_prefix");
    else check_node_prefix(g.system + "-", s.path() + ".node_prefix (default: system name + '-')");
    const auto gpn = s.opt_integer_in("gpus_per_node", 1, 32);
    const auto nodes = s.opt_integer_in("nodes", 1, 1024);
    const auto dom = s.opt_integer_in("nvlink_domain_gpus", 1, 32768);
    g.nodes_per_leaf_switch = static_cast<int>(s.opt_integer_in("nodes_per_leaf_switch", 1, 100000).value_or(0));
    s.reject_unknown_keys();
    std::optional<SystemShape> shape;
    if (!(gpn && nodes && dom)) {
      shape = resolve ? resolve(g.system, s.path() + ".system") : std::nullopt;
      if (!shape)
        throw InputError(s.path() + ".system",
                         "unknown system '" + g.system +
                             "': name a catalog system or give gpus_per_node, nodes and nvlink_domain_gpus");
    }
    g.gpus_per_node = gpn ? static_cast<int>(*gpn) : shape->gpus_per_node;
    g.nodes_per_unit = nodes ? static_cast<int>(*nodes) : shape->nodes;
    g.domain_gpus = dom ? static_cast<int>(*dom) : shape->nvlink_domain_gpus;
    const int unit = g.gpus_per_node * g.nodes_per_unit;
    total_gpus += 1LL * unit * g.count;
    if (total_gpus > kMaxClusterGpus)
      throw InputError(s.path() + ".count", fmt::format("the cluster would hold {} GPUs; at most {} allowed",
                                                        total_gpus, kMaxClusterGpus));
    if (g.domain_gpus % g.gpus_per_node != 0 || unit % g.domain_gpus != 0)
      throw InputError(s.path() + ".nvlink_domain_gpus",
                       fmt::format("{} must be a multiple of gpus_per_node ({}) dividing the {} GPUs of one unit",
                                   g.domain_gpus, g.gpus_per_node, unit));
    spec.groups.push_back(g);
  }
  top.reject_unknown_keys();
  return spec;
}

ClusterSpec read_cluster_file(const std::string& path, const SystemResolver& resolve) {
  return parse_cluster_yaml(read_input_file(path, "--cluster"), path, resolve);
}

}  // namespace gpuplan::schedule
