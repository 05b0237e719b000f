// Replays the whole Philly trace (82,247 jobs) on 16 GB300 NVL72 racks + 64 HGX H200 nodes, once per
// policy, with EASY backfill. Target (issue 6): under 10 s per policy on one core.
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <string>

#include "schedule/simulator.h"
#include "schedule/trace.h"

namespace {

using namespace gpuplan::schedule;

// $GPUPLAN_SHARED_DATA_DIR, else ../shared/data beside the repository (found from this file's path).
std::string shared_data_dir() {
  if (const char* env = std::getenv("GPUPLAN_SHARED_DATA_DIR"); env && *env) return env;
  std::string here = __FILE__;
  const auto repo = here.substr(0, here.rfind("/bench/"));
  return repo + "/../shared/data";
}

const std::vector<Job>& philly() {
  static const std::vector<Job> jobs = read_trace_file(shared_data_dir() + "/traces/philly.csv");
  return jobs;
}

Cluster example_cluster(int racks, int hgx_nodes) {
  ClusterSpec s;
  s.name = "bench";
  s.groups = {{"gb300-nvl72", 4, 18, 72, racks, "", 0}, {"hgx-h200", 8, 1, 8, hgx_nodes, "", 0}};
  return Cluster(s);
}

void BM_PhillyWholeTrace(benchmark::State& state, const char* policy, int racks, int hgx_nodes) {
  const auto& jobs = philly();
  const Cluster cluster = example_cluster(racks, hgx_nodes);
  const auto p = make_policy(policy);
  SimOptions o;
  o.backfill = true;
  for (auto _ : state) {
    auto r = simulate(cluster, jobs, *p, o);
    benchmark::DoNotOptimize(r.metrics.avg_jct_s);
    state.counters["jobs"] = r.metrics.jobs;
    state.counters["util"] = r.metrics.utilisation;
  }
}

// The example cluster (1,664 GPUs: lightly loaded by Philly) and a small one (416 GPUs: overloaded,
// long queues, the expensive case for backfill).
BENCHMARK_CAPTURE(BM_PhillyWholeTrace, fifo_1664, "fifo", 16, 64)->Unit(benchmark::kMillisecond)->Iterations(1);
BENCHMARK_CAPTURE(BM_PhillyWholeTrace, best_fit_1664, "best-fit", 16, 64)->Unit(benchmark::kMillisecond)->Iterations(1);
BENCHMARK_CAPTURE(BM_PhillyWholeTrace, domain_aware_1664, "domain-aware", 16, 64)->Unit(benchmark::kMillisecond)->Iterations(1);
BENCHMARK_CAPTURE(BM_PhillyWholeTrace, fifo_416, "fifo", 4, 16)->Unit(benchmark::kMillisecond)->Iterations(1);
BENCHMARK_CAPTURE(BM_PhillyWholeTrace, best_fit_416, "best-fit", 4, 16)->Unit(benchmark::kMillisecond)->Iterations(1);
BENCHMARK_CAPTURE(BM_PhillyWholeTrace, domain_aware_416, "domain-aware", 4, 16)->Unit(benchmark::kMillisecond)->Iterations(1);

}  // namespace
