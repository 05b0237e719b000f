// Speed of the inference model (issue 4 targets: one operating point in microseconds; a full
// sweep of a 70B model over 8 GPUs under 1 s).
#include <benchmark/benchmark.h>

#include "catalog/catalog.h"
#include "inference/inference.h"
#include "inference/sweep.h"
#include "model/model_registry.h"
#include "physics/hardware.h"

namespace {

using namespace gpuplan;

InferenceWorkload workload() {
  InferenceWorkload w;
  w.weight_precision = Precision::fp8;
  w.kv_bytes_per_element = 1.0;
  w.isl = 1024;
  w.osl = 1024;
  w.num_gpus = 8;
  return w;
}

// Llama 3.1 70B FP8 on 8 H200 (one HGX node), tp=8, 256 sequences in flight.
void BM_OperatingPoint(benchmark::State& state) {
  static const Catalog c = Catalog::builtin();
  const auto m = resolve_model("llama3.1-70b");
  const auto hw = resolve_hardware(c, "hgx-h200");
  auto w = workload();
  w.concurrency = 256;
  for (auto _ : state) benchmark::DoNotOptimize(evaluate_inference(m, hw, {8, 1, 1, false}, w));
}
BENCHMARK(BM_OperatingPoint)->Unit(benchmark::kMicrosecond);

// The full sweep (TP, concurrency) of the same deployment and its Pareto frontier.
void BM_Sweep70bOn8(benchmark::State& state) {
  static const Catalog c = Catalog::builtin();
  const auto m = resolve_model("llama3.1-70b");
  const auto hw = resolve_hardware(c, "hgx-h200");
  for (auto _ : state) benchmark::DoNotOptimize(sweep_inference(m, hw, workload(), SweepOptions{0, 0, 8}));
}
BENCHMARK(BM_Sweep70bOn8)->Unit(benchmark::kMillisecond);

// A MoE sweep with EP and attention-DP: DeepSeek-R1 FP4 on 8 B200.
void BM_SweepDeepSeekOn8(benchmark::State& state) {
  static const Catalog c = Catalog::builtin();
  const auto m = resolve_model("deepseek-r1");
  const auto hw = resolve_hardware(c, "hgx-b200");
  auto w = workload();
  w.weight_precision = Precision::nvfp4;
  for (auto _ : state) benchmark::DoNotOptimize(sweep_inference(m, hw, w));
}
BENCHMARK(BM_SweepDeepSeekOn8)->Unit(benchmark::kMillisecond);

}  // namespace
