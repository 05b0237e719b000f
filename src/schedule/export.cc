#include "schedule/export.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <map>

#include "core/error.h"
#include "core/suggest.h"

namespace gpuplan::schedule {

std::string hostlist(const std::vector<std::string>& names) {
  // Split each name into prefix + trailing digits; runs of consecutive numbers with the same prefix
  // and width collapse into ranges.
  struct Part { std::string prefix; long long num; size_t width; };
  std::vector<Part> parts;
  std::string out;
  auto flush = [&](size_t from, size_t to) {  // parts[from, to) share prefix and width
    if (!out.empty()) out += ",";
    if (to - from == 1 && parts[from].width == 0) {
      out += parts[from].prefix;
      return;
    }
    std::string ranges;
    for (size_t i = from; i < to;) {
      size_t j = i + 1;
      while (j < to && parts[j].num == parts[j - 1].num + 1) ++j;
      if (!ranges.empty()) ranges += ",";
      const int w = static_cast<int>(parts[i].width);
      ranges += fmt::format("{:0{}d}", parts[i].num, w);
      if (j - i > 1) ranges += fmt::format("-{:0{}d}", parts[j - 1].num, w);
      i = j;
    }
    if (to - from == 1) out += parts[from].prefix + ranges;
    else out += parts[from].prefix + "[" + ranges + "]";
  };
  for (const std::string& n : names) {
    size_t k = n.size();
    while (k > 0 && std::isdigit(static_cast<unsigned char>(n[k - 1]))) --k;
    const size_t width = n.size() - k;
    parts.push_back({n.substr(0, k), width ? std::atoll(n.c_str() + k) : 0, width});
  }
  size_t start = 0;
  for (size_t i = 1; i <= parts.size(); ++i) {
    if (i == parts.size() || parts[i].prefix != parts[start].prefix || parts[i].width != parts[start].width ||
        parts[i].width == 0 || parts[i].num <= parts[i - 1].num) {
      if (!parts.empty()) flush(start, i);
      start = i;
    }
  }
  return out;
}

std::vector<std::string> expand_hostlist(const std::string& expr) {
  std::vector<std::string> out;
  std::string item;
  int depth = 0;
  auto expand_one = [&](const std::string& s) {
    const size_t lb = s.find('[');
    if (lb == std::string::npos) {
      if (!s.empty()) out.push_back(s);
      return;
    }
    const size_t rb = s.find(']', lb);
    if (rb == std::string::npos) throw InputError("hostlist", "unbalanced '[' in '" + s + "'");
    const std::string prefix = s.substr(0, lb), suffix = s.substr(rb + 1), body = s.substr(lb + 1, rb - lb - 1);
    size_t pos = 0;
    while (pos <= body.size()) {
      size_t c = body.find(',', pos);
      if (c == std::string::npos) c = body.size();
      const std::string r = body.substr(pos, c - pos);
      const size_t dash = r.find('-');
      const std::string a = r.substr(0, dash);
      const std::string b = dash == std::string::npos ? a : r.substr(dash + 1);
      for (long long v = std::atoll(a.c_str()); v <= std::atoll(b.c_str()); ++v)
        out.push_back(prefix + fmt::format("{:0{}d}", v, static_cast<int>(a.size())) + suffix);
      pos = c + 1;
    }
  };
  for (char ch : expr) {
    if (ch == '[') ++depth;
    if (ch == ']') --depth;
    if (ch == ',' && depth == 0) {
      expand_one(item);
      item.clear();
    } else {
      item += ch;
    }
  }
  expand_one(item);
  return out;
}

std::string gpu_type(const std::string& system) {
  std::string s = system;
  for (const char* p : {"hgx-", "dgx-"})
    if (s.rfind(p, 0) == 0) s = s.substr(std::string(p).size());
  for (const char* suf : {"-nvl72", "-nvl36", "-platform"}) {
    const std::string x(suf);
    if (s.size() > x.size() && s.compare(s.size() - x.size(), x.size(), x) == 0) s = s.substr(0, s.size() - x.size());
  }
  return s;
}

std::vector<LeafBlock> leaf_blocks(const Cluster& c) {
  std::vector<LeafBlock> out;
  const auto& domains = c.domains();
  for (int g = 0; g < static_cast<int>(c.spec().groups.size()); ++g) {
    const SystemGroup& s = c.spec().groups[g];
    const int leaf_nodes = s.nodes_per_leaf_switch > 0 ? s.nodes_per_leaf_switch : 32;
    const int per_leaf = std::max(1, leaf_nodes / s.nodes_per_domain());
    int k = 0;
    for (int d = 0; d < static_cast<int>(domains.size()); ++d) {
      if (domains[d].group != g) continue;
      if (k % per_leaf == 0)
        out.push_back({fmt::format("{}leaf{:02d}", c.node_prefix(g), k / per_leaf + 1), g, {}});
      out.back().domains.push_back(d);
      ++k;
    }
  }
  return out;
}

namespace {

// One shell word: single-quoted, a ' inside written as '\''. Names are checked when the cluster file is
// read (cluster_yaml.cc); the quoting keeps the script inert even so.
std::string sh_quote(const std::string& s) {
  std::string out = "'";
  for (char ch : s) out += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
  return out + "'";
}

// One YAML scalar, double-quoted (JSON's escapes are YAML's), so a name such as "yes", "null" or "1e3"
// stays a string and no name can start a new key or document.
std::string yaml_quote(const std::string& s) {
  std::string out = "\"";
  for (unsigned char ch : s) {
    if (ch == '"' || ch == '\\') {
      out += '\\';
      out += static_cast<char>(ch);
    } else if (ch < 0x20 || ch == 0x7f) {
      out += fmt::format("\\x{:02x}", ch);
    } else {
      out += static_cast<char>(ch);
    }
  }
  return out + "\"";
}

std::vector<std::string> nodes_of_domain(const Cluster& c, int d) {
  std::vector<std::string> v;
  const Domain& dom = c.domains()[d];
  for (int n = dom.first_node; n < dom.first_node + dom.nodes; ++n) v.push_back(c.node_name(n));
  return v;
}

std::vector<std::string> nodes_of_group(const Cluster& c, int g) {
  std::vector<std::string> v;
  for (int n = 0; n < static_cast<int>(c.nodes().size()); ++n)
    if (c.nodes()[n].group == g) v.push_back(c.node_name(n));
  return v;
}

std::vector<std::string> nodes_of_leaf(const Cluster& c, const LeafBlock& b) {
  std::vector<std::string> v;
  for (int d : b.domains)
    for (auto& n : nodes_of_domain(c, d)) v.push_back(n);
  return v;
}

bool multi_node_domain(const SystemGroup& s) { return s.nodes_per_domain() > 1; }

std::string domain_name(const Cluster& c, int d) {
  const Domain& dom = c.domains()[d];
  int k = 0;
  for (int i = 0; i < d; ++i) k += c.domains()[i].group == dom.group;
  return fmt::format("{}nvl{:02d}", c.node_prefix(dom.group), k + 1);
}

// Block sizes in nodes: the base (one NVLink domain) and power-of-two aggregates up to all blocks.
std::vector<int> block_sizes(int base, int blocks) {
  std::vector<int> v;
  for (int k = 1; k <= blocks; k *= 2) v.push_back(base * k);
  return v;
}

std::string join(const std::vector<int>& v, const char* sep) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) {
    if (i) s += sep;
    s += std::to_string(v[i]);
  }
  return s;
}

}  // namespace

