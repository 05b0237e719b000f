#pragma once
// Maps rows of a published-serving-measurement CSV (schema of shared/data/benchmarks/inference.csv and
// mlperf-inference-v4.1-v5.0.csv) to inference evaluations: model, hardware, parallelism, workload,
// scenario semantics, and the metric to compare. Blank cells are filled as the row's framework would.
#include <string>
#include <vector>

#include "catalog/catalog.h"
#include "core/csv.h"
#include "inference/disaggregated.h"
#include "inference/inference.h"
#include "validate/validation.h"

namespace gpuplan {

// How the row's operating point is found.
enum class InferenceMode {
  fixed,         // the given concurrency (or the KV limit when blank: offline, max load)
  rate,          // a Poisson request rate (qps): concurrency from Little's law
  under_limits,  // MLPerf server: the highest load whose TTFT/TPOT stay within the limits
  disaggregated,  // prefill and decode pools (InferenceX Dynamo/MoRI rows): `disagg` and the workload
};

struct InferenceCase {
  size_t row = 0;
  std::string source_id, model_name, gpu_name, accelerator, system, generation, family, framework;
  std::string precision_name, metric, scenario;
  std::string engine;  // the framework cell as written: the serving engine's catalog entry is looked up by it
  // The engine release the framework states where the engine's entry lists it apart from the newest
  // (`infer --engine-release`); empty: the newest.
  std::string engine_release;
  double reported = 0;
  ModelArch model;
  Hardware hardware;
  InferenceParallel parallel;
  InferenceWorkload workload;
  InferenceMode mode = InferenceMode::fixed;
  double request_rate_qps = 0;  // mode rate; infinity: every request sent at once
  long long requests_in_run = 0;  // mode rate: requests the benchmark sends ("(500 requests)"); 0 = unbounded
  double ttft_limit_s = 0, tpot_limit_s = 0;  // mode under_limits: mean-latency targets
  double total_over_output = 1;  // reported throughput counts input + output tokens: (isl+osl)/osl
  DisaggregatedDeployment disagg;  // mode disaggregated
  std::string deployment = "aggregated";  // or "disaggregated" (grouping)
  std::string spec_decode = "off";        // "mtp" when the row drafts tokens (grouping)
  bool full_attention_window = false;     // the model's sliding window cleared (infer --full-attention-window)
  std::vector<std::string> assumptions;
};

// True when the CSV has the inference schema (metric, isl, osl, concurrency_or_batch, scenario).
bool is_inference_schema(const CsvTable& t);

// A row's identity across files (model, GPU, framework, lengths, load, parallelism, metric, value):
// calibrate --holdout leaves out of a fit the rows another file also holds.
std::string inference_row_key(const CsvTable& t, size_t row);

// Maps every row; rows that cannot be modelled go to `skipped` with the reason.
std::vector<InferenceCase> map_inference_cases(const CsvTable& t, const Catalog& catalog,
                                               std::vector<SkippedRow>& skipped);

// True when the CSV has the InferenceX schema (shared/data/benchmarks/inferencex-deepseek-r1.csv:
// one row per measured point, disaggregated, prefill_* / decode_* columns, output_tok_s_per_gpu,
// median latencies).
bool is_inferencex_schema(const CsvTable& t);

// Maps every InferenceX row to up to four cases (output tokens/s per GPU, median tokens/s per user,
// median TTFT, median TPOT) with the deployment the row states (src/validate/inferencex_cases.cc).
// `p99_ttft`: each disaggregated row also gives a "p99_ttft_ms" case (the p99_ttft_ms column, the
// run's opening wave included: InferenceResult::ttft_p99_s), the prefill pools' throughput signal
// calibrate --inference --prefill fits on; validation scores the four medians only.
std::vector<InferenceCase> map_inferencex_cases(const CsvTable& t, const Catalog& catalog,
                                                std::vector<SkippedRow>& skipped, bool p99_ttft = false);

// Evaluates the case at its operating point (with its hardware's current efficiencies).
InferenceResult evaluate_case(const InferenceCase& c);
// The row's metric from an evaluation, in the row's unit (ms, tokens/s); <= 0 when infeasible.
double inference_metric(const InferenceCase& c, const InferenceResult& r);
double predict_inference_case(const InferenceCase& c);

// Predicts and scores every case; groups by accelerator, framework, source, model family, metric.
// With `catalog`, each scored row carries the `gpuplan infer` command that replays it (row_command.h).
ValidationReport validate_inference(const std::vector<InferenceCase>& cases, std::vector<SkippedRow> skipped,
                                    const std::string& dataset, const Catalog* catalog = nullptr);

}  // namespace gpuplan
