#include "schedule/cluster_yaml.h"

#include <fmt/format.h>

#include <fstream>
#include <sstream>

#include "core/error.h"
#include "core/yaml_reader.h"

namespace gpuplan::schedule {

ClusterSpec parse_cluster_yaml(const std::string& text, const std::string& origin, const SystemResolver& resolve) {
  YAML::Node root = parse_yaml(text, origin);
  if (!root.IsMap()) throw InputError(origin, "a cluster file is a map with a 'systems' list");
  YamlMap top(root, origin);
  ClusterSpec spec;
  if (auto schema = top.opt_str("schema"); schema && *schema != "gpuplan.cluster/v1")
    throw InputError(origin + ": schema", "'" + *schema + "' is not supported (expected gpuplan.cluster/v1)");
  spec.name = top.opt_str("name").value_or("cluster");
  auto systems = top.map_list("systems");
  if (systems.empty()) throw InputError(origin + ": systems", "the list is empty; name at least one system");
  for (YamlMap& s : systems) {
    SystemGroup g;
    g.system = s.str("system");
    g.count = static_cast<int>(s.integer_in("count", 1, 100000));
    g.node_prefix = s.opt_str("node_prefix").value_or("");
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
  std::ifstream f(path);
  if (!f) throw InputError("--cluster", "cannot open '" + path + "'");
  std::stringstream ss;
  ss << f.rdbuf();
  return parse_cluster_yaml(ss.str(), path, resolve);
}

}  // namespace gpuplan::schedule
