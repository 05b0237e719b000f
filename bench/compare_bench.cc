// Google Benchmark: the cost and compare layer. One TCO; a whole default comparison (two systems, two
// models: two training searches and up to four serving sweeps each); recommendations over the catalog.
#include <benchmark/benchmark.h>

#include "compare/compare.h"
#include "compare/recommend.h"
#include "model/model_registry.h"

namespace {

using namespace gpuplan;

const Catalog& cat() {
  static const Catalog c = Catalog::builtin();
  return c;
}

void BM_Tco(benchmark::State& state) {
  const cost::UnitCostInput in = cost::unit_cost_input(cat(), cat().system("gb300-nvl72"));
  const cost::CostProfile& p = cost::builtin_cost_profile();
  for (auto _ : state) benchmark::DoNotOptimize(cost::compute_tco(in, p));
}
BENCHMARK(BM_Tco);

void BM_CompareDefault(benchmark::State& state) {
  const auto& p = cost::builtin_cost_profile();
  const auto a = compare::make_side(cat(), "gb300-nvl72", p);
  const auto b = compare::make_side(cat(), "hgx-h200", p);
  const std::vector<ModelArch> models = {resolve_model("llama3.1-70b"), resolve_model("deepseek-r1")};
  for (auto _ : state) benchmark::DoNotOptimize(compare::compare_systems(a, b, models, {}));
}
BENCHMARK(BM_CompareDefault)->Unit(benchmark::kMillisecond);

void BM_RecommendServing70B(benchmark::State& state) {
  const ModelArch m = resolve_model("llama3.1-70b");
  compare::RecommendSpec spec;
  spec.users = 256;
  for (auto _ : state) benchmark::DoNotOptimize(compare::recommend(cat(), m, spec, cost::builtin_cost_profile()));
}
BENCHMARK(BM_RecommendServing70B)->Unit(benchmark::kMillisecond);

// Serving DeepSeek-R1 (aggregated and disaggregated deployments, wide EP, MTP) over the whole catalog.
void BM_RecommendServingDeepSeekR1(benchmark::State& state) {
  const ModelArch m = resolve_model("deepseek-r1");
  const compare::RecommendSpec spec;
  for (auto _ : state) benchmark::DoNotOptimize(compare::recommend(cat(), m, spec, cost::builtin_cost_profile()));
}
BENCHMARK(BM_RecommendServingDeepSeekR1)->Unit(benchmark::kMillisecond);

void BM_RecommendTraining405B(benchmark::State& state) {
  const ModelArch m = resolve_model("llama3.1-405b");
  compare::RecommendSpec spec;
  spec.task = compare::Task::train;
  spec.tokens = 15e12;
  for (auto _ : state) benchmark::DoNotOptimize(compare::recommend(cat(), m, spec, cost::builtin_cost_profile()));
}
BENCHMARK(BM_RecommendTraining405B)->Unit(benchmark::kMillisecond);

// `gpuplan recommend --model deepseek-r1 --task train`: 20 x parameters tokens, the model's published batch.
void BM_RecommendTrainingDeepSeekR1(benchmark::State& state) {
  const ModelArch m = resolve_model("deepseek-r1");
  compare::RecommendSpec spec;
  spec.task = compare::Task::train;
  for (auto _ : state) benchmark::DoNotOptimize(compare::recommend(cat(), m, spec, cost::builtin_cost_profile()));
}
BENCHMARK(BM_RecommendTrainingDeepSeekR1)->Unit(benchmark::kMillisecond);

}  // namespace
