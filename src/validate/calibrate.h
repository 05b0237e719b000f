#pragma once
// Fits the efficiency parameters of each accelerator generation on published measurements: the only
// tuned numbers of the performance models (src/catalog/efficiency.h). One parameter set per
// generation, never per model, row or source.
#include <map>
#include <string>
#include <vector>

#include "catalog/catalog.h"
#include "catalog/efficiency.h"
#include "validate/inference_cases.h"
#include "validate/training_cases.h"

namespace gpuplan {

struct CalibrationOptions {
  int rounds = 4;              // coordinate-descent sweeps over all parameters
  int grid = 13;               // trial points per parameter per sweep
  double prior_weight = 0.02;  // pull towards the starting values (squared log-ratio)
  std::vector<std::string> params;   // calibrate_inference: the parameters to fit (empty: all)
  std::vector<std::string> metrics;  // calibrate_inference: the rows' metrics to fit on (empty: all)
};

struct GenerationFit {
  std::string generation;
  size_t rows = 0;
  size_t wave_rows = 0;  // of them, calibrate_prefill's p99 TTFT (opening wave) rows
  size_t triton_rows = 0;  // of them, rows whose FP8 GEMMs run SGLang's Triton kernel (fp8_block_gemm_triton)
  Efficiency before, after;
  double loss_before = 0, loss_after = 0;        // weighted mean |log(pred/reported)|
  double median_ape_before = 0, median_ape_after = 0;
};

// Fits each generation present in `cases` (whose hardware.efficiency holds the starting values).
// Rows are weighted so that every (source, model) series counts once, whatever its row count.
// Returns the fits and updates the cases' hardware efficiencies in place.
std::vector<GenerationFit> calibrate(std::vector<TrainingCase>& cases, const CalibrationOptions& opts = {});

// Fits the serving parameters (Efficiency::infer_*) of each generation present in `cases` on their
// measured serving metrics (TTFT, TPOT, throughput), leaving the training parameters as they are.
// Every (source, model, metric) series weighs the same; the per-row error |log(pred/reported)| is
// capped at 2 so that a few rows the model cannot represent do not steer the fit. Cases of other
// metrics than opts.metrics keep their efficiencies untouched but are not scored.
std::vector<GenerationFit> calibrate_inference(std::vector<InferenceCase>& cases, const CalibrationOptions& opts = {});

// The absorbed-MLA decode attention rate of each generation (Efficiency::infer_mla_decode_eff) fitted
// on the TPOT cases of MLA models in `cases`, everything else as the catalog has it: a 1-D search
// (opts.rounds shrinking log-spaced grids of opts.grid points over [0.05, 0.95]) minimising the
// weighted mean of min(2, |log(pred/reported)|), each (source, model, engine) series weighing the
// same, plus opts.prior_weight x log(rate / attention_eff)^2 (a pull to the training fit's flash-
// attention rate, where rows say little). Cases of other metrics and models are held out (not
// scored, efficiencies untouched). Returns the fits and updates the fitted cases in place.
std::vector<GenerationFit> calibrate_mla_decode(std::vector<InferenceCase>& cases, const CalibrationOptions& opts = {});

// The per-engine serving parameters (data/catalog/serving_engines.yaml) fitted on InferenceX-schema
// cases (map_inferencex_cases), with everything else as the catalog has it:
// - each engine's request_overhead_s: the median of measured - predicted TTFT (predicted without a
//   front end) over its TTFT cases at concurrency <= max_fit_concurrency, where neither a queue nor a
//   wave contributes; the cases above are held out (fit_rows / held_out_rows), and so are the cases
//   no steady state explains (ttft_beyond_steady_state: not_steady_rows, counted, not fitted);
// - the default entry's mtp_accept: the value on a grid over [0.30, 0.90] (step 0.005) minimising the
//   median |log(pred/reported)| of the MTP cases' TPOT and tokens/s per user (with the fitted front
//   ends); the non-MTP cases are held out.
// - the SGLang worker's mtp_host_step_s and mtp_host_per_seq_step_s (the `sglang` entry, also serving
//   Dynamo + SGLang rows): a grid of 0-10 ms (0.25 ms) by 0-200 us (5 us) minimising the mean
//   min(2, |log(pred/reported)|) of the TPOT and tokens/s per user of the MTP cases whose speculative
//   worker runs in series with the GPU (InferenceWorkload::mtp_host_in_series); every other case is held
//   out. Returned as a second fit of that entry (mtp_host_fit), after its front end.
// Engines without cases keep their values. The cases' workloads are updated in place.
struct EngineFit {
  ServingEngine before, after;
  size_t fit_rows = 0, held_out_rows = 0;
  size_t not_steady_rows = 0;  // low-concurrency TTFT cases left out by ttft_beyond_steady_state
  bool mtp_host_fit = false;   // the fit of the SGLang worker's MTP host work (rows: those MTP figures)
  double median_ape_before = 0, median_ape_after = 0;  // on the fit rows
  // calibrate_engine_moe_gemm: the held-out rows' median errors at the catalog's share and at the fit's.
  double held_out_ape_before = 0, held_out_ape_after = 0;
  // ... and of the held-out rows of disaggregated deployments (their prefill pools' load), 0 without any.
  size_t held_out_pool_rows = 0;
  double held_out_pool_ape_before = 0, held_out_pool_ape_after = 0;
};

// A request's front end (HTTP server, tokenizer, router, prefill/decode handshake) takes tens to a few
// hundred milliseconds (the fitted engines: 0.05-0.2 s); this bound is several times the largest.
inline constexpr double kFrontEndBoundS = 1.0;

// Whether a TTFT measured with `clients` closed-loop clients (seconds) is beyond any steady state of
// the deployment: longer than a request waits if it queues behind every other client's prompt
// (clients x `predicted_bare_s`, the TTFT the model predicts without a front end) plus
// kFrontEndBoundS. Each client has one request in flight, so nothing else can be ahead of it: such a
// point holds warm-up or a stall (issue 19: Dynamo + TensorRT-LLM points at 3-8 clients with 4-14 s
// TTFT where their neighbours measure 0.1-1 s) and is counted, not fitted.
bool ttft_beyond_steady_state(double reported_s, double predicted_bare_s, long long clients);

std::vector<EngineFit> calibrate_engines(std::vector<InferenceCase>& cases, const Catalog& catalog,
                                         long long max_fit_concurrency = 8);

// The prefill-side serving parameters of each generation (Efficiency::infer_mla_prefill_eff: MLA
// prompt attention's rate; infer_gemm_max: the serving GEMM rate) fitted on TTFT at low load jointly
// with each engine's front end (request_overhead_s), everything else as the catalog has it. Fit rows:
// the TTFT cases at 1 to max_fit_concurrency clients (no queue, at most a wave of a few prompts) that
// a steady state explains (ttft_beyond_steady_state: counted in not_steady_rows, not fitted); the
// other TTFT cases are held out (held_out_rows). Prompts of two lengths make a constant per request
// (the front end) and a rate per prompt token separable. Alternating: each engine's front end is the
// median of measured - bare predicted TTFT over its fit rows (calibrate_engines' rule); each fitted
// generation's parameters then minimise, by coordinate descent (opts.rounds, opts.grid, bounded
// ranges, log-prior pull with opts.prior_weight to the training fit's attention_eff / gemm_max, their
// starting values unless the catalog states a prefill fit), the weighted mean of
// min(2, |log(pred/reported)|) over its fit rows, each (model, engine, ISL) series weighing the same;
// `iterations` times, the front ends last. opts.params names the parameters (empty: the MLA rate
// alone). Cases of generations without fit rows keep their values. The cases' efficiencies and front
// ends are updated in place (held-out cases included).
struct PrefillFit {
  std::vector<GenerationFit> generations;  // before/after: the generation's efficiency entry
  std::vector<EngineFit> engines;          // front ends fitted jointly (before: the catalog's)
  size_t fit_rows = 0, held_out_rows = 0, not_steady_rows = 0;
  size_t wave_rows = 0;  // p99 TTFT cases whose opening wave measures the prefill pool (wave_measures_pool)
};
// Whether calibrate_prefill fits the parameter `name` (infer_gemm_max, infer_mla_prefill_eff) under
// `opts.params`: the named ones, or by default the MLA prefill rate alone (a serving GEMM rate fitted
// on these rows is rejected by the held-out files: docs/inference-model.md, "Prefill rate per generation").
bool prefill_param_fitted(const CalibrationOptions& opts, const std::string& name);
// `fit_generations` (empty: all) are the generations whose parameters are fitted; the others' rows
// still count towards the front ends, at their catalog rates.
PrefillFit calibrate_prefill(std::vector<InferenceCase>& cases, const Catalog& catalog, const CalibrationOptions& opts = {},
                             long long max_fit_concurrency = 8, int iterations = 4,
                             const std::vector<std::string>& fit_generations = {});

// Each serving engine's host work per sequence per step (host_per_seq_step_s) fitted on inference-
// schema cases (map_inference_cases), everything else as the catalog has it: an engine's fit rows
// are its throughput cases at maximum load (blank concurrency: where the batch, and so the host
// work, is largest) from the sources in `fit_sources` (empty: every source); its other maximum-load
// throughput cases are held out (held_out_rows; median_ape_* are on the fit rows). The value is the
// one on a 0-100 us grid (1 us) minimising the mean min(2, |log(pred/reported)|). Engines without fit
// rows are not returned. The cases' workloads are updated in place.
std::vector<EngineFit> calibrate_engine_host(std::vector<InferenceCase>& cases, const Catalog& catalog,
                                             const std::vector<std::string>& fit_sources = {});

// An engine release's fit (calibrate_engine_releases): its MoE kernel share of the newest release's rate.
struct EngineReleaseFit {
  std::string engine;  // the serving engine entry
  EngineRelease before, after;
  size_t fit_rows = 0;
  double median_ape_before = 0, median_ape_after = 0;  // on the fit rows, at the newest release's rate and the fit's
  // Leave one generation out: each generation's rows at the newest release's rate (before) and at the share
  // fitted on the release's other generations (after), pooled; 0 rows where the release ran on one generation.
  size_t held_out_rows = 0;
  double held_out_ape_before = 0, held_out_ape_after = 0;
};

// Each older release of the engines whose entry states a newest_release: the MoE kernel share
// (EngineRelease::moe_kernel_share) on the grid 1.00, 0.99, ..., 0.20 minimising the mean min(2,
// |log(pred/reported)|) of the release's MoE throughput cases at maximum load (blank concurrency), the
// release read from each case's framework (framework_release), everything else as `cases` have it (call
// after calibrate_engine_host, whose host work the newest release's rows set). A release with fewer than
// `min_rows` such cases is not fitted. The cases' workloads take the fitted share.
std::vector<EngineReleaseFit> calibrate_engine_releases(std::vector<InferenceCase>& cases, const Catalog& catalog,
                                                        size_t min_rows = 9);

// Each serving engine's grouped MoE GEMM efficiency share (moe_gemm_eff) fitted on inference-schema
// cases (map_inference_cases), everything else as the catalog has it: an engine's fit rows are its
// closed-loop TTFT and TPOT cases of MoE models at 1 to `max_fit_concurrency` clients (prefill
// dominates TTFT there: no queue, one or two chunks; TPOT carries the prompt chunks mixed into decode
// steps, so a slower GEMM must show in both); its MoE cases above are held out (held_out_rows;
// median_ape_* are on the fit rows). The value is the one on a 0.10-1.00 grid (0.01) minimising the
// median min(2, |log(pred/reported)|). Engines without fit rows are not returned. The cases'
// workloads are updated in place. held_out_ape_before/after: the held-out rows' median error at the
// reference kernels' share (1) and at the fit's; held_out_pool_*: the same on the held-out rows of
// disaggregated deployments (moe_gemm_share_holds).
std::vector<EngineFit> calibrate_engine_moe_gemm(std::vector<InferenceCase>& cases, const Catalog& catalog,
                                                 long long max_fit_concurrency = 8);

// The front end (request_overhead_s) of each engine named in `engines` (catalog names) fitted on an
// inference-schema file's closed-loop TTFT cases of dense models at 1 to `max_fit_concurrency` clients,
// as calibrate_engines does on InferenceX points (the median of measured - predicted TTFT without a
// front end; points beyond any steady state counted, not fitted): the engines without InferenceX
// points. Dense rows carry no MoE GEMM share, so the front end does not trade against it; the engine's
// other cases are held out. The engine's cases take the fitted figure in place. Throws InputError
// naming `engines` for a name the catalog does not hold or an engine with no such rows.
std::vector<EngineFit> calibrate_engine_front_end_dense(std::vector<InferenceCase>& cases, const Catalog& catalog,
                                                        const std::vector<std::string>& engines,
                                                        long long max_fit_concurrency = 8);

// Whether a MoE GEMM share fitted by calibrate_engine_moe_gemm is kept (written by `calibrate --engines
// --write`): the engine's kernels are not the reference (moe_gemm_reference_engine), the share is below 1,
// the rows above the fit's clients (held out) are predicted better at it than at the reference's (1),
// and the held-out rows of disaggregated deployments no worse: a loaded prefill pool's TTFT is its
// prompt throughput, so a share that over-loads the pools is a latency the kernels do not have.
bool moe_gemm_share_holds(const EngineFit& fit);

// Whether a disaggregated run's p99 TTFT case measures its prefill pool (calibrate_prefill's wave
// rows): the opening wave's tail waits at least three of its own prefill-and-hand-off times for the
// pool, and no request waits for a decode slot.
bool wave_measures_pool(const InferenceCase& c);

// Whether an engine's grouped MoE kernels are the reference the generation's efficiencies were fitted
// with (moe_gemm_eff 1 by definition): TensorRT-LLM's (trtllm-gen / CUTLASS), aggregated or under Dynamo.
bool moe_gemm_reference_engine(const std::string& name);

// The catalog entry whose grouped MoE kernels an engine runs: a Dynamo deployment's (name
// "dynamo+X") are its workers' engine X where the catalog has it (Dynamo routes requests and hands
// off the KV cache; the forwards are X's); any other engine its own. Null for null.
const ServingEngine* moe_kernels_owner(const Catalog& catalog, const ServingEngine* e);

// Each non-reference serving engine's grouped MoE GEMM efficiency share (moe_gemm_eff) fitted on
// InferenceX-schema cases (map_inferencex_cases with p99 TTFT) where the disaggregated prefill pool's
// throughput is measured: the engine's MoE p99 TTFT cases whose opening wave measures the pool
// (wave_measures_pool, selected at the catalog's values), everything else as the catalog has it. The
// value is the one on a 0.10-1.00 grid (0.01) minimising the mean min(2, |log(pred/reported)|), each
// (model, GPU, precision, ISL) series weighing the same; every other case of the engine is held out
// (held_out_rows; median_ape_* are on the fit rows). TensorRT-LLM's engines are the reference (1, not
// fitted); engines without wave rows are not returned. The engine's cases carry the fitted value.
std::vector<EngineFit> calibrate_engine_moe_gemm_waves(std::vector<InferenceCase>& cases, const Catalog& catalog);

}  // namespace gpuplan
