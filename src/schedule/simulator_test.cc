#include "schedule/simulator.h"

#include <gtest/gtest.h>

#include <chrono>
#include <map>

#include "schedule/test_clusters.h"
#include "schedule/trace.h"

namespace gpuplan::schedule {
namespace {

using testing::hgx;
using testing::nvl72;
using testing::spec;

Job job(double submit, double duration, int gpus, int group, bool preemptible = false) {
  Job j;
  j.submit_s = submit;
  j.duration_s = duration;
  j.gpus = gpus;
  j.group_gpus = group;
  j.preemptible = preemptible;
  j.kind = preemptible ? JobKind::inference : JobKind::training;
  return j;
}

std::vector<Job> numbered(std::vector<Job> jobs) {
  for (size_t i = 0; i < jobs.size(); ++i) jobs[i].id = static_cast<int>(i);
  return jobs;
}

TEST(Simulator, FragmentationWhenAnUnplaceableJobWaits) {
  // One rack; five 16-GPU gangs at t=0: four run, the fifth waits while 8 GPUs sit free.
  Cluster c(spec({nvl72(1)}));
  std::vector<Job> jobs;
  for (int i = 0; i < 5; ++i) jobs.push_back(job(0, 100, 16, 16));
  auto r = simulate(c, numbered(jobs), DomainAwarePolicy());
  EXPECT_DOUBLE_EQ(r.metrics.makespan_s, 200);
  EXPECT_NEAR(r.metrics.fragmentation, 8.0 * 100 / (72.0 * 200), 1e-12);
  EXPECT_DOUBLE_EQ(r.metrics.one_domain_share, 1.0);
  EXPECT_DOUBLE_EQ(r.metrics.avg_wait_s, 20);
  EXPECT_NEAR(r.metrics.utilisation, 5 * 16 * 100 / (72.0 * 200), 1e-12);
}

// Eighteen 8-GPU jobs fill two racks; every other one ends at t=10, leaving 40 + 32 free GPUs but no
// free rack. A 72-GPU gang arrives at t=20.
std::vector<Job> racks_filled_by_8gpu_jobs() {
  std::vector<Job> jobs;
  for (int i = 0; i < 18; ++i) jobs.push_back(job(0, i % 2 == 0 ? 10 : 1000, 8, 8));
  jobs.push_back(job(20, 100, 72, 72));
  return numbered(jobs);
}

TEST(Simulator, EightGpuJobsFragmentRacks_DomainAwareWaits) {
  Cluster c(spec({nvl72(2)}));
  auto r = simulate(c, racks_filled_by_8gpu_jobs(), DomainAwarePolicy());
  const JobRecord& big = r.records.back();
  EXPECT_DOUBLE_EQ(big.first_start_s, 1000);
  EXPECT_EQ(big.domains, 1);
  EXPECT_DOUBLE_EQ(big.end_s, 1100);
  // From t=20 to 1000, 72 GPUs are free and the only waiting job cannot use them.
  EXPECT_NEAR(r.metrics.fragmentation * 144 * r.metrics.makespan_s, 72.0 * 980, 1e-6);
  EXPECT_DOUBLE_EQ(r.metrics.gpu_hours_lost, 0);
}

TEST(Simulator, EightGpuJobsFragmentRacks_FirstFitSplitsAndSlows) {
  Cluster c(spec({nvl72(2)}));
  SimOptions o;
  o.slowdown = fixed_slowdown(0.5);
  auto r = simulate(c, racks_filled_by_8gpu_jobs(), FirstFitPolicy(), o);
  const JobRecord& big = r.records.back();
  EXPECT_DOUBLE_EQ(big.first_start_s, 20);
  EXPECT_EQ(big.domains, 2);
  EXPECT_EQ(big.split_groups, 1);
  EXPECT_DOUBLE_EQ(big.end_s, 20 + 150);
  EXPECT_NEAR(r.metrics.gpu_hours_lost, 72 * 50 / 3600.0, 1e-9);
  EXPECT_DOUBLE_EQ(r.metrics.fragmentation, 0);
}

TEST(Simulator, EasyBackfillStartsAShortJobAheadOfABlockedHead) {
  Cluster c(spec({hgx(1)}));
  auto jobs = numbered({job(0, 100, 4, 4), job(1, 10, 8, 8), job(2, 50, 4, 4), job(3, 200, 4, 4)});
  auto fifo = simulate(c, jobs, FirstFitPolicy());
  EXPECT_DOUBLE_EQ(fifo.records[2].first_start_s, 110);
  SimOptions o;
  o.backfill = true;
  auto bf = simulate(c, jobs, FirstFitPolicy(), o);
  EXPECT_DOUBLE_EQ(bf.records[2].first_start_s, 2);    // ends at 52, before the head's reservation at 100
  EXPECT_DOUBLE_EQ(bf.records[1].first_start_s, 100);  // the head is not delayed
  EXPECT_DOUBLE_EQ(bf.records[3].first_start_s, 110);  // too long to backfill
  EXPECT_EQ(bf.policy, "fifo+backfill");
}

TEST(Simulator, TrainingPreemptsInferenceWhichResumes) {
  Cluster c(spec({hgx(1)}));
  auto jobs = numbered({job(0, 100, 8, 8, true), job(10, 10, 8, 8)});
  SimOptions o;
  o.preempt = true;
  auto r = simulate(c, jobs, DomainAwarePolicy(), o);
  EXPECT_DOUBLE_EQ(r.records[1].first_start_s, 10);
  EXPECT_DOUBLE_EQ(r.records[1].end_s, 20);
  EXPECT_EQ(r.records[0].preemptions, 1);
  EXPECT_DOUBLE_EQ(r.records[0].end_s, 110);
  EXPECT_DOUBLE_EQ(r.records[0].run_s, 100);
  auto no = simulate(c, jobs, DomainAwarePolicy());
  EXPECT_DOUBLE_EQ(no.records[1].first_start_s, 100);
}

TEST(Simulator, JobsLargerThanTheClusterAreSkippedAndCounted) {
  Cluster c(spec({hgx(2)}));
  auto r = simulate(c, numbered({job(0, 10, 8, 8), job(1, 10, 32, 32), job(2, 10, 16, 16)}), BestFitPolicy());
  ASSERT_EQ(r.skipped.size(), 1u);
  EXPECT_EQ(r.skipped[0], 1);
  EXPECT_EQ(r.metrics.skipped, 1);
  EXPECT_EQ(r.metrics.jobs, 2);
}

// Property checks on a generated mix: every job finishes, no GPU is held by two jobs at once.
void check_properties(const Cluster& c, const std::vector<Job>& jobs, const SimResult& r) {
  ASSERT_EQ(r.records.size() + r.skipped.size(), jobs.size()) << r.policy;
  std::map<std::pair<int, int>, std::vector<std::pair<double, double>>> busy;  // (node, gpu) -> intervals
  for (const JobRecord& rec : r.records) {
    ASSERT_GE(rec.end_s, 0) << r.policy << " job " << rec.job << " never finished";
    EXPECT_GE(rec.first_start_s, rec.submit_s);
    EXPECT_GE(rec.end_s, rec.first_start_s + rec.base_duration_s - 1e-6);
    int held = 0;
    for (auto [node, mask] : rec.gpus_held)
      for (int b = 0; b < 32; ++b)
        if (mask & (1u << b)) {
          ++held;
          busy[{node, b}].push_back({rec.end_s - rec.run_s, rec.end_s});
        }
    EXPECT_EQ(held, rec.gpus);
  }
  for (auto& [gpu, iv] : busy) {
    std::sort(iv.begin(), iv.end());
    for (size_t i = 1; i < iv.size(); ++i)
      ASSERT_LE(iv[i - 1].second, iv[i].first + 1e-6) << r.policy << ": GPU " << gpu.first << "/" << gpu.second
                                                       << " double-booked";
  }
  (void)c;
}

TEST(Simulator, PropertiesHoldForEveryPolicyOnAGeneratedMix) {
  Cluster c(spec({nvl72(2), hgx(8)}));
  for (uint64_t seed : {1, 2, 3}) {
    MixOptions m;
    m.seed = seed;
    m.jobs = 300;
    m.cluster_gpus = c.total_gpus();
    m.offered_load = 1.2;
    m.preemptible_inference = false;  // one run segment per job, so intervals are exact
    const auto jobs = generate_llm_mix(m);
    int one_domain_ff = -1;
    for (const auto& name : policy_names())
      for (bool backfill : {false, true}) {
        SimOptions o;
        o.backfill = backfill;
        auto r = simulate(c, jobs, *make_policy(name), o);
        check_properties(c, jobs, r);
        if (name == "fifo" && !backfill) one_domain_ff = r.metrics.one_domain_jobs;
        if (name == "domain-aware") {
          EXPECT_GE(r.metrics.one_domain_jobs, one_domain_ff) << "seed " << seed;
        }
      }
  }
}

TEST(Simulator, PreemptionKeepsEveryJobFinishing) {
  Cluster c(spec({nvl72(1), hgx(4)}));
  MixOptions m;
  m.seed = 7;
  m.jobs = 300;
  m.cluster_gpus = c.total_gpus();
  m.offered_load = 1.5;
  const auto jobs = generate_llm_mix(m);
  SimOptions o;
  o.preempt = true;
  o.backfill = true;
  auto r = simulate(c, jobs, DomainAwarePolicy(), o);
  EXPECT_EQ(r.metrics.jobs + r.metrics.skipped, 300);
  EXPECT_GT(r.metrics.preemptions, 0);
  for (const auto& rec : r.records) EXPECT_NEAR(rec.run_s, rec.base_duration_s * rec.slowdown, 1e-3 * rec.run_s + 1e-6);
}

TEST(Simulator, PhillyFirst5000JobsEndToEnd) {
  auto all = read_trace_file(std::string(GPUPLAN_SHARED_DATA_DIR) + "/traces/philly.csv");
  ASSERT_EQ(all.size(), 82247u);
  std::vector<Job> jobs(all.begin(), all.begin() + 5000);
  Cluster c(spec({nvl72(16), hgx(64)}));
  int one_domain_ff = 0;
  for (const auto& name : policy_names()) {
    SimOptions o;
    o.backfill = true;
    const auto t0 = std::chrono::steady_clock::now();
    auto r = simulate(c, jobs, *make_policy(name), o);
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    EXPECT_LT(secs, 2.0) << name;
    EXPECT_EQ(r.metrics.jobs + r.metrics.skipped, 5000);
    EXPECT_GT(r.metrics.utilisation, 0);
    EXPECT_LE(r.metrics.utilisation, 1);
    if (name == "fifo") one_domain_ff = r.metrics.one_domain_jobs;
    if (name == "domain-aware") {
      EXPECT_GE(r.metrics.one_domain_jobs, one_domain_ff);
      EXPECT_DOUBLE_EQ(r.metrics.gpu_hours_lost, 0);  // every Philly job fits a rack here
    }
  }
}

}  // namespace
}  // namespace gpuplan::schedule

#include "catalog/catalog.h"
#include "model/model_registry.h"
#include "schedule/training_slowdown.h"

namespace gpuplan::schedule {
namespace {

TEST(TrainingSlowdown, SplittingATensorParallelGroupCostsMoreThanADataParallelOne) {
  const Catalog catalog = Catalog::builtin();
  const Hardware hw = resolve_hardware(catalog, "hgx-h100");
  const ModelArch ref = resolve_model("llama3.1-8b");
  const double tp_split = training_slowdown_factor(hw, ref, 8);   // TP=8 across two 4-GPU halves
  const double dp_split = training_slowdown_factor(hw, ref, 16);  // TP=8 inside, DP=2 across domains
  EXPECT_GT(tp_split, 1.05);
  EXPECT_GE(dp_split, 1.0);
  EXPECT_GT(tp_split, dp_split);
  auto model = training_slowdown(hw, ref);
  Job job;
  job.gpus = job.group_gpus = 8;
  EXPECT_DOUBLE_EQ(model(job, PlacementShape{1, 1, 0}), 1.0);
  EXPECT_DOUBLE_EQ(model(job, PlacementShape{2, 1, 1}), tp_split);
}

}  // namespace
}  // namespace gpuplan::schedule
