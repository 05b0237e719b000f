#pragma once
// Configuration for real schedulers from a cluster: Slurm (topology/block, topology/tree,
// topology.yaml, node/partition/GRES lines), Kubernetes Kueue (node labels, Topology,
// ResourceFlavor, ClusterQueue, a job with pod-set topology annotations) and Volcano (HyperNode tree).
// Pure text generation; docs/schedule.md describes the layout and the versions each file needs.
#include <string>
#include <vector>

#include "schedule/cluster.h"

namespace gpuplan::schedule {

struct ExportFile {
  std::string name;  // "topology.conf"
  std::string text;
};

std::vector<ExportFile> export_slurm(const Cluster& cluster);
std::vector<ExportFile> export_kueue(const Cluster& cluster);
std::vector<ExportFile> export_volcano(const Cluster& cluster);
// "slurm", "kueue", "volcano"; unknown -> InputError on `field`.
std::vector<ExportFile> export_config(const std::string& format, const Cluster& cluster,
                                      const std::string& field = "format");

// Slurm hostlist expressions: {"n001","n002","n004"} -> "n[001-002,004]", and back.
std::string hostlist(const std::vector<std::string>& names);
std::vector<std::string> expand_hostlist(const std::string& expr);

// Scale-out grouping shared by the exports: each group's NVLink domains gathered into leaf-switch
// blocks of whole domains (nodes_per_leaf_switch nodes, default 32, at least one domain).
struct LeafBlock {
  std::string name;
  int group = 0;
  std::vector<int> domains;
};
std::vector<LeafBlock> leaf_blocks(const Cluster& cluster);
// GPU type for GRES and labels: "hgx-h200" -> "h200", "gb300-nvl72" -> "gb300".
std::string gpu_type(const std::string& system);

}  // namespace gpuplan::schedule
