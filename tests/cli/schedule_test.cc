// End-to-end tests of `gpuplan schedule` and `gpuplan export`.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include "run_cli.h"

namespace {

const std::string kPhilly = std::string(GPUPLAN_SHARED_DATA_DIR) + "/traces/philly.csv";

// A file of this test process's own (ctest runs the tests of this file in parallel processes: a shared
// path would be rewritten under another test's reader).
std::string own_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("gpuplan_schedule_cli_" + std::to_string(::getpid()) + "_" + name))
      .string();
}

// A cluster file with explicit shapes, so these tests do not depend on catalog entries.
std::string explicit_cluster() {
  static const std::string path = [] {
    const std::string p = own_path("cluster.yaml");
    std::ofstream(p) << "name: cli-test\nsystems:\n"
                        "  - system: gb300-nvl72\n    count: 4\n    gpus_per_node: 4\n    nodes: 18\n"
                        "    nvlink_domain_gpus: 72\n    node_prefix: gb300-\n"
                        "  - system: hgx-h200\n    count: 16\n    gpus_per_node: 8\n    nodes: 1\n"
                        "    nvlink_domain_gpus: 8\n    node_prefix: h200-\n";
    return p;
  }();
  return path;
}

TEST(ScheduleCli, PhillyFirst5000JobsAllPoliciesJson) {
  auto r = run_gpuplan("schedule --cluster " + explicit_cluster() + " --trace " + kPhilly +
                       " --jobs 5000 --backfill --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = r.json();
  EXPECT_EQ(j["schema"], "gpuplan.schedule/v1");
  EXPECT_EQ(j["cluster"]["gpus"], 4 * 72 + 16 * 8);
  EXPECT_EQ(j["trace"]["jobs"], 5000);
  ASSERT_EQ(j["results"].size(), 3u);
  std::set<std::string> names;
  for (const auto& res : j["results"]) {
    names.insert(res["policy"].get<std::string>());
    EXPECT_EQ(res["jobs"].get<int>() + res["skipped"].get<int>(), 5000);
    EXPECT_GT(res["utilisation"].get<double>(), 0);
    EXPECT_LE(res["one_domain_share"].get<double>(), 1);
  }
  EXPECT_TRUE(names.count("domain-aware+backfill"));
  EXPECT_GE(j["results"][2]["multi_gpu_jobs_in_one_domain"].get<int>(),
            j["results"][0]["multi_gpu_jobs_in_one_domain"].get<int>());
  EXPECT_EQ(r.err, "");  // no progress output when stderr is not a terminal
}

TEST(ScheduleCli, TableAndSkippedJobsAreReported) {
  // 128-GPU Philly jobs do not fit an 8-GPU cluster: skipped and said so.
  const std::string path = own_path("tiny.yaml");
  std::ofstream(path) << "systems:\n  - system: tiny\n    count: 1\n    gpus_per_node: 8\n    nodes: 1\n"
                         "    nvlink_domain_gpus: 8\n";
  auto r = run_gpuplan("schedule --cluster " + path + " --trace " + kPhilly + " --jobs 3000 --policy domain-aware");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("Skipped"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("multi-GPU jobs in 1 domain"), std::string::npos);
  EXPECT_NE(r.out.find("domain-aware"), std::string::npos);
}

TEST(ScheduleCli, GeneratedMixWithPreemption) {
  const std::string trace = own_path("trace.csv");
  auto r = run_gpuplan("schedule --cluster " + explicit_cluster() +
                       " --trace generated --jobs 400 --seed 3 --load 1.3 --backfill --preempt --json --write-trace " +
                       trace);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = r.json();
  EXPECT_EQ(j["trace"]["seed"], 3);
  for (const auto& res : j["results"]) EXPECT_EQ(res["jobs"].get<int>() + res["skipped"].get<int>(), 400);
  // The written trace replays to the same result.
  auto again = run_gpuplan("schedule --cluster " + explicit_cluster() + " --trace " + trace +
                           " --backfill --preempt --json");
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(again.json()["results"], j["results"]);
}

TEST(ScheduleCli, BadInputExitsWith2NamingTheField) {
  auto r = run_gpuplan("schedule --cluster " + explicit_cluster() + " --policy domain-awar");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("domain-aware"), std::string::npos) << r.err;
  const std::string bad = own_path("bad.yaml");
  std::ofstream(bad) << "systems:\n  - system: x\n    count: 1\n    gpus_per_node: 8\n    nodes: 1\n"
                        "    nvlink_domain_gpus: 8\n    colour: red\n";
  r = run_gpuplan("schedule --cluster " + bad);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("colour"), std::string::npos) << r.err;
  r = run_gpuplan("schedule --cluster /nonexistent.yaml");
  EXPECT_EQ(r.exit_code, 2);
}

TEST(ExportCli, SlurmKueueVolcano) {
  for (const char* fmt : {"slurm", "kueue", "volcano"}) {
    auto r = run_gpuplan(std::string("export ") + fmt + " --cluster " + explicit_cluster() + " --json");
    ASSERT_EQ(r.exit_code, 0) << fmt << ": " << r.err;
    auto j = r.json();
    EXPECT_EQ(j["schema"], "gpuplan.export/v1");
    EXPECT_FALSE(j["files"].empty());
  }
  auto r = run_gpuplan("export slurm --cluster " + explicit_cluster());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("BlockName=gb300-nvl01 Nodes=gb300-[001-018]"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("BlockSizes=18,36,72"), std::string::npos);
  EXPECT_NE(r.out.find("NodeName=h200-[001-016] Gres=gpu:h200:8"), std::string::npos);
  r = run_gpuplan("export slrum --cluster " + explicit_cluster());
  EXPECT_EQ(r.exit_code, 2);
}

TEST(ExportCli, ExampleClustersResolveThroughTheCatalog) {
  for (const char* f : {"gb300-h200-mixed.yaml", "gb200-nvl72-8racks.yaml", "hgx-h100-256.yaml", "custom-shape.yaml"}) {
    auto r = run_gpuplan("export slurm --cluster " + kSrc + "/examples/clusters/" + f);
    if (r.exit_code == 2 && r.err.find("unknown system") != std::string::npos)
      GTEST_SKIP() << "catalog lacks a system of " << f << ": " << r.err;
    EXPECT_EQ(r.exit_code, 0) << f << ": " << r.err;
  }
}

}  // namespace

TEST(ScheduleCli, SlowdownFromTheTrainingModel) {
  auto r = run_gpuplan(std::string("schedule --cluster ") + GPUPLAN_SOURCE_DIR +
                       "/examples/clusters/gb300-h200-mixed.yaml --jobs 200 --policy fifo "
                       "--slowdown-model llama3.1-8b --slowdown-system hgx-h200 --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_GT(r.json()["cross_domain_slowdown_pct"].get<double>(), 0.0);
  auto bad = run_gpuplan(std::string("schedule --cluster ") + GPUPLAN_SOURCE_DIR +
                         "/examples/clusters/gb300-h200-mixed.yaml --slowdown-model llama3.1-8b");
  EXPECT_EQ(bad.exit_code, 2);
}
