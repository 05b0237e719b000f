#pragma once
// Cluster files (YAML, docs/schedule.md):
//   schema: gpuplan.cluster/v1        # optional
//   name: my-cluster                  # optional
//   systems:
//     - system: gb300-nvl72           # catalog name
//       count: 16                     # system units: racks for NVL72, nodes for HGX
//       node_prefix: gb300-           # optional, default "<system>-"
//       gpus_per_node: 4              # optional shape overrides; required when the catalog
//       nodes: 18                     #   does not know the system
//       nvlink_domain_gpus: 72
//       nodes_per_leaf_switch: 32     # optional, for the Slurm tree / Volcano export
#include <functional>
#include <optional>
#include <string>

#include "schedule/cluster.h"

namespace gpuplan::schedule {

struct SystemShape {
  int gpus_per_node = 8;
  int nodes = 1;
  int nvlink_domain_gpus = 8;
};
// Looks a system up by name (the catalog, at the CLI boundary); nullopt when unknown. `field` names
// the YAML key in errors (a resolver may throw InputError itself, e.g. with a suggestion).
using SystemResolver = std::function<std::optional<SystemShape>(const std::string& name, const std::string& field)>;

// Parses a cluster file strictly (unknown keys rejected with their path). Throws InputError.
ClusterSpec parse_cluster_yaml(const std::string& text, const std::string& origin, const SystemResolver& resolve);
ClusterSpec read_cluster_file(const std::string& path, const SystemResolver& resolve);

}  // namespace gpuplan::schedule
