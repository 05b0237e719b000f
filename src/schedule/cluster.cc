#include "schedule/cluster.h"

#include <fmt/format.h>

#include <algorithm>

#include "core/error.h"

namespace gpuplan::schedule {

Cluster::Cluster(ClusterSpec spec) : spec_(std::move(spec)) {
  if (spec_.groups.empty()) throw InputError("systems", "a cluster needs at least one system group");
  for (size_t g = 0; g < spec_.groups.size(); ++g) {
    const SystemGroup& s = spec_.groups[g];
    const std::string f = fmt::format("systems[{}]", g);
    if (s.gpus_per_node < 1 || s.gpus_per_node > 32)
      throw InputError(f + ".gpus_per_node", fmt::format("{} is outside 1..32", s.gpus_per_node));
    if (s.nodes_per_unit < 1 || s.nodes_per_unit > 1024)
      throw InputError(f + ".nodes", fmt::format("{} is outside 1..1024", s.nodes_per_unit));
    if (s.count < 1 || s.count > 100000)
      throw InputError(f + ".count", fmt::format("{} is outside 1..100000", s.count));
    if (s.domain_gpus < s.gpus_per_node || s.domain_gpus % s.gpus_per_node != 0 ||
        s.gpus_per_unit() % s.domain_gpus != 0)
      throw InputError(f + ".nvlink_domain_gpus",
                       fmt::format("{} must be a multiple of gpus_per_node ({}) dividing the {} GPUs of one unit",
                                   s.domain_gpus, s.gpus_per_node, s.gpus_per_unit()));
    const int domains_per_unit = s.gpus_per_unit() / s.domain_gpus;
    int idx = 0;
    for (int u = 0; u < s.count; ++u) {
      for (int d = 0; d < domains_per_unit; ++d) {
        Domain dom{static_cast<int>(g), static_cast<int>(nodes_.size()), s.nodes_per_domain(), s.domain_gpus};
        const int dom_id = static_cast<int>(domains_.size());
        for (int n = 0; n < s.nodes_per_domain(); ++n)
          nodes_.push_back(Node{static_cast<int>(g), dom_id, s.gpus_per_node, idx++});
        domains_.push_back(dom);
      }
    }
    total_gpus_ += s.gpus_per_unit() * s.count;
    max_gpus_per_node_ = std::max(max_gpus_per_node_, s.gpus_per_node);
    domain_sizes_.push_back(s.domain_gpus);
  }
  std::sort(domain_sizes_.begin(), domain_sizes_.end());
  domain_sizes_.erase(std::unique(domain_sizes_.begin(), domain_sizes_.end()), domain_sizes_.end());
  for (size_t a = 0; a < spec_.groups.size(); ++a)
    for (size_t b = a + 1; b < spec_.groups.size(); ++b)
      if (node_prefix(static_cast<int>(a)) == node_prefix(static_cast<int>(b)))
        throw InputError(fmt::format("systems[{}].node_prefix", b),
                         fmt::format("'{}' is already used by systems[{}]; node names must be unique",
                                     node_prefix(static_cast<int>(b)), a));
}

int Cluster::domains_of_size(int gpus) const {
  return static_cast<int>(std::count_if(domains_.begin(), domains_.end(),
                                        [&](const Domain& d) { return d.gpus == gpus; }));
}

std::string Cluster::node_prefix(int group) const {
  const SystemGroup& s = spec_.groups[group];
  return s.node_prefix.empty() ? s.system + "-" : s.node_prefix;
}

std::string Cluster::node_name(int node) const {
  const Node& n = nodes_[node];
  return fmt::format("{}{:03d}", node_prefix(n.group), n.index_in_group + 1);
}

}  // namespace gpuplan::schedule
