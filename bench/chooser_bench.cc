// Google Benchmark: the serving operating-point chooser answering one target (the deployment, its
// units and the load solved for), on a dense model and on a frontier MoE model, on a node and a rack.
#include <benchmark/benchmark.h>

#include "catalog/catalog.h"
#include "inference/chooser.h"
#include "model/model_registry.h"

namespace {

using namespace gpuplan;

const Catalog& cat() {
  static const Catalog c = Catalog::builtin();
  return c;
}

ServingScenario scenario(const char* model, const char* system, long long isl, long long osl, double tps_user) {
  ServingScenario s;
  s.model = resolve_model(model);
  s.hw = resolve_hardware(cat(), system);
  s.system = system;
  s.unit_gpus = cat().system(system).gpus_per_unit();
  s.workload.weight_precision = Precision::fp8;
  s.workload.kv_bytes_per_element = default_kv_bytes(Precision::fp8);
  s.traffic.isl = isl;
  s.traffic.osl = osl;
  s.traffic.tokens_per_s_per_user = tps_user;
  s.traffic.ttft_limit_s = default_ttft_limit_s(isl);
  return s;
}

// The chooser answering `s`, with the deployments it considered and the operating points it evaluated.
void run(benchmark::State& state, const ServingScenario& s) {
  ServingChoice ch;
  for (auto _ : state) {
    ch = choose_serving(s);
    benchmark::DoNotOptimize(ch);
  }
  state.counters["deployments"] = static_cast<double>(ch.deployments);
  state.counters["evaluated"] = static_cast<double>(ch.evaluated);
}

// The README's question: Llama 3.1 70B on an HGX H200 node, 8K/1K, 50 tokens/s per user.
void BM_ChooseLlama70bH200(benchmark::State& state) {
  const ServingScenario s = scenario("llama3.1-70b", "hgx-h200", 8192, 1024, 50);
  run(state, s);
}
BENCHMARK(BM_ChooseLlama70bH200)->Unit(benchmark::kMicrosecond);

void BM_ChooseLlama70bGb300(benchmark::State& state) {
  const ServingScenario s = scenario("llama3.1-70b", "gb300-nvl72", 8192, 1024, 50);
  run(state, s);
}
BENCHMARK(BM_ChooseLlama70bGb300)->Unit(benchmark::kMicrosecond);

// DeepSeek-R1: aggregated and disaggregated deployments, EP widths, MTP on/off, over 1 to 8 units.
void BM_ChooseDeepSeekR1H200(benchmark::State& state) {
  const ServingScenario s = scenario("deepseek-r1", "hgx-h200", 8192, 1024, 50);
  run(state, s);
}
BENCHMARK(BM_ChooseDeepSeekR1H200)->Unit(benchmark::kMillisecond);

void BM_ChooseDeepSeekR1Gb300(benchmark::State& state) {
  const ServingScenario s = scenario("deepseek-r1", "gb300-nvl72", 8192, 1024, 50);
  run(state, s);
}
BENCHMARK(BM_ChooseDeepSeekR1Gb300)->Unit(benchmark::kMillisecond);

// compare's curve: DeepSeek-R1 on an HGX H200 node asked at each interactivity of its grid, alone
// (range 0) or sharing the evaluated points between the questions (range 1, ServingEvalCache).
void BM_ChooseDeepSeekR1H200Grid(benchmark::State& state) {
  const ServingScenario base = scenario("deepseek-r1", "hgx-h200", 1024, 1024, 50);
  std::size_t evaluated = 0;
  for (auto _ : state) {
    ServingEvalCache cache;
    ChooserOptions o;
    if (state.range(0)) o.cache = &cache;
    for (double tps : {5.0, 10.0, 20.0, 30.0, 50.0, 75.0, 100.0, 150.0, 200.0, 300.0, 500.0}) {
      ServingScenario s = base;
      s.traffic.tokens_per_s_per_user = tps;
      benchmark::DoNotOptimize(choose_serving(s, o));
    }
    evaluated = state.range(0) ? cache.points.size() : 0;
  }
  state.counters["distinct_points"] = static_cast<double>(evaluated);
}
BENCHMARK(BM_ChooseDeepSeekR1H200Grid)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

// One deployment's load solved for the target (the chooser's inner step).
void BM_SolveLoadLlama70bTp4(benchmark::State& state) {
  const ServingScenario s = scenario("llama3.1-70b", "hgx-h200", 8192, 1024, 50);
  ServingDeployment d;
  d.parallel = {4, 1, 1, false};
  d.gpus = 8;
  for (auto _ : state) {
    SweepPoint p;
    benchmark::DoNotOptimize(solve_load(s, d, p));
  }
}
BENCHMARK(BM_SolveLoadLlama70bTp4)->Unit(benchmark::kMicrosecond);

}  // namespace
