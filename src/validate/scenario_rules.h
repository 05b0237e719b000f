#pragma once
// The rules of the serving benchmarks a row names (data/serving/mlperf_scenarios.yaml): MLPerf
// Inference's LLM benchmarks with their datasets' mean and maximum input and output lengths and the
// p99 TTFT/TPOT limits of their Server and Interactive scenarios. A serving row that leaves its
// lengths blank takes the dataset's means; a row of a Server or Interactive scenario is run at the
// operating point that meets its limits; a row stating lengths beyond the dataset's maxima
// contradicts its benchmark. See docs/validation.md ("MLPerf rows: the scenario's rules").
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

// A setting of a submitter's published harness that a row's columns cannot state (the file's `harnesses`).
struct MlperfHarness {
  std::string name;
  std::string engine;    // serving-engine entry name ("vllm")
  std::string vendor;    // accelerator vendor ("AMD")
  std::vector<std::string> accelerators;  // catalog names it is for (empty: every one of the vendor's)
  int first_major = 0, first_minor = 0, end_major = 0, end_minor = 0;  // engine releases [first, end)
  std::string scenario;  // "server", "interactive"
  int scheduler_steps = 1;  // decode steps between scheduling passes (vLLM's num_scheduler_steps)
  std::string source;
};

// Every harness of data/serving/mlperf_scenarios.yaml, in file order.
const std::vector<MlperfHarness>& mlperf_harnesses();

// The harness a row of an MLPerf benchmark ran: the first whose engine is `engine` (the serving-engine entry
// the framework cell resolves to), whose vendor is the accelerator's (and whose accelerators, where it lists
// them, hold the accelerator's catalog name), whose scenario is the row's, and whose releases hold the version
// the framework cell states after the engine's name ("vLLM 0.9.0.2.dev108+...", "vLLM v0.6.5"). nullptr:
// none, or no version stated.
const MlperfHarness* find_mlperf_harness(const std::string& engine, const std::string& framework,
                                         const std::string& vendor, const std::string& accelerator,
                                         const std::string& scenario);

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
