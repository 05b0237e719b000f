#include "schedule/export.h"

#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <map>
#include <set>
#include <sstream>

#include "core/error.h"
#include "schedule/test_clusters.h"

namespace gpuplan::schedule {
namespace {

using testing::hgx;
using testing::nvl72;
using testing::spec;

const std::string& file(const std::vector<ExportFile>& files, const std::string& name) {
  for (const auto& f : files)
    if (f.name == name) return f.text;
  throw std::runtime_error("no file " + name);
}

// key=value pairs of a Slurm config line (comments dropped).
std::map<std::string, std::string> slurm_fields(std::string line) {
  if (auto h = line.find('#'); h != std::string::npos) line = line.substr(0, h);
  std::map<std::string, std::string> out;
  std::istringstream in(line);
  std::string tok;
  while (in >> tok)
    if (auto eq = tok.find('='); eq != std::string::npos) out[tok.substr(0, eq)] = tok.substr(eq + 1);
  return out;
}

std::vector<std::map<std::string, std::string>> slurm_lines(const std::string& text) {
  std::vector<std::map<std::string, std::string>> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    auto f = slurm_fields(line);
    if (!f.empty()) out.push_back(f);
  }
  return out;
}

TEST(Hostlist, CompressesAndExpands) {
  std::vector<std::string> names{"n001", "n002", "n003", "n005", "gpu7", "x"};
  EXPECT_EQ(hostlist(names), "n[001-003,005],gpu7,x");
  EXPECT_EQ(expand_hostlist(hostlist(names)), names);
  EXPECT_EQ(expand_hostlist("a[08-10]"), (std::vector<std::string>{"a08", "a09", "a10"}));
}

TEST(ExportSlurm, OneBlockPerRackEveryNodeOnce) {
  Cluster c(spec({nvl72(16), hgx(64)}));
  auto files = export_slurm(c);
  std::multiset<std::string> in_blocks;
  std::vector<int> sizes;
  for (const auto& f : slurm_lines(file(files, "topology.conf"))) {
    if (f.count("BlockName")) {
      auto nodes = expand_hostlist(f.at("Nodes"));
      EXPECT_EQ(nodes.size(), 18u) << f.at("BlockName");
      in_blocks.insert(nodes.begin(), nodes.end());
    }
    if (f.count("BlockSizes")) {
      std::stringstream ss(f.at("BlockSizes"));
      std::string s;
      while (std::getline(ss, s, ',')) sizes.push_back(std::stoi(s));
    }
  }
  EXPECT_EQ(in_blocks.size(), 288u);
  EXPECT_EQ(std::set<std::string>(in_blocks.begin(), in_blocks.end()).size(), 288u);
  EXPECT_EQ(sizes, (std::vector<int>{18, 36, 72, 144, 288}));  // base = one rack, then powers of two

  // slurm.conf: every node exactly once with its GPU GRES.
  std::multiset<std::string> nodes;
  for (const auto& f : slurm_lines(file(files, "slurm.conf")))
    if (f.count("NodeName")) {
      for (auto& n : expand_hostlist(f.at("NodeName"))) nodes.insert(n);
      EXPECT_TRUE(f.at("Gres") == "gpu:gb300:4" || f.at("Gres") == "gpu:h200:8") << f.at("Gres");
    }
  EXPECT_EQ(nodes.size(), c.nodes().size());
  for (int n = 0; n < static_cast<int>(c.nodes().size()); ++n) EXPECT_EQ(nodes.count(c.node_name(n)), 1u);

  // topology.yaml (Slurm 25.05+): a block topology for the racks and a tree for the HGX nodes.
  YAML::Node y = YAML::Load(file(files, "topology.yaml"));
  ASSERT_TRUE(y.IsSequence());
  ASSERT_EQ(y.size(), 2u);
  EXPECT_EQ(y[0]["topology"].as<std::string>(), "nvlink-blocks");
  EXPECT_TRUE(y[0]["cluster_default"].as<bool>());
  EXPECT_EQ(y[0]["block"]["blocks"].size(), 16u);
  EXPECT_EQ(y[0]["block"]["block_sizes"][0].as<int>(), 18);
  std::set<std::string> tree_nodes;
  for (const auto& sw : y[1]["tree"]["switches"])
    if (sw["nodes"]) {
      for (auto& n : expand_hostlist(sw["nodes"].as<std::string>())) EXPECT_TRUE(tree_nodes.insert(n).second);
    }
  EXPECT_EQ(tree_nodes.size(), 64u);
}

TEST(ExportSlurm, HgxOnlyClusterGetsATree) {
  Cluster c(spec({hgx(70)}));
  std::set<std::string> nodes;
  int spines = 0;
  for (const auto& f : slurm_lines(file(export_slurm(c), "topology.conf"))) {
    ASSERT_TRUE(f.count("SwitchName"));
    if (f.count("Nodes")) {
      for (auto& n : expand_hostlist(f.at("Nodes"))) EXPECT_TRUE(nodes.insert(n).second);
    }
    if (f.count("Switches")) {
      ++spines;
      EXPECT_EQ(expand_hostlist(f.at("Switches")).size(), 3u);  // 32 + 32 + 6 nodes
    }
  }
  EXPECT_EQ(nodes.size(), 70u);
  EXPECT_EQ(spines, 1);
}

TEST(ExportKueue, LabelsAreConsistentWithDomainsAndYamlParses) {
  Cluster c(spec({nvl72(2), hgx(4)}));
  auto files = export_kueue(c);
  std::map<std::string, std::map<std::string, std::string>> labels;
  std::istringstream in(file(files, "node-labels.sh"));
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("kubectl label node ", 0) != 0) continue;
    std::istringstream ls(line.substr(19));
    std::string node, tok;
    // Every word is single-quoted (the script stays inert whatever the names).
    auto unquote = [](std::string w) {
      EXPECT_TRUE(w.size() >= 2 && w.front() == '\'' && w.back() == '\'') << w;
      return w.size() >= 2 ? w.substr(1, w.size() - 2) : w;
    };
    ls >> node;
    node = unquote(node);
    ASSERT_FALSE(labels.count(node)) << node << " labelled twice";
    while (ls >> tok) {
      if (tok == "--overwrite") continue;
      tok = unquote(tok);
      if (auto eq = tok.find('='); eq != std::string::npos) labels[node][tok.substr(0, eq)] = tok.substr(eq + 1);
    }
  }
  ASSERT_EQ(labels.size(), c.nodes().size());
  // Same clique label exactly when same NVLink domain (racks); HGX nodes have none.
  for (int a = 0; a < static_cast<int>(c.nodes().size()); ++a) {
    const auto& la = labels[c.node_name(a)];
    EXPECT_EQ(la.count("nvidia.com/gpu.clique"), c.domains()[c.nodes()[a].domain].nodes > 1 ? 1u : 0u);
    for (int b = 0; b < static_cast<int>(c.nodes().size()); ++b) {
      const auto& lb = labels[c.node_name(b)];
      const bool same = c.nodes()[a].domain == c.nodes()[b].domain;
      EXPECT_EQ(la.at("gpuplan.io/nvlink-domain") == lb.at("gpuplan.io/nvlink-domain"), same);
    }
  }
  auto docs = YAML::LoadAll(file(files, "kueue.yaml"));
  std::map<std::string, int> kinds;
  std::set<std::string> topologies;
  for (const auto& d : docs) {
    ++kinds[d["kind"].as<std::string>()];
    if (d["kind"].as<std::string>() == "Topology") {
      topologies.insert(d["metadata"]["name"].as<std::string>());
      EXPECT_EQ(d["spec"]["levels"][d["spec"]["levels"].size() - 1]["nodeLabel"].as<std::string>(),
                "kubernetes.io/hostname");
    }
  }
  EXPECT_EQ(kinds["Topology"], 2);
  EXPECT_EQ(kinds["ResourceFlavor"], 2);
  EXPECT_EQ(kinds["ClusterQueue"], 1);
  for (const auto& d : docs) {
    if (d["kind"].as<std::string>() == "ResourceFlavor") {
      EXPECT_TRUE(topologies.count(d["spec"]["topologyName"].as<std::string>()));
      // Names are quoted scalars (yaml-cpp tags them "!"; a plain scalar is "?"), so a system called
      // "yes", "null" or "1e3" would stay a string.
      EXPECT_EQ(d["spec"]["nodeLabels"]["gpuplan.io/system"].Tag(), "!");
      EXPECT_EQ(d["metadata"]["name"].Tag(), "!");
    }
  }
  YAML::Node job = YAML::Load(file(files, "example-job.yaml"));
  EXPECT_EQ(job["spec"]["template"]["metadata"]["annotations"]["kueue.x-k8s.io/podset-required-topology"].as<std::string>(),
            "nvidia.com/gpu.clique");
  EXPECT_EQ(job["spec"]["parallelism"].as<int>(), 18);
}