std::vector<ExportFile> export_slurm(const Cluster& c) {
  const auto& groups = c.spec().groups;
  std::vector<int> nvl, hgx;
  for (int g = 0; g < static_cast<int>(groups.size()); ++g) (multi_node_domain(groups[g]) ? nvl : hgx).push_back(g);
  const auto leaves = leaf_blocks(c);
  // Base block: the smallest multi-node NVLink domain, in nodes.
  int base = 0, nvl_blocks = 0;
  for (int g : nvl) base = base ? std::min(base, groups[g].nodes_per_domain()) : groups[g].nodes_per_domain();
  for (const Domain& d : c.domains()) nvl_blocks += multi_node_domain(groups[d.group]);

  std::string topo = fmt::format("# topology.conf for cluster '{}', generated by gpuplan.\n", c.spec().name);
  if (!nvl.empty()) {
    topo +=
        "# topology/block: one block per NVLink domain (rack), so Slurm keeps a job's nodes inside as few\n"
        "# racks as possible (sbatch --segment=N asks for segments of N nodes within one block).\n"
        "# Needs Slurm >= 23.11 and, in slurm.conf, TopologyPlugin=topology/block.\n";
    if (!hgx.empty())
      topo +=
          "# This cluster also has single-node NVLink domains (HGX), which a block file cannot describe next\n"
          "# to the racks: they are left out here. With Slurm >= 25.05 use topology.yaml instead, which\n"
          "# gives them a topology/tree of their own.\n";
    for (const Domain& d : c.domains()) {
      const int idx = static_cast<int>(&d - c.domains().data());
      if (multi_node_domain(groups[d.group]))
        topo += fmt::format("BlockName={} Nodes={}\n", domain_name(c, idx), hostlist(nodes_of_domain(c, idx)));
    }
    topo += fmt::format("BlockSizes={}\n", join(block_sizes(base, nvl_blocks), ","));
  } else {
    topo +=
        "# topology/tree: leaf switches of the scale-out network under one spine, so Slurm packs a job's\n"
        "# nodes under as few leaf switches as possible (sbatch --switches=1). Every Slurm version has it;\n"
        "# in slurm.conf set TopologyPlugin=topology/tree.\n";
    std::vector<std::string> leaf_names;
    for (const LeafBlock& b : leaves) {
      topo += fmt::format("SwitchName={} Nodes={}\n", b.name, hostlist(nodes_of_leaf(c, b)));
      leaf_names.push_back(b.name);
    }
    topo += fmt::format("SwitchName=spine Switches={}\n", hostlist(leaf_names));
  }

  // topology.yaml (Slurm >= 25.05): a block topology for the racks, a tree for the HGX nodes.
  std::string yaml = fmt::format(
      "# topology.yaml for cluster '{}', generated by gpuplan. Needs Slurm >= 25.05; when present,\n"
      "# topology.conf is ignored. Partitions pick a topology with Topology=NAME in slurm.conf.\n",
      c.spec().name);
  bool first = true;
  if (!nvl.empty()) {
    yaml += fmt::format("- topology: nvlink-blocks\n  cluster_default: {}\n  block:\n    block_sizes:\n", first);
    for (int s : block_sizes(base, nvl_blocks)) yaml += fmt::format("      - {}\n", s);
    yaml += "    blocks:\n";
    for (int d = 0; d < static_cast<int>(c.domains().size()); ++d)
      if (multi_node_domain(groups[c.domains()[d].group]))
        yaml += fmt::format("    - block: {}\n      nodes: {}\n", domain_name(c, d), hostlist(nodes_of_domain(c, d)));
    first = false;
  }
  if (!hgx.empty()) {
    yaml += fmt::format("- topology: scaleout-tree\n  cluster_default: {}\n  tree:\n    switches:\n", first);
    std::vector<std::string> leaf_names;
    for (const LeafBlock& b : leaves)
      if (!multi_node_domain(groups[b.group])) {
        yaml += fmt::format("    - switch: {}\n      nodes: {}\n", b.name, hostlist(nodes_of_leaf(c, b)));
        leaf_names.push_back(b.name);
      }
    yaml += fmt::format("    - switch: spine\n      children: {}\n", hostlist(leaf_names));
  }

  std::string conf = fmt::format(
      "# slurm.conf fragment for cluster '{}', generated by gpuplan: GPU GRES, nodes and one partition per\n"
      "# system type. Add CPUs=, RealMemory= and Sockets= from 'slurmd -C' on each node.\n",
      c.spec().name);
  conf += !nvl.empty() ? "TopologyPlugin=topology/block   # Slurm >= 23.11; with topology.yaml (>= 25.05) drop this line\n"
                       : "TopologyPlugin=topology/tree\n";
  if (!nvl.empty())
    conf += "SwitchType=switch/nvidia_imex   # multi-node NVLink: an IMEX channel per job inside its rack's IMEX\n"
            "                                # domain (imex-*.cfg; Slurm >= 24.11)\n";
  conf += "GresTypes=gpu\n";
  for (int g = 0; g < static_cast<int>(groups.size()); ++g)
    conf += fmt::format("NodeName={} Gres=gpu:{}:{} State=UNKNOWN\n", hostlist(nodes_of_group(c, g)),
                        gpu_type(groups[g].system), groups[g].gpus_per_node);
  for (int g = 0; g < static_cast<int>(groups.size()); ++g) {
    const bool is_nvl = multi_node_domain(groups[g]);
    conf += fmt::format("PartitionName={} Nodes={}{} MaxTime=INFINITE State=UP", groups[g].system,
                        hostlist(nodes_of_group(c, g)), g == 0 ? " Default=YES" : "");
    conf += fmt::format("   # Slurm >= 25.05 with topology.yaml: add Topology={}\n",
                        is_nvl ? "nvlink-blocks" : "scaleout-tree");
  }
  std::string gres = fmt::format("# gres.conf for cluster '{}', generated by gpuplan (all Slurm versions).\n",
                                 c.spec().name);
  for (int g = 0; g < static_cast<int>(groups.size()); ++g)
    gres += fmt::format("NodeName={} Name=gpu Type={} File=/dev/nvidia[0-{}]\n", hostlist(nodes_of_group(c, g)),
                        gpu_type(groups[g].system), groups[g].gpus_per_node - 1);
  std::vector<ExportFile> files = {
      {"topology.conf", topo}, {"topology.yaml", yaml}, {"slurm.conf", conf}, {"gres.conf", gres}};
  // IMEX: each multi-node NVLink domain (rack) is one IMEX domain; every node's nvidia-imex service
  // lists the domain's nodes in IMEX_NODE_CONFIG_FILE (NVIDIA IMEX guide, "NVLink Domain Wide").
  for (int d = 0; d < static_cast<int>(c.domains().size()); ++d)
    if (multi_node_domain(groups[c.domains()[d].group])) {
      std::string cfg = fmt::format(
          "# /etc/nvidia-imex/nodes_config.cfg for the nodes of NVLink domain {} (cluster '{}'), generated by\n"
          "# gpuplan: one line per node of the rack. IMEX reads IP addresses: replace each name with its\n"
          "# address on the IMEX network.\n",
          domain_name(c, d), c.spec().name);
      for (const auto& n : nodes_of_domain(c, d)) cfg += n + "\n";
      files.push_back({"imex-" + domain_name(c, d) + ".cfg", cfg});
    }
  return files;
}

