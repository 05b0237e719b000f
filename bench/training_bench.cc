// Speed of the training-step model and of the plan search (issue 3 targets: one evaluation under
// 5 us; the full Llama 3.1 405B search on 16,384 H100 under 1 s on one core).
#include <benchmark/benchmark.h>

#include "catalog/catalog.h"
#include "model/model_registry.h"
#include "search/search.h"
#include "training/training_step.h"

namespace {

using namespace gpuplan;

const Catalog& catalog() {
  static const Catalog c = Catalog::builtin();
  return c;
}

TrainingWorkload workload(int gpus, long long batch, int seq) {
  TrainingWorkload w;
  w.num_gpus = gpus;
  w.global_batch = batch;
  w.seq_len = seq;
  w.precision = Precision::bf16;
  return w;
}

// Llama 3.1 70B on 64 H100 (8 HGX nodes), tp=8, pp=4, vp=5, selective recompute: the timing model
// with the memory estimator (the default options).
void BM_EvaluatePlan(benchmark::State& state) {
  const ModelArch m = resolve_model("llama3.1-70b");
  const Hardware hw = resolve_hardware(catalog(), "hgx-h100");
  const TrainingWorkload w = workload(64, 128, 4096);
  TrainingPlan p = parse_training_plan("tp=8,pp=4,vp=5,mbs=1,recompute=selective");
  p.dp = 0;
  TrainingOptions o;
  o.with_memory = state.range(0) != 0;
  for (auto _ : state) {
    TrainingResult r = evaluate_training(m, hw, p, w, o);
    benchmark::DoNotOptimize(r.step_time_s);
  }
}
BENCHMARK(BM_EvaluatePlan)->ArgName("with_memory")->Arg(1)->Arg(0);

// The memory estimator alone (the search's filter runs it before timing).
void BM_TrainingMemory(benchmark::State& state) {
  const ModelArch m = resolve_model("llama3.1-70b");
  const TrainingWorkload w = workload(64, 128, 4096);
  TrainingPlan p = parse_training_plan("tp=8,pp=4,vp=5,mbs=1,recompute=selective");
  p.dp = 2;
  MemoryOptions mo;
  mo.capacity_bytes = 80e9;
  for (auto _ : state) {
    TrainingMemory r = training_memory(m, p, w, mo);
    benchmark::DoNotOptimize(r.total_bytes);
  }
}
BENCHMARK(BM_TrainingMemory);

// The whole search: Llama 3.1 405B on 16,384 H100, global batch 2048, seq 8192, bf16.
void BM_SearchLlama405B_16384H100(benchmark::State& state) {
  const ModelArch m = resolve_model("llama3.1-405b");
  const Hardware hw = resolve_hardware(catalog(), "hgx-h100");
  const TrainingWorkload w = workload(16384, 2048, 8192);
  SearchStats stats;
  for (auto _ : state) {
    SearchResult r = search_plans(m, hw, w);
    stats = r.stats;
    benchmark::DoNotOptimize(r.top.data());
  }
  state.counters["enumerated"] = static_cast<double>(stats.enumerated);
  state.counters["evaluated"] = static_cast<double>(stats.evaluated);
  state.counters["dropped_div"] = static_cast<double>(stats.dropped_divisibility);
  state.counters["dropped_mem"] = static_cast<double>(stats.dropped_memory);
}
BENCHMARK(BM_SearchLlama405B_16384H100)->Unit(benchmark::kMillisecond);

}  // namespace
