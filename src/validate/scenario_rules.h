#pragma once
// The rules of the serving benchmarks a row names (data/serving/mlperf_scenarios.yaml): MLPerf
// Inference's LLM benchmarks with their datasets' mean and maximum input and output lengths and the
// p99 TTFT/TPOT limits of their Server and Interactive scenarios. A serving row that leaves its
// lengths blank takes the dataset's means; a row of a Server or Interactive scenario is run at the
// operating point that meets its limits; a row stating lengths beyond the dataset's maxima
// contradicts its benchmark. The file's harnesses hold what submitters' published harnesses set that a
// row's columns cannot state (scheduling, and a round's agreed deployments and engine limits). See
// docs/validation.md ("MLPerf rows: the scenario's rules").
#include <optional>
#include <string>
#include <vector>

namespace gpuplan {

struct LatencyLimits {
  double ttft_ms = 0, tpot_ms = 0;  // p99 limits; 0: none
  bool any() const { return ttft_ms > 0 || tpot_ms > 0; }
};

struct MlperfBenchmark {
  std::string name;                // loadgen name: "llama2-70b", "llama2-70b-interactive"
  std::vector<std::string> match;  // texts naming it in a source URL or the notes
  std::vector<std::string> models; // lowercase fragments of the model names that run it
  double isl_mean = 0, osl_mean = 0;
  std::string isl_basis;
  long long isl_max = 0, osl_max = 0;  // 0: not published
  LatencyLimits server, interactive;   // interactive.any() false: no Interactive scenario
  std::string source;
  // The limits of `scenario` ("server" or "interactive"; the Server limits for any other).
  const LatencyLimits& limits(const std::string& scenario) const {
    return scenario == "interactive" && interactive.any() ? interactive : server;
  }
};

// Every benchmark of data/serving/mlperf_scenarios.yaml, in file order (read once; a malformed file is
// an InputError naming the field).
const std::vector<MlperfBenchmark>& mlperf_benchmarks();

// What a submitter's published harness sets that a row's columns cannot state (the file's `harnesses`): its
// scheduling (vLLM's multi-step runs) and, where the round's published configurations agree across the
// submissions that use the harness, the deployment of a benchmark on an accelerator (TP, PP, attention-DP
// with EP, the engine's batch and token limits, how it admits sequences against the KV pool).
struct MlperfHarness {
  std::string name;
  std::string engine;                     // serving-engine entry name ("vllm", "tensorrt-llm")
  std::string vendor;                     // accelerator vendor ("AMD")
  std::vector<std::string> accelerators;  // catalog names it is for (empty: every one of the vendor's)
  bool has_versions = false;              // engine releases [first, end) stated
  int first_major = 0, first_minor = 0, end_major = 0, end_minor = 0;
  std::vector<std::string> rounds;        // MLPerf rounds ("v5.1"; empty: any)
  std::vector<std::string> benchmarks;    // loadgen benchmark names, each with its interactive variant (empty: any)
  std::vector<std::string> scenarios;     // "offline", "server", "interactive"
  int scheduler_steps = 1;                // decode steps between scheduling passes (vLLM's num_scheduler_steps)
  int tp = 0, pp = 0, ep = 0;             // 0: not set
  bool attention_dp = false;
  long long max_num_tokens = 0, max_batch_size = 0;  // 0: not set
  std::string kv_admission;               // "current_length", "reserve_full"; empty: the engine's
  bool fp8_context_attention = false;     // the prompts' attention in FP8 (context_attention: fp8)
  std::string runs;                       // the engine and release its configuration runs where the row's
                                          // framework cell names neither ("TensorRT-LLM PyTorch 1.0"); empty:
                                          // the framework cell's
  std::string source;
  bool sets_deployment() const { return tp > 0; }
};

// Every harness of data/serving/mlperf_scenarios.yaml, in file order.
const std::vector<MlperfHarness>& mlperf_harnesses();

struct MlperfHarnessQuery {
  std::string engine;       // the serving-engine entry the framework cell resolves to
  std::string framework;    // the framework cell ("vLLM 0.9.0.2.dev108+...", "TensorRT 10.11, CUDA 12.9")
  std::string vendor;       // the accelerator's vendor
  std::string accelerator;  // its catalog name
  std::string scenario;     // the row's scenario
  std::string benchmark;    // the loadgen benchmark the row runs ("llama2-70b-interactive")
  std::string round;        // the MLPerf round ("v5.1"; empty: not stated)
};

// The harness a row of an MLPerf benchmark ran: the first whose engine, vendor and scenario are the row's,
// whose accelerators (where it lists them) hold the row's, whose rounds (where it lists them) hold the row's
// round, whose benchmarks (where it lists them) hold the row's or the one whose interactive variant it runs,
// and whose engine releases (where it states them) hold the version the framework cell states after the
// engine's name ("vLLM 0.9.0.2.dev108+...", "vLLM v0.6.5"; none stated: not that harness). nullptr: none.
const MlperfHarness* find_mlperf_harness(const MlperfHarnessQuery& q);

// The MLPerf round a row's source names: its results repository ("inference_results_v5.1/") or its source id
// ("MLPerf-v5.1"), as "v5.1"; empty when neither names one.
std::string mlperf_round(const std::string& url, const std::string& source_id);

// The benchmark a serving row runs: named in its notes ("benchmark llama2-70b-interactive-99"), in an
// MLPerf source URL (mlcommons, mlperf or inference_results in it), or, for a row of a source that runs
// MLPerf's benchmarks (`mlperf_source`: data/serving/source_conventions.yaml mlperf_benchmarks), by its
// URL or its model. A Server or Interactive row of a benchmark with an interactive variant names the
// variant when the scenario or its texts say interactive. nullptr: none.
const MlperfBenchmark* find_mlperf_benchmark(bool mlperf_source, const std::string& url,
                                             const std::string& notes, const std::string& model_name,
                                             const std::string& scenario);

// MLPerf's Open division lets a submission change the model (MLCommons inference_policies,
// inference_rules.adoc, "Open Division": retraining, pruning, sparsity, other models); its results sit
// under open/ in the results repositories. A row of an Open result whose system's name in its results
// path names such a change (DepthPruned, Sparse, distilled) ran another network than the one its model
// column names, one the row does not describe: the reason it is not scored, or nullopt.
std::optional<std::string> mlperf_open_model_change(const MlperfBenchmark* benchmark, const std::string& url);

}  // namespace gpuplan