TEST(ExportVolcano, HyperNodeTreeCoversEveryNodeOnce) {
  Cluster c(spec({nvl72(3), hgx(40)}));
  auto docs = YAML::LoadAll(file(export_volcano(c), "hypernodes.yaml"));
  std::multiset<std::string> nodes;
  std::set<std::string> tier1;
  std::vector<std::string> spine_members;
  for (const auto& d : docs) {
    if (!d.IsMap()) continue;
    ASSERT_EQ(d["kind"].as<std::string>(), "HyperNode");
    const int tier = d["spec"]["tier"].as<int>();
    for (const auto& m : d["spec"]["members"]) {
      const auto name = m["selector"]["exactMatch"]["name"].as<std::string>();
      if (tier == 1) {
        EXPECT_EQ(m["type"].as<std::string>(), "Node");
        nodes.insert(name);
      } else {
        EXPECT_EQ(m["type"].as<std::string>(), "HyperNode");
        spine_members.push_back(name);
      }
    }
    if (tier == 1) tier1.insert(d["metadata"]["name"].as<std::string>());
  }
  EXPECT_EQ(nodes.size(), c.nodes().size());
  EXPECT_EQ(std::set<std::string>(nodes.begin(), nodes.end()).size(), c.nodes().size());
  EXPECT_EQ(tier1.size(), 3u + 2u);  // three racks, two HGX leaf switches (32 + 8 nodes)
  EXPECT_EQ(std::set<std::string>(spine_members.begin(), spine_members.end()), tier1);
}

