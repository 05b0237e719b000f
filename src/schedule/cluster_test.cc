#include "schedule/cluster.h"

#include <gtest/gtest.h>

#include "core/error.h"
#include "schedule/cluster_yaml.h"
#include "schedule/state.h"
#include "schedule/test_clusters.h"

namespace gpuplan::schedule {
namespace {

using testing::hgx;
using testing::nvl72;
using testing::spec;

TEST(Cluster, ExpandsRacksAndNodesIntoDomains) {
  Cluster c(spec({nvl72(16), hgx(64)}));
  EXPECT_EQ(c.total_gpus(), 16 * 72 + 64 * 8);
  EXPECT_EQ(c.nodes().size(), 16u * 18 + 64);
  EXPECT_EQ(c.domains().size(), 16u + 64);
  EXPECT_EQ(c.domain_sizes(), (std::vector<int>{8, 72}));
  EXPECT_EQ(c.domains_of_size(72), 16);
  EXPECT_EQ(c.node_name(0), "gb300-nvl72-001");
  EXPECT_EQ(c.node_name(18 * 16), "hgx-h200-001");
  for (const Domain& d : c.domains())
    for (int n = d.first_node; n < d.first_node + d.nodes; ++n)
      EXPECT_EQ(c.nodes()[n].domain, &d - c.domains().data());
}

TEST(Cluster, RejectsDomainThatDoesNotDivideTheUnit) {
  SystemGroup g = nvl72(1);
  g.domain_gpus = 50;
  try {
    Cluster c(spec({g}));
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "systems[0].nvlink_domain_gpus");
  }
}

TEST(ClusterState, AllocatesLowestFreeGpusAndCatchesDoubleBooking) {
  Cluster c(spec({hgx(2)}));
  ClusterState st(c);
  Placement p{{{0, 3}}};
  auto m = st.allocate(p);
  EXPECT_EQ(m[0], 0b111u);
  EXPECT_EQ(st.total_free(), 13);
  EXPECT_EQ(st.domain_free(0), 5);
  EXPECT_THROW(st.allocate(Placement{{{0, 6}}}), std::logic_error);
  st.release(p, m);
  EXPECT_EQ(st.total_free(), 16);
  EXPECT_THROW(st.release(p, m), std::logic_error);
}

TEST(ShapeOf, CountsGroupsThatSpanMoreDomainsThanNeeded) {
  Cluster c(spec({nvl72(2), hgx(4)}));
  // 16 GPUs in 8-GPU groups: one group per HGX node: no split.
  Placement two_nodes{{{36, 8}, {37, 8}}};
  auto s = shape_of(c, two_nodes, 8);
  EXPECT_EQ(s.domains, 2);
  EXPECT_EQ(s.groups, 2);
  EXPECT_EQ(s.split_groups, 0);
  // The same 16 GPUs as one group on 8-GPU domains needs two domains anyway: not split.
  EXPECT_EQ(shape_of(c, two_nodes, 16).split_groups, 0);
  // One group of 8 across two racks: split.
  Placement across{{{17, 4}, {18, 4}}};
  EXPECT_EQ(shape_of(c, across, 8).split_groups, 1);
  EXPECT_EQ(shape_of(c, across, 4).split_groups, 0);
}

TEST(ClusterYaml, ResolvesSystemsAndRejectsUnknownKeys) {
  SystemResolver resolve = [](const std::string& name, const std::string&) -> std::optional<SystemShape> {
    if (name == "gb300-nvl72") return SystemShape{4, 18, 72};
    return std::nullopt;
  };
  auto s = parse_cluster_yaml(
      "name: mixed\nsystems:\n  - system: gb300-nvl72\n    count: 2\n"
      "  - system: custom\n    count: 3\n    gpus_per_node: 8\n    nodes: 1\n    nvlink_domain_gpus: 8\n",
      "c.yaml", resolve);
  ASSERT_EQ(s.groups.size(), 2u);
  EXPECT_EQ(s.groups[0].nodes_per_unit, 18);
  EXPECT_EQ(s.groups[1].count, 3);
  try {
    parse_cluster_yaml("systems:\n  - system: gb300-nvl72\n    count: 2\n    cuont: 3\n", "c.yaml", resolve);
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("cuont"), std::string::npos) << e.what();
  }
  EXPECT_THROW(parse_cluster_yaml("systems:\n  - system: nope\n    count: 2\n", "c.yaml", resolve), InputError);
  EXPECT_THROW(parse_cluster_yaml("systems:\n  - system: gb300-nvl72\n    count: 0\n", "c.yaml", resolve), InputError);
}

}  // namespace
}  // namespace gpuplan::schedule
