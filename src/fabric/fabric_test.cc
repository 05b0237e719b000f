// Golden tests against the NVIDIA DGX SuperPOD compute-fabric tables (../shared/data/network/topologies.md
// section 2), the fat-tree limits, and properties of the fabric planner.
#include <gtest/gtest.h>

#include "catalog/catalog.h"
#include "core/error.h"
#include "fabric/fabric.h"

namespace gpuplan::fabric {
namespace {

FabricResult plan(const std::string& kind, long long gpus, bool twin = false, double r = 1,
                  Topology t = Topology::rail_optimized, int management_links = -1) {
  const FabricCatalog& c = FabricCatalog::builtin();
  FabricSpec s;
  s.gpus = gpus;
  s.management_links = management_links;
  s.twin_port_node_cages = twin;
  s.oversubscription = r;
  s.topology = t;
  return plan_fabric(c, c.kind(kind), s);
}

long long tier(const FabricResult& f, size_t i) { return i < f.topology.tiers.size() ? f.topology.tiers[i].switches : 0; }

// DGX H100 SuperPOD, Table 4 "Compute fabric component count" (1-4 SU).
TEST(FabricGolden, DgxH100SuperPod) {
  struct Row { long long gpus, leaf, spine, node_cables, spine_cables; };
  const Row rows[] = {{248, 8, 4, 252, 256}, {504, 16, 8, 508, 512}, {760, 24, 16, 764, 768}, {1016, 32, 16, 1020, 1024}};
  for (const auto& row : rows) {
    const FabricResult f = plan("ib-ndr", row.gpus, /*twin=*/true);
    ASSERT_TRUE(f.feasible()) << f.topology.why;
    EXPECT_EQ(f.topology.tiers.size(), 2u) << row.gpus;
    EXPECT_EQ(tier(f, 0), row.leaf) << row.gpus;
    EXPECT_EQ(tier(f, 1), row.spine) << row.gpus;
    ASSERT_EQ(f.links.size(), 2u);
    EXPECT_EQ(f.links[0].links, row.node_cables) << row.gpus;   // includes the 4 UFM links
    EXPECT_EQ(f.links[1].links, row.spine_cables) << row.gpus;
  }
  // 4-SU bill of materials (RA Table 8): 1,536 switch transceivers, 508 DGX transceivers.
  const FabricResult f = plan("ib-ndr", 1016, true);
  EXPECT_EQ(f.links[0].switch_modules + f.links[1].switch_modules, 1536);
  EXPECT_EQ(f.links[0].node_modules, 508);
  // UFM takes leaf ports: 128 DGX and the UFM links need a fifth SU, which is why the RA drops one DGX.
  EXPECT_EQ(plan("ib-ndr", 1024, true).topology.scalable_units, 5);
  EXPECT_EQ(plan("ib-ndr", 1024, true, 1, Topology::rail_optimized, 0).topology.scalable_units, 4);
  // Typical-load power basis of topologies.md 2a: 48 x 747 W + 2,044 modules x 15 W = 66.5 kW.
  EXPECT_NEAR(f.switch_power_w + f.optics_power_w, 48 * 747.0 + 2044 * 15.0, 1.0);
}

// DGX B200 SuperPOD "Larger component counts": 2-tier up to 2,048 GPUs, then a core tier.
TEST(FabricGolden, DgxB200SuperPod) {
  struct Row { long long gpus, leaf, spine, core; };
  const Row rows[] = {{512, 16, 8, 0},       {1024, 32, 16, 0},     {2048, 64, 32, 0},
                      {4096, 128, 128, 64},  {8192, 256, 256, 128}, {16384, 512, 512, 256}};
  for (const auto& row : rows) {
    // The B200 table counts no UFM links on the compute fabric (node-leaf = GPUs).
    const FabricResult f = plan("ib-ndr", row.gpus, true, 1, Topology::rail_optimized, 0);
    ASSERT_TRUE(f.feasible()) << f.topology.why;
    EXPECT_EQ(tier(f, 0), row.leaf) << row.gpus;
    EXPECT_EQ(tier(f, 1), row.spine) << row.gpus;
    EXPECT_EQ(tier(f, 2), row.core) << row.gpus;
    EXPECT_EQ(f.links[0].links, row.gpus);
    for (size_t i = 1; i < f.links.size(); ++i) EXPECT_EQ(f.links[i].links, row.gpus) << row.gpus;
  }
}

// DGX B300 SuperPOD with Quantum-X800 (Table 3); the 18-SU row read as 10,368 GPUs (see topologies.md).
TEST(FabricGolden, DgxB300Xdr) {
  struct Row { long long gpus, leaf, spine; };
  const Row rows[] = {{576, 8, 4}, {1152, 16, 8}, {2304, 32, 18}, {4608, 64, 36}, {10368, 144, 72}};
  for (const auto& row : rows) {
    const FabricResult f = plan("ib-xdr", row.gpus);
    ASSERT_TRUE(f.feasible()) << f.topology.why;
    EXPECT_EQ(f.topology.tiers.size(), 2u) << row.gpus;
    EXPECT_EQ(tier(f, 0), row.leaf) << row.gpus;
    EXPECT_EQ(tier(f, 1), row.spine) << row.gpus;
    EXPECT_EQ(f.links[0].links, row.gpus);
    EXPECT_EQ(f.links[1].links, row.gpus);
  }
  EXPECT_EQ(plan("ib-xdr", 10369).topology.tiers.size(), 3u);  // past 144^2/2
}

// DGX B300 SuperPOD on Spectrum-X: twin-planar 2 x 400GbE per GPU; the table counts 800G cables.
TEST(FabricGolden, DgxB300SpectrumX) {
  struct Row { long long gpus, leaf, spine; };
  const Row rows[] = {{512, 16, 8}, {1024, 32, 16}, {2048, 64, 32}, {4096, 128, 64}, {8192, 256, 128}};
  for (const auto& row : rows) {
    const FabricResult f = plan("eth-800g", row.gpus);
    ASSERT_TRUE(f.feasible()) << f.topology.why;
    EXPECT_EQ(tier(f, 0), row.leaf) << row.gpus;
    EXPECT_EQ(tier(f, 1), row.spine) << row.gpus;
    EXPECT_EQ(f.links[0].links / 2, row.gpus);  // 2 x 400G per GPU = one 800G cable's worth
    EXPECT_EQ(f.links[1].links / 2, row.gpus);
  }
}

// R1: a fat tree of radix k holds k^2/2 hosts in two tiers and k^3/4 in three (Al-Fares et al.).
TEST(FabricLimits, FatTreeKSquaredOverTwoAndKCubedOverFour) {
  for (int k : {16, 64, 128, 144}) {
    const long long two = 1LL * k * k / 2, three = 1LL * k * k * k / 4;
    auto tiers = [&](long long nodes, int max_tiers = 4) {
      const TopologyCounts c = count_topology({nodes, 1, 1, 0, k, 1, Topology::rail_optimized, max_tiers});
      return c.feasible ? static_cast<int>(c.tiers.size()) : 0;
    };
    EXPECT_EQ(tiers(k / 2 + 1), 2) << k;
    EXPECT_EQ(tiers(two), 2) << k;
    EXPECT_EQ(tiers(two + 1), 3) << k;
    EXPECT_EQ(tiers(three), 3) << k;
    EXPECT_EQ(tiers(three + 1), 4) << k;
    EXPECT_EQ(tiers(three + 1, 3), 0) << k;  // infeasible when limited to 3 tiers
    const TopologyCounts c = count_topology({three, 1, 1, 0, k, 1, Topology::rail_optimized, 4});
    EXPECT_EQ(c.max_endpoints_2tier, two);
    EXPECT_EQ(c.max_endpoints_3tier, three);
    EXPECT_EQ(c.tiers[0].switches, three / (k / 2));
    EXPECT_EQ(c.tiers[1].switches, three / (k / 2));
    EXPECT_EQ(c.tiers[2].switches, three / k);
  }
}

TEST(FabricLimits, SpineRoundingDividesUplinks) {
  EXPECT_EQ(spines_for(24, 32, 64), 16);  // H100 3 SU: 12 would carry the ports
  EXPECT_EQ(spines_for(32, 72, 144), 18); // B300-XDR 4 SU
  EXPECT_EQ(spines_for(64, 72, 144), 36);
  EXPECT_EQ(spines_for(8, 32, 64), 4);
}

TEST(FabricProperties, OversubscriptionCutsSpinesAndBandwidth) {
  const FabricResult one = plan("ib-ndr", 2048), three = plan("ib-ndr", 2048, false, 3);
  ASSERT_TRUE(one.feasible() && three.feasible());
  EXPECT_EQ(three.topology.downlinks_per_leaf, 48);
  EXPECT_EQ(three.topology.uplinks_per_leaf, 16);
  EXPECT_LT(three.switches, one.switches);
  EXPECT_LT(three.capex_usd(), one.capex_usd());
  EXPECT_NEAR(three.bisection_ratio, 1.0 / 3, 1e-9);
  EXPECT_NEAR(three.paths[1].bandwidth_bytes_per_s_per_gpu, 50e9 / 3, 1e3);
  EXPECT_NEAR(three.paths[0].bandwidth_bytes_per_s_per_gpu, 50e9, 1e3);
}

TEST(FabricProperties, RailOnlyHasNoSpineAndCostsLess) {
  const FabricResult opt = plan("ib-ndr", 512, false, 1, Topology::rail_optimized, 0),
                     only = plan("ib-ndr", 512, false, 1, Topology::rail_only, 0);
  ASSERT_TRUE(only.feasible());
  EXPECT_EQ(only.topology.tiers.size(), 1u);
  EXPECT_EQ(only.switches, 8);  // one 64-port switch per rail for 64 nodes
  EXPECT_LT(only.power_w(), opt.power_w());
  EXPECT_LT(only.capex_usd(), opt.capex_usd());
  EXPECT_TRUE(only.paths.back().via_nvlink);
  // With the 4 UFM links the 64-port rail switches are full: each rail becomes a 2-tier tree.
  EXPECT_EQ(plan("ib-ndr", 512, false, 1, Topology::rail_only).topology.tiers.size(), 2u);
}

TEST(FabricProperties, MonotoneInGpusAndTransceiverRatio) {
  long long last = 0;
  for (long long g = 8; g <= 65536; g *= 2) {
    const FabricResult f = plan("ib-ndr", g);
    ASSERT_TRUE(f.feasible()) << g;
    EXPECT_GE(f.switches, last) << g;
    last = f.switches;
  }
  // R4: HGX with single-port NIC optics, 2 tiers, 1:1 -> 2.5 modules per GPU at full SUs (Ethernet:
  // no UFM links, whose leaf-side modules would add 2).
  const FabricResult f = plan("eth-400g", 8192);
  long long modules = 0;
  for (const auto& g : f.links) modules += g.switch_modules + g.node_modules;
  EXPECT_EQ(f.topology.tiers.size(), 2u);
  EXPECT_DOUBLE_EQ(static_cast<double>(modules) / 8192, 2.5);
  // 3 tiers -> 3.5.
  const FabricResult g3 = plan("eth-400g", 16384);
  modules = 0;
  for (const auto& g : g3.links) modules += g.switch_modules + g.node_modules;
  EXPECT_EQ(g3.topology.tiers.size(), 3u);
  EXPECT_DOUBLE_EQ(static_cast<double>(modules) / 16384, 3.5);
}

TEST(FabricProperties, LatencyGrowsWithTiers) {
  const FabricResult f = plan("ib-ndr", 16384);
  ASSERT_EQ(f.paths.size(), 3u);
  EXPECT_LT(f.paths[0].latency_s, f.paths[1].latency_s);
  EXPECT_LT(f.paths[1].latency_s, f.paths[2].latency_s);
  EXPECT_EQ(f.paths[2].switch_hops, 5);
}

TEST(FabricCatalog, EveryCatalogSystemHasAKindAndPlansUpTo100k) {
  const Catalog cat = Catalog::builtin();
  const FabricCatalog& fc = FabricCatalog::builtin();
  for (const auto& s : cat.systems()) {
    const FabricKind* k = fc.kind_for_network(s.scaleout_network);
    ASSERT_NE(k, nullptr) << s.name << " uses " << s.scaleout_network;
    EXPECT_FALSE(k->frontend) << s.name;
    for (long long g : {1LL, 8LL, 72LL, 1000LL, 16384LL, 100000LL}) {
      FabricSpec spec;
      spec.gpus = g;
      spec.gpus_per_node = s.gpus_per_node;
      const FabricResult f = plan_fabric(fc, *k, spec);
      EXPECT_TRUE(f.feasible()) << s.name << " " << g << ": " << f.topology.why;
      EXPECT_GT(f.power_w(), 0) << s.name;
    }
  }
}

// R5: copper inside the rack, multimode to the row, single-mode beyond; XDR has no multimode or DAC.
TEST(FabricMedia, ByKindAndReach) {
  const FabricCatalog& c = FabricCatalog::builtin();
  EXPECT_EQ(medium_for(c, "g400", 2)->name, "dac-400g");
  EXPECT_EQ(medium_for(c, "g400", 4)->name, "lacc-400g");
  EXPECT_EQ(medium_for(c, "g400", 30)->name, "mm-sr4-400g");
  EXPECT_EQ(medium_for(c, "g400", 150)->name, "sm-dr4-400g");
  EXPECT_EQ(medium_for(c, "g400", 1500)->name, "sm-fr4-400g");
  EXPECT_EQ(medium_for(c, "g400", 5000), nullptr);
  EXPECT_EQ(medium_for(c, "g800", 30)->name, "sm-dr-800g");
  EXPECT_TRUE(medium_for(c, "g800", 1)->copper);
  // Leaves in the rack (2 m): the node links are copper, no node-side modules.
  FabricCatalog near = c;
  near.set_assumption("node_leaf_m", 2);
  FabricSpec s;
  s.gpus = 256;
  const FabricResult f = plan_fabric(near, near.kind("ib-ndr"), s);
  ASSERT_TRUE(f.feasible());
  EXPECT_TRUE(f.links[0].copper);
  EXPECT_EQ(f.links[0].node_modules, 0);
  EXPECT_LT(f.optics_power_w, plan_fabric(c, c.kind("ib-ndr"), s).optics_power_w);
}

TEST(FabricCatalog, AssumptionsAreNamedAndOverridable) {
  FabricCatalog c = FabricCatalog::builtin();
  FabricSpec s;
  s.gpus = 1024;
  const double before = plan_fabric(c, c.kind("ib-xdr"), s).switch_power_w;
  const FabricResult f = plan_fabric(c, c.kind("ib-xdr"), s);
  EXPECT_NE(std::find(f.assumptions_used.begin(), f.assumptions_used.end(), "q3400_power_w"), f.assumptions_used.end());
  c.set_assumption("q3400_power_w=2000");
  EXPECT_NEAR(plan_fabric(c, c.kind("ib-xdr"), s).switch_power_w, before / 1681 * 2000, 1e-6);
  EXPECT_THROW(c.set_assumption("q3400_power_w=-1"), InputError);
  EXPECT_THROW(c.set_assumption("q3400_pwer_w=1"), InputError);
  EXPECT_THROW(c.set_assumption("q3400_power_w"), InputError);
  EXPECT_THROW(c.set_assumption("q3400_power_w=abc"), InputError);
}

TEST(FabricCatalog, BadInputsNameTheField) {
  const FabricCatalog& c = FabricCatalog::builtin();
  FabricSpec s;
  s.gpus = 0;
  try {
    plan_fabric(c, c.kind("ib-ndr"), s);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "--gpus");
  }
  s.gpus = 8;
  s.oversubscription = 0.5;
  EXPECT_THROW(plan_fabric(c, c.kind("ib-ndr"), s), InputError);
  EXPECT_THROW(c.kind("ib-nrd"), InputError);
}

}  // namespace
}  // namespace gpuplan::fabric