// NVL72 racks: SwitchType for IMEX channels and one IMEX nodes file per rack, each listing exactly the
// rack's block; HGX-only clusters get neither.
TEST(ExportSlurm, ImexPerRack) {
  Cluster c(spec({nvl72(3), hgx(4)}));
  auto files = export_slurm(c);
  bool switch_type = false;
  for (const auto& f : slurm_lines(file(files, "slurm.conf")))
    if (f.count("SwitchType")) switch_type = f.at("SwitchType") == "switch/nvidia_imex";
  EXPECT_TRUE(switch_type);
  int imex_files = 0;
  for (const auto& f : slurm_lines(file(files, "topology.conf"))) {
    if (!f.count("BlockName")) continue;
    const std::string& cfg = file(files, "imex-" + f.at("BlockName") + ".cfg");
    std::vector<std::string> listed;
    std::istringstream in(cfg);
    std::string line;
    while (std::getline(in, line))
      if (!line.empty() && line[0] != '#') listed.push_back(line);
    EXPECT_EQ(listed, expand_hostlist(f.at("Nodes")));
    ++imex_files;
  }
  EXPECT_EQ(imex_files, 3);
  auto hgx_only = export_slurm(Cluster(spec({hgx(4)})));
  for (const auto& f : hgx_only) EXPECT_EQ(f.name.rfind("imex-", 0), std::string::npos) << f.name;
  EXPECT_EQ(file(hgx_only, "slurm.conf").find("SwitchType"), std::string::npos);
}

TEST(ExportKueue, ComputeDomainPerRack) {
  Cluster c(spec({nvl72(2), hgx(4)}));
  const auto docs = YAML::LoadAll(file(export_kueue(c), "compute-domains.yaml"));
  int n = 0;
  for (const auto& d : docs) {
    if (!d || d.IsNull()) continue;
    EXPECT_EQ(d["kind"].as<std::string>(), "ComputeDomain");
    EXPECT_EQ(d["spec"]["numNodes"].as<int>(), 18);
    ++n;
  }
  EXPECT_EQ(n, 2);
  for (const auto& f : export_kueue(Cluster(spec({hgx(4)})))) EXPECT_NE(f.name, "compute-domains.yaml");
}

TEST(Export, UnknownFormatSuggests) {
  Cluster c(spec({hgx(1)}));
  try {
    export_config("slrum", c);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("slurm"), std::string::npos);
  }
}

}  // namespace
}  // namespace gpuplan::schedule
