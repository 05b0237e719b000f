// Speed of the inference model (issue 4 targets: one operating point in microseconds; a full
// sweep of a 70B model over 8 GPUs under 1 s).
#include <benchmark/benchmark.h>

#include "catalog/catalog.h"
#include "inference/closed_loop_replay.h"
#include "inference/disaggregated.h"
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

// An SGLang-style point: DeepSeek-R1 FP8 on 8 B200 with MTP, prompts prefilled in forwards of their
// own (one more step evaluation than the mixed step).
void BM_OperatingPointSeparatePrefillMtp(benchmark::State& state) {
  static const Catalog c = Catalog::builtin();
  const auto m = resolve_model("deepseek-r1");
  const auto hw = resolve_hardware(c, "hgx-b200");
  auto w = workload();
  w.concurrency = 64;
  w.mtp_draft_tokens = 2;
  w.prefill_separate = true;
  w.scheduler_recv_interval = 30;
  for (auto _ : state) benchmark::DoNotOptimize(evaluate_inference(m, hw, {8, 1, 1, false}, w));
}
BENCHMARK(BM_OperatingPointSeparatePrefillMtp)->Unit(benchmark::kMicrosecond);

// A TensorRT-LLM point with batch waiting (InferenceX's B200 FP8 1K/1K script: 40 iterations, 0.8):
// the Poisson hold and one more step evaluation for the prompts released together.
void BM_OperatingPointBatchWaiting(benchmark::State& state) {
  static const Catalog c = Catalog::builtin();
  const auto m = resolve_model("deepseek-r1");
  const auto hw = resolve_hardware(c, "hgx-b200");
  auto w = workload();
  w.concurrency = 128;
  w.batch_wait_iters = 40;
  w.batch_wait_tokens_ratio = 0.8;
  for (auto _ : state) benchmark::DoNotOptimize(evaluate_inference(m, hw, {8, 1, 1, false}, w));
}
BENCHMARK(BM_OperatingPointBatchWaiting)->Unit(benchmark::kMicrosecond);

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

namespace {

using namespace gpuplan;

// One operating point of a disaggregated deployment: DeepSeek-R1 FP4 on a GB200 NVL72 rack, 16 GPUs
// prefilling (4 workers of 4, attention-DP) and one 32-wide attention-DP/EP decode worker with MTP,
// 2048 clients at 8K/1K (issue 19: microseconds).
void disaggregated_point(benchmark::State& state, int decode_max_batch, long long prefill_max_batch = 0,
                         long long prefill_max_tokens = 0) {
  static const Catalog c = Catalog::builtin();
  const auto m = resolve_model("deepseek-r1");
  const auto hw = resolve_hardware(c, "gb200-nvl72");
  InferenceWorkload w;
  w.weight_precision = Precision::nvfp4;
  w.kv_bytes_per_element = 1.0;
  w.isl = 8192;
  w.osl = 1024;
  w.concurrency = 2048;
  w.mtp_draft_tokens = 3;
  DisaggregatedDeployment d{{4, 4, 1, true}, 16, {32, 32, 1, true}, 32, decode_max_batch};
  d.prefill_max_batch = prefill_max_batch;
  d.prefill_max_tokens = prefill_max_tokens;
  for (auto _ : state) benchmark::DoNotOptimize(evaluate_disaggregated(m, hw, d, w));
}
void BM_DisaggregatedPoint(benchmark::State& state) { disaggregated_point(state, 0); }
BENCHMARK(BM_DisaggregatedPoint)->Unit(benchmark::kMicrosecond);

// The same point with the decode pool capped at 32 sequences per rank (1,024 slots for 2,048
// clients: the rest queue before decode).
void BM_DisaggregatedPointCapped(benchmark::State& state) { disaggregated_point(state, 32); }
BENCHMARK(BM_DisaggregatedPointCapped)->Unit(benchmark::kMicrosecond);

// The same point with the prefill workers' recipe limits (trtllm/gb200-fp4/8k1k context workers: 2
// prompts, 16,640 tokens a rank and step) and a held-request cap of 2 per rank.
void BM_DisaggregatedPointPrefillCapped(benchmark::State& state) { disaggregated_point(state, 0, 2, 16640); }
BENCHMARK(BM_DisaggregatedPointPrefillCapped)->Unit(benchmark::kMicrosecond);

// The median TTFT replay of a closed-loop run beyond its decode slots (src/inference/closed_loop_replay.h):
// InferenceX-sized runs, 10 requests per client.
void BM_ClosedLoopReplay(benchmark::State& state) {
  gpuplan::ClosedLoopReplayInput in;
  in.clients = state.range(0);
  in.decode_workers = 3;
  in.slots_per_worker = std::max<long long>(1, in.clients * 8 / 27);
  in.prefill_per_prompt_s = 1.0 / 70;
  in.first_token_s = 0.15;
  in.decode_step_s = 0.011;
  in.decode_life_s = 10.5;
  in.length_low_fraction = 0.8;
  for (auto _ : state) benchmark::DoNotOptimize(gpuplan::replay_closed_loop(in));
}
BENCHMARK(BM_ClosedLoopReplay)->Arg(30)->Arg(1000)->Arg(12926)->Unit(benchmark::kMillisecond);

// The full DeepSeek-R1 sweep over one NVL72 rack: aggregated and disaggregated deployments, EP
// widths up to the rack, MTP on and off, concurrency (issue 19: under 200 ms).
void BM_SweepDeepSeekNvl72(benchmark::State& state) {
  static const Catalog c = Catalog::builtin();
  const auto m = resolve_model("deepseek-r1");
  const auto hw = resolve_hardware(c, "gb200-nvl72");
  InferenceWorkload w;
  w.weight_precision = Precision::nvfp4;
  w.kv_bytes_per_element = 1.0;
  w.isl = 8192;
  w.osl = 1024;
  w.num_gpus = 72;
  SweepOptions so;
  so.mtp = so.disaggregated = true;
  for (auto _ : state) benchmark::DoNotOptimize(sweep_inference(m, hw, w, so));
}
BENCHMARK(BM_SweepDeepSeekNvl72)->Unit(benchmark::kMillisecond);

}  // namespace