std::vector<ExportFile> export_kueue(const Cluster& c) {
  const auto& groups = c.spec().groups;
  const auto leaves = leaf_blocks(c);
  std::vector<int> leaf_of_domain(c.domains().size());
  for (size_t b = 0; b < leaves.size(); ++b)
    for (int d : leaves[b].domains) leaf_of_domain[d] = static_cast<int>(b);
  std::string labels = fmt::format(
      "#!/bin/sh\n# Node labels for cluster '{}', generated by gpuplan. On NVL72 racks the NVIDIA GPU Feature\n"
      "# Discovery sets nvidia.com/gpu.clique (<cluster UUID>.<clique id>) itself; the value here only has to\n"
      "# be the same on every node of one NVLink domain. HGX nodes have no multi-node clique.\n",
      c.spec().name);
  for (int n = 0; n < static_cast<int>(c.nodes().size()); ++n) {
    const Node& node = c.nodes()[n];
    const SystemGroup& s = groups[node.group];
    labels += fmt::format("kubectl label node {} --overwrite {} {}", sh_quote(c.node_name(n)),
                          sh_quote(fmt::format("gpuplan.io/system={}", s.system)),
                          sh_quote(fmt::format("gpuplan.io/scaleout-block={}", leaves[leaf_of_domain[node.domain]].name)));
    labels += fmt::format(" {}", sh_quote(fmt::format("gpuplan.io/nvlink-domain={}", domain_name(c, node.domain))));
    if (multi_node_domain(s))
      labels += fmt::format(" {}", sh_quote(fmt::format("nvidia.com/gpu.clique={}.{}", c.spec().name, node.domain + 1)));
    labels += "\n";
  }
  std::string topo = fmt::format(
      "# Kueue topology-aware scheduling for cluster '{}', generated by gpuplan.\n"
      "# Topology is kueue.x-k8s.io/v1alpha1 (Kueue >= 0.9, TopologyAwareScheduling feature gate until it\n"
      "# is on by default); levels go from the widest to the node.\n",
      c.spec().name);
  bool has_nvl = false, has_hgx = false;
  for (const auto& s : groups) (multi_node_domain(s) ? has_nvl : has_hgx) = true;
  if (has_nvl)
    topo +=
        "apiVersion: kueue.x-k8s.io/v1alpha1\nkind: Topology\nmetadata:\n  name: nvlink-rack\nspec:\n  levels:\n"
        "  - nodeLabel: gpuplan.io/scaleout-block\n  - nodeLabel: nvidia.com/gpu.clique\n"
        "  - nodeLabel: kubernetes.io/hostname\n---\n";
  if (has_hgx)
    topo +=
        "apiVersion: kueue.x-k8s.io/v1alpha1\nkind: Topology\nmetadata:\n  name: scaleout-tree\nspec:\n  levels:\n"
        "  - nodeLabel: gpuplan.io/scaleout-block\n  - nodeLabel: kubernetes.io/hostname\n---\n";
  std::string queue =
      "apiVersion: kueue.x-k8s.io/v1beta1\nkind: ClusterQueue\nmetadata:\n  name: gpu\nspec:\n"
      "  namespaceSelector: {}\n  resourceGroups:\n  - coveredResources: [nvidia.com/gpu]\n    flavors:\n";
  for (const auto& s : groups) {
    topo += fmt::format(
        "apiVersion: kueue.x-k8s.io/v1beta1\nkind: ResourceFlavor\nmetadata:\n  name: {}\nspec:\n  nodeLabels:\n"
        "    gpuplan.io/system: {}\n  topologyName: {}\n---\n",
        yaml_quote(s.system), yaml_quote(s.system), multi_node_domain(s) ? "nvlink-rack" : "scaleout-tree");
    queue += fmt::format("    - name: {}\n      resources:\n      - name: nvidia.com/gpu\n        nominalQuota: {}\n",
                         yaml_quote(s.system), s.gpus_per_unit() * s.count);
  }
  topo += queue + "---\napiVersion: kueue.x-k8s.io/v1beta1\nkind: LocalQueue\nmetadata:\n  name: gpu\n"
                  "  namespace: default\nspec:\n  clusterQueue: gpu\n";
  // An example job: one pod per node of a rack, all inside one NVLink domain.
  const SystemGroup& ex = groups.front();
  const bool ex_nvl = multi_node_domain(ex);
  std::string job = fmt::format(
      "# A job whose pods must share one NVLink domain (required) or should share a leaf switch\n"
      "# (preferred): the pod-set annotations Kueue's topology-aware scheduling reads.\n"
      "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: example-gang\n  namespace: default\n  labels:\n"
      "    kueue.x-k8s.io/queue-name: gpu\nspec:\n  parallelism: {0}\n  completions: {0}\n"
      "  completionMode: Indexed\n  template:\n    metadata:\n      annotations:\n        {1}\n    spec:\n"
      "      restartPolicy: Never\n      nodeSelector:\n        gpuplan.io/system: {2}\n      containers:\n"
      "      - name: worker\n        image: nvcr.io/nvidia/pytorch:25.01-py3\n        resources:\n          limits:\n"
      "            nvidia.com/gpu: {3}\n",
      ex.nodes_per_domain(),
      ex_nvl ? "kueue.x-k8s.io/podset-required-topology: nvidia.com/gpu.clique"
             : "kueue.x-k8s.io/podset-preferred-topology: gpuplan.io/scaleout-block",
      yaml_quote(ex.system), ex.gpus_per_node);
  std::vector<ExportFile> files = {{"node-labels.sh", labels}, {"kueue.yaml", topo}, {"example-job.yaml", job}};
  // Multi-node NVLink on Kubernetes: the NVIDIA DRA driver's ComputeDomain (resource.nvidia.com) sets up
  // IMEX for the pods of one job; one per rack-sized gang, pods claim its channel template.
  std::string cds = fmt::format(
      "# ComputeDomains for cluster '{}', generated by gpuplan: multi-node NVLink (IMEX) for a job on an NVL\n"
      "# rack needs the NVIDIA DRA driver for GPUs (k8s-dra-driver-gpu); a job's pods add a resourceClaim from\n"
      "# the domain's channel template. One per NVLink domain, sized to the rack's nodes.\n",
      c.spec().name);
  bool any_cd = false;
  for (int d = 0; d < static_cast<int>(c.domains().size()); ++d) {
    const SystemGroup& s = groups[c.domains()[d].group];
    if (!multi_node_domain(s)) continue;
    any_cd = true;
    cds += fmt::format(
        "---\napiVersion: resource.nvidia.com/v1beta1\nkind: ComputeDomain\nmetadata:\n  name: {0}\n"
        "  namespace: default\nspec:\n  numNodes: {1}\n  channel:\n    resourceClaimTemplate:\n"
        "      name: {2}\n",
        yaml_quote(domain_name(c, d)), s.nodes_per_domain(), yaml_quote(domain_name(c, d) + "-channel"));
  }
  if (any_cd) files.push_back({"compute-domains.yaml", cds});
  return files;
}

