#include "schedule/policy.h"

#include <gtest/gtest.h>

#include "core/error.h"
#include "schedule/test_clusters.h"

namespace gpuplan::schedule {
namespace {

using testing::hgx;
using testing::nvl72;
using testing::spec;

Job job(int gpus, int group) {
  Job j;
  j.gpus = gpus;
  j.group_gpus = group;
  j.duration_s = 100;
  return j;
}

TEST(Policies, A72GpuJobOnAnEmptyRackLandsInOneDomain) {
  Cluster c(spec({nvl72(2), hgx(4)}));
  ClusterState st(c);
  for (const auto& name : policy_names()) {
    auto p = make_policy(name)->place(job(72, 72), st);
    ASSERT_TRUE(p) << name;
    EXPECT_EQ(p->gpus(), 72);
    EXPECT_EQ(shape_of(c, *p, 72).domains, 1) << name;
  }
}

TEST(Policies, DomainAwareAvoidsAPartlyUsedRackFirstFitDoesNot) {
  Cluster c(spec({nvl72(2)}));
  ClusterState st(c);
  st.allocate(Placement{{{0, 4}}});  // one tray of rack 0 busy
  auto ff = FirstFitPolicy().place(job(72, 72), st);
  auto da = DomainAwarePolicy().place(job(72, 72), st);
  ASSERT_TRUE(ff && da);
  EXPECT_EQ(shape_of(c, *ff, 72).domains, 2);
  EXPECT_EQ(shape_of(c, *ff, 72).split_groups, 1);
  EXPECT_EQ(shape_of(c, *da, 72).domains, 1);
  EXPECT_EQ(c.nodes()[da->pieces[0].node].domain, 1);
}

TEST(Policies, DomainAwarePicksTheSmallestDomainThatFits) {
  Cluster c(spec({nvl72(1), hgx(2)}));
  ClusterState st(c);
  auto da = DomainAwarePolicy().place(job(8, 8), st);
  ASSERT_TRUE(da);
  ASSERT_EQ(da->pieces.size(), 1u);
  EXPECT_EQ(c.domains()[c.nodes()[da->pieces[0].node].domain].gpus, 8);
  // First-fit takes the first nodes: two trays of the rack.
  auto ff = FirstFitPolicy().place(job(8, 8), st);
  EXPECT_EQ(ff->pieces.size(), 2u);
  // Best-fit knows nodes: one HGX node holds all 8.
  auto bf = BestFitPolicy().place(job(8, 8), st);
  ASSERT_EQ(bf->pieces.size(), 1u);
  EXPECT_EQ(c.nodes()[bf->pieces[0].node].gpus, 8);
}

TEST(Policies, DomainAwareTakesWholeDomainSegmentsForLargeJobs) {
  Cluster c(spec({nvl72(4)}));
  ClusterState st(c);
  st.allocate(Placement{{{0, 4}}});  // rack 0 partly used
  // 128 GPUs in TP=8 groups: one whole rack (9 groups) plus 7 groups in the fullest rack that holds them.
  auto p = DomainAwarePolicy().place(job(128, 8), st);
  ASSERT_TRUE(p);
  auto s = shape_of(c, *p, 8);
  EXPECT_EQ(s.split_groups, 0);
  EXPECT_EQ(s.domains, 2);
  EXPECT_EQ(c.nodes()[p->pieces.front().node].domain, 1);  // first whole free rack
  EXPECT_EQ(c.nodes()[p->pieces.back().node].domain, 0);   // remainder in the partly used rack
}

TEST(Policies, DomainAwareWaitsRatherThanSplitWhenASplitIsAvoidable) {
  Cluster c(spec({nvl72(2)}));
  ClusterState st(c);
  st.allocate(Placement{{{0, 4}}});
  st.allocate(Placement{{{18, 4}}});
  EXPECT_FALSE(DomainAwarePolicy().place(job(72, 72), st));
  EXPECT_TRUE(FirstFitPolicy().place(job(72, 72), st));
}

TEST(Policies, DomainAwarePlacesAGangThatCanNeverSitUnsplit) {
  Cluster c(spec({nvl72(1), hgx(2)}));
  ClusterState st(c);
  st.allocate(Placement{{{0, 4}}});
  auto big = DomainAwarePolicy().place(job(80, 80), st);
  ASSERT_TRUE(big);
  EXPECT_EQ(big->gpus(), 80);
  EXPECT_EQ(shape_of(c, *big, 80).domains, 3);
  // Single-GPU groups are never split, so they may mix domain sizes.
  auto small = DomainAwarePolicy().place(job(80, 1), st);
  ASSERT_TRUE(small);
  EXPECT_EQ(shape_of(c, *small, 1).split_groups, 0);
}

TEST(Policies, NoPolicyPlacesMoreGpusThanAreFree) {
  Cluster c(spec({nvl72(1), hgx(1)}));
  ClusterState st(c);
  st.allocate(Placement{{{0, 4}, {1, 4}}});
  for (const auto& name : policy_names()) {
    auto pol = make_policy(name);
    EXPECT_FALSE(pol->place(job(73, 1), st)) << name;
    auto p = pol->place(job(72, 1), st);
    ASSERT_TRUE(p) << name;
    ClusterState copy = st;
    EXPECT_NO_THROW(copy.allocate(*p)) << name;
    EXPECT_EQ(copy.total_free(), 0);
  }
}

TEST(Policies, UnknownNameSuggests) {
  try {
    make_policy("domain-awar");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("domain-aware"), std::string::npos);
  }
}

}  // namespace
}  // namespace gpuplan::schedule
