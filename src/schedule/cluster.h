#pragma once
// A cluster for the scheduling simulator: systems and counts, expanded into NVLink domains, nodes and
// GPUs. Plain structs; catalog names are resolved at the boundary (cluster_yaml.h), so the core needs
// no catalog.
#include <string>
#include <vector>

namespace gpuplan::schedule {

// One kind of system and how many units of it (an HGX node, an NVL72 rack of 18 compute trays).
struct SystemGroup {
  std::string system;            // catalog name, e.g. "gb300-nvl72"
  int gpus_per_node = 8;         // GPUs behind one host (NVL72 compute tray: 4)
  int nodes_per_unit = 1;        // nodes in one system unit (NVL72 rack: 18)
  int domain_gpus = 8;           // GPUs in one NVLink domain; divides the unit, multiple of a node
  int count = 1;                 // system units
  std::string node_prefix;       // node names are prefix + 3-digit index; empty: "<system>-"
  int nodes_per_leaf_switch = 0; // scale-out leaf switch size for export (0: default 32 nodes)

  int gpus_per_unit() const { return gpus_per_node * nodes_per_unit; }
  int nodes_per_domain() const { return domain_gpus / gpus_per_node; }
};

struct ClusterSpec {
  std::string name = "cluster";
  std::vector<SystemGroup> groups;
};

struct Node {
  int group = 0;   // index into ClusterSpec::groups
  int domain = 0;  // global NVLink domain index
  int gpus = 0;
  int index_in_group = 0;  // 0-based, names the node
};

struct Domain {
  int group = 0;
  int first_node = 0;  // nodes of a domain are contiguous
  int nodes = 0;
  int gpus = 0;
};

// The expanded topology. Nodes are numbered group by group, unit by unit; a domain's nodes are
// contiguous. Throws InputError when a group's shape is inconsistent (field names the group).
class Cluster {
 public:
  explicit Cluster(ClusterSpec spec);

  const ClusterSpec& spec() const { return spec_; }
  const std::vector<Node>& nodes() const { return nodes_; }
  const std::vector<Domain>& domains() const { return domains_; }
  int total_gpus() const { return total_gpus_; }
  int max_gpus_per_node() const { return max_gpus_per_node_; }
  // Distinct domain sizes in GPUs, ascending (e.g. {8, 72}).
  const std::vector<int>& domain_sizes() const { return domain_sizes_; }
  // Number of domains of a given size.
  int domains_of_size(int gpus) const;
  // "gb300-nvl72-001": the node's host name for exports.
  std::string node_name(int node) const;
  std::string node_prefix(int group) const;

 private:
  ClusterSpec spec_;
  std::vector<Node> nodes_;
  std::vector<Domain> domains_;
  std::vector<int> domain_sizes_;
  int total_gpus_ = 0;
  int max_gpus_per_node_ = 0;
};

}  // namespace gpuplan::schedule