std::vector<ExportFile> export_volcano(const Cluster& c) {
  const auto& groups = c.spec().groups;
  const auto leaves = leaf_blocks(c);
  std::string y = fmt::format(
      "# Volcano network topology for cluster '{}', generated by gpuplan: HyperNode objects\n"
      "# (topology.volcano.sh/v1alpha1, Volcano >= 1.12). Tier 1: an NVLink domain (NVL rack) or, for HGX\n"
      "# nodes, the leaf switch they share; tier 2: the spine over all of them. A job with\n"
      "# networkTopology: {{mode: hard, highestTierAllowed: 1}} stays inside one tier-1 HyperNode.\n",
      c.spec().name);
  std::vector<std::string> tier1;
  auto hypernode = [&](const std::string& name, int tier, const char* type, const std::vector<std::string>& members) {
    y += fmt::format("---\napiVersion: topology.volcano.sh/v1alpha1\nkind: HyperNode\nmetadata:\n  name: {}\nspec:\n"
                     "  tier: {}\n  members:\n",
                     yaml_quote(name), tier);
    for (const auto& m : members)
      y += fmt::format("  - type: {}\n    selector:\n      exactMatch:\n        name: {}\n", type, yaml_quote(m));
  };
  for (int d = 0; d < static_cast<int>(c.domains().size()); ++d)
    if (multi_node_domain(groups[c.domains()[d].group])) {
      hypernode(domain_name(c, d), 1, "Node", nodes_of_domain(c, d));
      tier1.push_back(domain_name(c, d));
    }
  for (const LeafBlock& b : leaves)
    if (!multi_node_domain(groups[b.group])) {
      hypernode(b.name, 1, "Node", nodes_of_leaf(c, b));
      tier1.push_back(b.name);
    }
  hypernode("spine", 2, "HyperNode", tier1);
  return {{"hypernodes.yaml", y}};
}

std::vector<ExportFile> export_config(const std::string& format, const Cluster& cluster, const std::string& field) {
  if (format == "slurm") return export_slurm(cluster);
  if (format == "kueue") return export_kueue(cluster);
  if (format == "volcano") return export_volcano(cluster);
  throw InputError(field, "unknown export format '" + format + "' (allowed: slurm, kueue, volcano)" +
                              did_you_mean(format, {"slurm", "kueue", "volcano"}));
}

}  // namespace gpuplan::schedule
