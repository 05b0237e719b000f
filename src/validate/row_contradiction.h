#pragma once
// A serving row that contradicts itself: figures of one run that cannot all be true (its per-user rate
// and its per-GPU throughput, from its value, its notes and the rows of the same run), or lengths its
// benchmark does not allow. Such a row is flagged with the reason and not scored: no model can match
// both of its figures. See docs/validation.md ("Rows that contradict themselves").
#include <map>
#include <optional>
#include <string>

#include "core/csv.h"

#include "validate/scenario_rules.h"

namespace gpuplan {

// The throughput figures stated for one run (0: not stated), with where each came from.
struct RunFigures {
  double per_gpu = 0;   // output tokens/s per GPU
  double per_user = 0;  // output tokens/s per user (1000 / TPOT ms when only a TPOT is stated)
  double ttft_ms = 0;   // time to first token
  std::string per_gpu_from, per_user_from;
};

// Adds a row's value as its metric states it (tokens_per_sec_per_gpu, tokens_per_sec_total over
// `gpus`, tokens_per_sec_per_user, tpot_ms, ttft_ms); other metrics add nothing. A figure already stated is kept.
void add_metric_figure(RunFigures& f, const std::string& metric, double value, double gpus, const std::string& from);

// Adds the figures the notes state: "<x> tok/s/GPU", "<x> tokens/s per GPU", "<x> output tok/s/gpu",
// "<x> tok/s/user", "<x> tokens/s per user", "TPOT <x> ms" / "TPOT=<x> ms", "TTFT <x> ms" (case-insensitive). A
// figure already stated is kept.
void add_notes_figures(RunFigures& f, const std::string& notes);

// The run a row of the inference schema reports one figure of: the rows of one source with the same
// model, system, layout, precisions, framework, lengths, load, scenario and notes' disaggregated
// deployment.
std::string run_key(const CsvTable& t, size_t row);

// Each run's figures from its rows' values (keyed by run_key); a figure two rows of the run state
// differently (by more than 1%) is left out: those rows are not one run.
std::map<std::string, RunFigures> run_figures(const CsvTable& t);

// Plausible bounds of (per-user rate x concurrency / GPUs) over the per-GPU figure. Every user
// receives at most its per-user rate, so the deployment's output cannot exceed concurrency x that:
// below kMinImpliedOverStated (half, for the difference between a median and a mean) the per-GPU
// figure is impossible. Above 1 the users wait for their first token: at kMaxImpliedOverStated each
// request would wait 29 times its decode time for it (the InferenceX runs, queues of 8K-token prompts
// included, reach 14); where the run's TTFT is known, at least twice the wait it explains,
// 1 + TTFT / (OSL / per-user rate).
constexpr double kMinImpliedOverStated = 0.5;
constexpr double kMaxImpliedOverStated = 30.0;

// The contradiction between the figures at `concurrency` clients (the offered load, not a batch
// limit) on `gpus` GPUs with `osl` output tokens a request (0: unknown), or nullopt (also when a figure
// is missing).
std::optional<std::string> figures_contradiction(const RunFigures& f, double concurrency, double gpus,
                                                 double osl = 0);

// Stated lengths beyond the benchmark's dataset maxima (isl_max, osl_max), or nullopt.
std::optional<std::string> lengths_contradiction(long long isl, long long osl, const MlperfBenchmark& b);

}  // namespace gpuplan
