// gpuplan calibrate --engines: the serving engines' front ends, MTP and host work, MoE GEMM share.
#include <fmt/format.h>

#include <algorithm>

#include <chrono>
#include <cmath>
#include <ctime>
#include <fstream>
#include <iostream>
#include <set>

#include "cli/commands.h"
#include "api/validate.h"
#include "cli/common.h"
#include "core/csv.h"
#include "core/error.h"
#include "catalog/serving_engine.h"
#include "validate/band_fit.h"
#include "validate/calibrate.h"
#include "validate/held_out.h"
#include "validate/inference_cases.h"
#include "validate/training_cases.h"
#include "validate/validation.h"
#include "cli/calibrate_parts.h"

namespace gpuplan::cli::calibrate_detail {

// calibrate --engines: each serving engine's front-end latency and the MTP acceptance
// (data/catalog/serving_engines.yaml) on an InferenceX-schema file (calibrate_engines: low-concurrency
// TTFT for the front ends, the MTP points for the acceptance; the other rows held out).
int calibrate_engines_cli(const CommonOptions& common, const std::string& dataset, const std::string& write_path,
                          const std::vector<std::string>& command_args, const std::vector<std::string>& fit_sources,
                          bool moe_gemm_waves, const std::vector<std::string>& front_end_engines) {
  const Catalog catalog = load_catalog(common);
  const CsvTable table = read_csv_file(dataset, "--dataset");
  const std::string basename = dataset.substr(dataset.find_last_of('/') + 1);
  const bool host_fit = !is_inferencex_schema(table) && is_inference_schema(table);
  if (!host_fit && !is_inferencex_schema(table))
    throw InputError("--dataset", "expected the InferenceX schema (front ends, MTP) or the inference.csv schema "
                                  "(host work per sequence) with --engines");
  if (!host_fit && !fit_sources.empty())
    throw InputError("--fit-sources", "applies to an inference.csv-schema --dataset (the host-work fit)");
  std::vector<SkippedRow> skipped;
  // InferenceX schema: with the disaggregated rows' p99 TTFT cases (the opening waves the MoE GEMM
  // shares are fitted on).
  auto cases = host_fit ? map_inference_cases(table, catalog, skipped)
                        : map_inferencex_cases(table, catalog, skipped, /*p99_ttft=*/true);
  if (cases.empty()) throw nothing_scored(dataset, table.rows.size(), skipped.empty() ? "" : skipped.front().reason);
  if (moe_gemm_waves && host_fit) throw InputError("--moe-gemm-waves", "applies to an InferenceX-schema --dataset");
  if (!front_end_engines.empty() && !host_fit)
    throw InputError("--front-end-engines", "applies to an inference.csv-schema --dataset (the InferenceX file "
                                            "fits every engine's front end)");
  // InferenceX schema: each non-reference engine's grouped MoE GEMM share on its prefill pools' opening
  // waves (at the catalog's front ends). Reported, not written, unless --moe-gemm-waves: the held-out
  // files reject it (docs/inference-model.md, "Each engine's MoE GEMM share"); with it, the front ends
  // and MTP figures are fitted at those shares (the low-load TTFTs hold MoE prefill), to alternate
  // with the generation fit. Inference schema: the shares on the MoE TTFT rows at few clients
  // (reported, not written).
  std::vector<EngineFit> wave_fits, moe_fits;
  if (!host_fit) {
    if (moe_gemm_waves) {
      wave_fits = calibrate_engine_moe_gemm_waves(cases, catalog);
    } else {
      std::vector<InferenceCase> trial = cases;  // the front ends below stay at the catalog's shares
      wave_fits = calibrate_engine_moe_gemm_waves(trial, catalog);
    }
  }
  const std::vector<EngineFit> fits =
      host_fit ? calibrate_engine_host(cases, catalog, fit_sources) : calibrate_engines(cases, catalog);
  // The older releases' MoE kernel shares, at the host work just fitted on the newest release's rows.
  const std::vector<EngineReleaseFit> release_fits =
      host_fit ? calibrate_engine_releases(cases, catalog) : std::vector<EngineReleaseFit>{};
  // The named engines' front ends on their dense rows first: the MoE shares are fitted at them.
  const std::vector<EngineFit> fe_fits =
      host_fit && !front_end_engines.empty() ? calibrate_engine_front_end_dense(cases, catalog, front_end_engines)
                                             : std::vector<EngineFit>{};
  Catalog at_front_ends = catalog;
  for (const auto& f : fe_fits)  // an overlay restates the figures it keeps (the share, from the catalog)
    at_front_ends.merge_yaml(fmt::format("serving_engines:\n  - name: {}\n    request_overhead_s: {}\n    "
                                         "moe_gemm_eff: {}\n",
                                         f.after.name, f.after.request_overhead_s, f.before.moe_gemm_eff),
                             "calibrate --front-end-engines");
  if (host_fit) moe_fits = calibrate_engine_moe_gemm(cases, at_front_ends);
  std::vector<ServingEngine> out = catalog.serving_engines();
  nlohmann::json j = nlohmann::json::array();
  if (!common.json)
    std::cout << fmt::format("{:<22} {:>5} {:>9} {:>18} {:>12} {:>16} {:>16}\n", "engine", "fit", "held out",
                             "front end (s)", "mtp accept", "host/seq (us)", "median error");
  for (const auto& f : fits) {
    for (auto& e : out)
      if (e.name == f.after.name) e = f.after;
    resolve_serving_front_ends(out, "calibrate --engines");  // engines sharing a refitted front end follow it
    j.push_back({{"engine", f.after.name}, {"fit_rows", f.fit_rows}, {"held_out_rows", f.held_out_rows},
                 {"not_steady_rows", f.not_steady_rows},
                 {"request_overhead_s_before", f.before.request_overhead_s},
                 {"request_overhead_s", f.after.request_overhead_s},
                 {"mtp_accept", f.after.mtp_accept ? nlohmann::json(*f.after.mtp_accept) : nlohmann::json()},
                 {"host_per_seq_step_s_before", f.before.host_per_seq_step_s},
                 {"host_per_seq_step_s", f.after.host_per_seq_step_s},
                 {"mtp_host_step_s", f.after.mtp_host_step_s},
                 {"mtp_host_per_seq_step_s", f.after.mtp_host_per_seq_step_s},
                 {"mtp_eager_draft_extend_s", f.after.mtp_eager_draft_extend_s},
                 {"median_error_before", f.median_ape_before / 100}, {"median_error", f.median_ape_after / 100}});
    if (!common.json)
      std::cout << fmt::format("{:<22} {:>5} {:>9} {:>8.3f} -> {:<7.3f} {:>12} {:>6.1f} -> {:<6.1f} {:>6.1f}% -> {:.1f}%\n",
                               f.after.name, f.fit_rows, f.held_out_rows, f.before.request_overhead_s,
                               f.after.request_overhead_s,
                               f.after.mtp_accept ? fmt::format("{:.2f}", *f.after.mtp_accept) : "-",
                               f.before.host_per_seq_step_s * 1e6, f.after.host_per_seq_step_s * 1e6,
                               f.median_ape_before, f.median_ape_after);
  }
  nlohmann::json release_j = nlohmann::json::array();
  for (const auto& f : release_fits) {
    for (auto& e : out)
      if (e.name == f.engine) {
        EngineRelease r = f.after;
        r.fitted_on = fmt::format("{}: the release's {} maximum-load MoE throughput rows (the engine's host work per "
                                  "sequence at the newest release's fit), median error {:.1f}% at the newest "
                                  "release's rate -> {:.1f}%; {}",
                                  basename, f.fit_rows, f.median_ape_before, f.median_ape_after,
                                  f.held_out_rows == 0
                                      ? std::string("one generation only, none left out")
                                      : fmt::format("each generation left out in turn: {} rows, {:.1f}% at the "
                                                    "newest release's rate -> {:.1f}%",
                                                    f.held_out_rows, f.held_out_ape_before, f.held_out_ape_after));
        r.fitted_date = today_utc();
        r.method = "calibrate_engine_releases: grid 1.00-0.20 (0.01) minimising the mean min(2, |log(pred/reported)|)";
        auto it = std::find_if(e.releases.begin(), e.releases.end(),
                               [&](const EngineRelease& x) { return x.release == r.release; });
        if (it != e.releases.end()) *it = r;
        else e.releases.push_back(r);
      }
    release_j.push_back({{"engine", f.engine}, {"release", f.after.release}, {"fit_rows", f.fit_rows},
                         {"moe_kernel_share_before", f.before.moe_kernel_share},
                         {"moe_kernel_share", f.after.moe_kernel_share},
                         {"median_error_before", f.median_ape_before / 100}, {"median_error", f.median_ape_after / 100},
                         {"held_out_rows", f.held_out_rows},
                         {"held_out_median_error_before", f.held_out_ape_before / 100},
                         {"held_out_median_error", f.held_out_ape_after / 100}});
    if (!common.json)
      std::cout << fmt::format("{} release {}: MoE kernel share {:.2f} -> {:.2f} on {} maximum-load MoE rows, median "
                               "error {:.1f}% at the newest release's rate -> {:.1f}%; each generation left out: "
                               "{} rows, {:.1f}% at the newest release's rate -> {:.1f}%\n",
                               f.engine, f.after.release, f.before.moe_kernel_share, f.after.moe_kernel_share,
                               f.fit_rows, f.median_ape_before, f.median_ape_after, f.held_out_rows,
                               f.held_out_ape_before, f.held_out_ape_after);
  }
  for (const auto& f : fe_fits) {
    for (auto& e : out)
      if (e.name == f.after.name) {
        e.request_overhead_s = f.after.request_overhead_s;
        e.states_request_overhead = true;
      }
    resolve_serving_front_ends(out, "calibrate --engines");
    j.push_back({{"engine", f.after.name}, {"fit_rows", f.fit_rows}, {"held_out_rows", f.held_out_rows},
                 {"not_steady_rows", f.not_steady_rows}, {"fit_on", "dense closed-loop TTFT at <= 8 clients"},
                 {"request_overhead_s_before", f.before.request_overhead_s},
                 {"request_overhead_s", f.after.request_overhead_s},
                 {"median_error_before", f.median_ape_before / 100}, {"median_error", f.median_ape_after / 100}});
    if (!common.json)
      std::cout << fmt::format("{:<22} {:>5} {:>9}  front end {:.3f} -> {:.3f} s (dense TTFT at <= 8 clients)  "
                               "{:>6.1f}% -> {:.1f}%\n",
                               f.after.name, f.fit_rows, f.held_out_rows, f.before.request_overhead_s,
                               f.after.request_overhead_s, f.median_ape_before, f.median_ape_after);
  }
  nlohmann::json moe_j = nlohmann::json::array();
  for (const auto& f : wave_fits) {
    // The engine and the Dynamo deployments of its workers (moe_kernels_owner); `out` is the catalog's list.
    for (size_t i = 0; moe_gemm_waves && i < out.size(); ++i)
      if (moe_kernels_owner(catalog, &catalog.serving_engines()[i])->name == f.after.name)
        out[i].moe_gemm_eff = f.after.moe_gemm_eff;
    moe_j.push_back({{"engine", f.after.name}, {"fit_rows", f.fit_rows}, {"held_out_rows", f.held_out_rows},
                     {"fit_on", "p99_ttft_ms opening waves"}, {"moe_gemm_eff_before", f.before.moe_gemm_eff},
                     {"moe_gemm_eff", f.after.moe_gemm_eff}, {"median_error_before", f.median_ape_before / 100},
                     {"median_error", f.median_ape_after / 100}});
    if (!common.json)
      std::cout << fmt::format("{:<22} {:>5} {:>9}  MoE GEMM efficiency share {:.2f} -> {:.2f} (p99 TTFT of the "
                               "prefill pools' opening waves)  {:>6.1f}% -> {:.1f}%\n",
                               f.after.name, f.fit_rows, f.held_out_rows, f.before.moe_gemm_eff, f.after.moe_gemm_eff,
                               f.median_ape_before, f.median_ape_after);
  }
  // Kept (written) where the rows above the fit's clients confirm it (moe_gemm_share_holds); the
  // others reported only (docs/inference-model.md, "Each engine's MoE GEMM share").
  for (const auto& f : moe_fits) {
    const bool kept = moe_gemm_share_holds(f);
    for (size_t i = 0; kept && i < out.size(); ++i)
      if (moe_kernels_owner(catalog, &catalog.serving_engines()[i])->name == f.after.name) {
        out[i].moe_gemm_eff = f.after.moe_gemm_eff;
        out[i].fitted_date = today_utc();
        std::string front_end;
        for (const auto& fe : fe_fits)
          if (fe.after.name == f.after.name)
            front_end = fmt::format("request_overhead_s: its {} closed-loop TTFT rows of dense models at <= 8 clients "
                                    "(median of measured - predicted), its other rows held out. ",
                                    fe.fit_rows);
        out[i].fitted_on = fmt::format(
            "{}: {}moe_gemm_eff: the engine's {} MoE TTFT and TPOT rows at <= 8 closed-loop clients; the {} above "
            "held out (median error {:.1f}% -> {:.1f}%, its {} disaggregated {:.1f}% -> {:.1f}%)",
            dataset.substr(dataset.find_last_of('/') + 1), front_end, f.fit_rows, f.held_out_rows,
            f.held_out_ape_before, f.held_out_ape_after, f.held_out_pool_rows, f.held_out_pool_ape_before,
            f.held_out_pool_ape_after);
        out[i].method =
            "calibrate_engine_moe_gemm: grid 0.10-1.00 (0.01) minimising the median min(2, |log(pred/reported)|) of "
            "the fit rows; kept where the held-out rows improve and its disaggregated ones do not worsen";
      }
    moe_j.push_back({{"engine", f.after.name}, {"fit_rows", f.fit_rows}, {"held_out_rows", f.held_out_rows},
                     {"moe_gemm_eff_before", f.before.moe_gemm_eff}, {"moe_gemm_eff", f.after.moe_gemm_eff},
                     {"median_error_before", f.median_ape_before / 100}, {"median_error", f.median_ape_after / 100},
                     {"held_out_error_before", f.held_out_ape_before / 100},
                     {"held_out_error", f.held_out_ape_after / 100}, {"held_out_pool_rows", f.held_out_pool_rows},
                     {"held_out_pool_error_before", f.held_out_pool_ape_before / 100},
                     {"held_out_pool_error", f.held_out_pool_ape_after / 100}, {"kept", kept}});
    if (!common.json)
      std::cout << fmt::format("{:<22} {:>5} {:>9}  MoE GEMM efficiency share {:.2f} -> {:.2f} (MoE TTFT+TPOT at <= 8 "
                               "clients)  {:>6.1f}% -> {:.1f}%; held out {:.1f}% -> {:.1f}%, its {} disaggregated "
                               "{:.1f}% -> {:.1f}%: {}\n",
                               f.after.name, f.fit_rows, f.held_out_rows, f.before.moe_gemm_eff, f.after.moe_gemm_eff,
                               f.median_ape_before, f.median_ape_after, f.held_out_ape_before, f.held_out_ape_after,
                               f.held_out_pool_rows, f.held_out_pool_ape_before, f.held_out_pool_ape_after,
                               kept ? "kept" : "not kept");
  }
  if (!common.json)
    for (const auto& f : fits)
      if (f.mtp_host_fit)
        std::cout << fmt::format("{}: MTP host work in series {:.2f} ms + {:.0f} us per sequence a step, eager draft "
                                 "extend {:.2f} ms (was {:.2f} + {:.0f}, {:.2f}), on {} TPOT and tokens/s per user "
                                 "figures, {} held out\n",
                                 f.after.name, f.after.mtp_host_step_s * 1e3, f.after.mtp_host_per_seq_step_s * 1e6,
                                 f.after.mtp_eager_draft_extend_s * 1e3, f.before.mtp_host_step_s * 1e3,
                                 f.before.mtp_host_per_seq_step_s * 1e6, f.before.mtp_eager_draft_extend_s * 1e3,
                                 f.fit_rows, f.held_out_rows);
  if (!common.json)
    for (const auto& f : fits)
      if (f.not_steady_rows > 0)
        std::cout << fmt::format("{}: {} low-concurrency TTFT point(s) beyond any steady state (more than clients x "
                                 "the predicted TTFT + {:.0f} s) counted, not fitted\n",
                                 f.after.name, f.not_steady_rows, kFrontEndBoundS);
  if (!common.json && !moe_fits.empty())
    std::cout << "(MoE GEMM efficiency shares written with --write where kept: docs/inference-model.md, Each engine's "
                 "MoE GEMM share)\n";
  if (!common.json && !wave_fits.empty() && !moe_gemm_waves)
    std::cout << "(MoE GEMM efficiency shares on the opening waves reported, not written: --moe-gemm-waves writes "
                 "them; docs/inference-model.md, Each engine's MoE GEMM share)\n";
  if (common.json)
    print_json("calibrate",
               {{"dataset", dataset}, {"engines", j}, {"moe_gemm_eff_fits", moe_j}, {"release_fits", release_j}});
  if (!write_path.empty()) {
    check_output_file(write_path, "--write", command_args);
    std::ofstream f(write_path);
    if (!f) throw InputError("--write", "cannot write '" + write_path + "'");
    f << serving_engines_to_yaml(
        out, "Serving engines: the serving parameters kept per engine (framework) rather than per accelerator\n"
             "generation (src/catalog/serving_engine.h; docs/inference-model.md, \"Serving engines\", \"Parameters\").\n"
             "Entries are matched in this order against a framework string (each `match` alternative: words that\n"
             "must all occur), so the specific engines come before the generic ones; `default` serves any other.\n"
             "request_overhead_s: the front end's latency per request before prefill, fitted by calibrate_engines()\n"
             "  (src/validate/calibrate.h) as the median of measured - predicted TTFT of each engine's InferenceX\n"
             "  DeepSeek-R1 points at concurrency <= 8 (no queue, no wave); the points above 8 are held out. vLLM,\n"
             "  without InferenceX points: calibrate_engine_front_end_dense() on the AIConfigurator file's dense\n"
             "  closed-loop TTFT rows at <= 8 clients (`--front-end-engines vllm`), the same median.\n"
             "front_end_of: the engine whose front end (request_overhead_s) this one shares, resolved when the catalog\n"
             "  is read (the named entry must state its own figure: no chains); its rows count towards that fit.\n"
             "mtp_accept: acceptance of each MTP draft given the previous was accepted (DeepSeek-V3 report,\n"
             "  arXiv:2412.19437 sec. 5.4.3: 85-90% for the first draft on natural text; InferenceX prompts are\n"
             "  random tokens, accepted less), fitted by calibrate_engines() on the file's MTP points.\n"
             "host_per_seq_step_s: the engine's host work per sequence per decode step on each rank's process,\n"
             "  overlapped with the GPU step (TensorRT-LLM's PyTorch executor: Python scheduling, sampling and\n"
             "  response handling, run during the previous step by its overlap scheduler); fitted by\n"
             "  calibrate_engine_host() on inference.csv's maximum-load rows of the engine (`calibrate --engines\n"
             "  --dataset inference.csv --fit-sources ...`); entries without it: C++ runtimes, negligible.\n"
             "mtp_host_step_s, mtp_host_per_seq_step_s: the SGLang worker's host work per MTP decode step and per\n"
             "  sequence, waited for where its EAGLE worker runs in series with the GPU (spec v1 without the overlap\n"
             "  scheduler; FlashInfer MLA on Hopper) and mtp_eager_draft_extend_s, the eager (non-graphed) draft\n"
             "  extend's on FlashInfer, fitted by calibrate_engines() on those InferenceX points' TPOT and tokens/s\n"
             "  per user; every other point held out.\n"
             "moe_gemm_eff: the share of the generation's GEMM efficiency the engine's grouped MoE expert GEMMs reach\n"
             "  on prompt rows (1 when unset: TensorRT-LLM's CUTLASS / trtllm-gen MoE kernels, whose rows the\n"
             "  generation's efficiencies were fitted on). It scales the experts' math, not their weights' streaming,\n"
             "  so its cost follows the prompt tokens a step carries: decode rows run at the reference's, a mixed\n"
             "  step's grouped GEMM at the rows' harmonic blend. Fitted by calibrate_engine_moe_gemm() on the engine's\n"
             "  MoE TTFT and TPOT rows at <= 8 closed-loop clients of an inference-schema file (`calibrate --engines\n"
             "  --dataset aiconfigurator-silicon-sample-ttft-tpot.csv --write`), the rows above 8 clients held out, and\n"
             "  kept only where those held-out rows improve on the reference's share (1) and its disaggregated\n"
             "  deployments' held-out rows (their loaded prefill pools measure the prompt throughput) do not worsen:\n"
             "  vLLM 0.53 (at its fitted front end) kept; SGLang's 0.18 over-loads its disaggregated pools (held out\n"
             "  28% -> 39%), not kept; TensorRT-LLM the reference. Per engine,\n"
             "  never per model. On an InferenceX file `calibrate --engines` also fits it on each non-TensorRT-LLM\n"
             "  engine's prefill pools' opening waves (p99 TTFT; Dynamo + X rows count for X), reported and written\n"
             "  only with --moe-gemm-waves: not kept (docs/inference-model.md, Each engine's MoE GEMM share).\n"
             "prefill_separate: the engine runs prompts in forwards of their own that the running decodes wait for\n"
             "  (SGLang's scheduler alternates prefill and decode batches unless --enable-mixed-chunk; ATOM likewise);\n"
             "  unset: prompts ride in the decodes' forward (inflight batching). A fact of the scheduler, not fitted.\n"
             "kv_admission: how the scheduler admits a sequence against the paged KV pool (InferenceWorkload::kv_admission).\n"
             "  reserve_full (unset): its whole isl + osl on admission, TensorRT-LLM's default capacity scheduler policy\n"
             "  GUARANTEED_NO_EVICT (TensorRT-LLM docs, \"Useful Runtime Options\", Capacity Scheduler Policy; executor\n"
             "  CapacitySchedulerPolicy). current_length: admitted while the pool holds the running sequences' current\n"
             "  lengths, a sequence preempted (recomputed) when the pool fills: vLLM's scheduler (blocks allocated as\n"
             "  tokens are appended, preemption by recompute; docs \"Optimization and Tuning\", Preemption), SGLang's\n"
             "  (new-token ratio and retraction of decodes when the pool runs out), TensorRT-LLM's MAX_UTILIZATION.\n"
             "  A fact of the scheduler, not fitted.\n"
             "kv_pool: how the engine sizes its KV pool from a GPU's memory (InferenceWorkload::kv_pool,\n"
             "  src/inference/kv_pool.h). free_share (unset): 0.9 of the memory the weights, activations and a 1 GB\n"
             "  reserve leave (TensorRT-LLM's kv_cache_free_gpu_mem_fraction). whole_share: 0.9 of the whole memory\n"
             "  less the weights and the activations' peak (vLLM's gpu_memory_utilization, docs \"Engine Arguments\":\n"
             "  the fraction of GPU memory for the model executor, the KV cache what the profiled weights and\n"
             "  activations leave of it). sglang: SGLang's mem_fraction_static of the whole memory less the weights,\n"
             "  its default computed from the GPU and the plan; not the sglang entry's default, because that default\n"
             "  leaves no room on deployments its rows ran (their launch scripts state a share:\n"
             "  `infer --mem-fraction-static`, data/recipes/inferencex_scripts.yaml). A fact of the engine, not fitted.\n"
             "attention_dp_dense: what the engine does with the dense MLPs, the shared experts and the output head under\n"
             "  attention-DP (InferenceWorkload::attention_dp_dense_replicated). replicated: each attention rank holds them\n"
             "  whole and runs its own tokens through them, so it streams their whole weights and its KV pool has that much\n"
             "  less room, and the dense layers gather nothing: TensorRT-LLM's PyTorch backend (its decoder layers' MLP and\n"
             "  shared-expert TP size is 1 with enable_attention_dp, \"the MLP also uses DP instead of TP\"; its LM head is\n"
             "  replicated unless enable_lm_head_tp_in_adp, default false; docs \"Parallelism in TensorRT-LLM\"), and so\n"
             "  Dynamo's TensorRT-LLM workers; vLLM (docs \"Data Parallel Deployment\": each data-parallel rank is an engine of\n"
             "  its own, the expert layers alone spanning the ranks). tensor_parallel (unset): split over the ranks, the\n"
             "  tokens gathered for them (SGLang's default: moe_dense_tp_size unset, the LM head vocabulary-parallel unless\n"
             "  enable_dp_lm_head). A fact of the engine, not fitted.\n"
             "attention_dp_moe_exchange: how the engine moves the attention ranks' tokens to the routed experts under\n"
             "  attention-DP (InferenceWorkload::attention_dp_moe_exchange). all_to_all (unset): each rank sends its tokens'\n"
             "  top-k copies to the ranks holding those experts (DeepEP, MoRI). all_gather: every rank's tokens gathered to\n"
             "  every rank before the experts, the outputs reduce-scattered after (vLLM's default --all2all-backend,\n"
             "  allgather_reducescatter; docs \"Expert Parallel Deployment\"). all_gather_unless_mnnvl: all_gather, but\n"
             "  all_to_all where the NVLink domain spans hosts (GB200 / GB300 NVL) and the EP exceeds the top-k: TensorRT-LLM\n"
             "  (FusedMoE select_alltoall_method_type: MNNVL when supported and moe_ep_size > top_k, DeepEP only when the\n"
             "  environment enables it, otherwise allgather and reducescatter), and so Dynamo's TensorRT-LLM workers. A fact\n"
             "  of the engine, not fitted.\n"
             "  No built-in entry states the two yet (a catalog overlay may): stated for TensorRT-LLM and vLLM, the serving\n"
             "  fits move to a fixed point that misses the saturated-prefill goldens (docs/inference-model.md, \"Attention-DP\n"
             "  layouts the engines run\").\n"
             "window_kv: what the engine's KV pool charges a sliding-window layer (InferenceWorkload::window_kv_whole).\n"
             "  whole_context: the whole sequence, as any other layer, so a windowed model holds no more sequences than a\n"
             "  windowless one (the attention still reads only the window): TensorRT-LLM (its KV cache manager's\n"
             "  calculateMaxNumBlocks counts the pool as if every layer attended the whole sequence; docs \"Long\n"
             "  Sequences\": the allocation \"still relies on the buffer's maximum value\"), and so Dynamo's TensorRT-LLM\n"
             "  workers. window (unset): at most the window and the block it straddles (vLLM's hybrid KV cache manager). A\n"
             "  fact of the engine, not fitted.\n"
             "newest_release, releases: the release the entry's figures describe, the default of every question, and the\n"
             "  older releases measured otherwise. Each release's moe_kernel_share: its MoE layers' grouped expert GEMMs\n"
             "  (with their routing and permutation) as a share of the newest release's rate, an expert GEMM taking\n"
             "  1 / share of the time; fitted by calibrate_engine_releases() on the release's maximum-load MoE throughput\n"
             "  rows of an inference.csv-schema file (`calibrate --engines --dataset inference.csv`), at the host work the\n"
             "  newest release's rows set, each generation left out in turn as its check. Dense models' rows of those\n"
             "  releases lie where the newest's do, so nothing else is kept per release. `infer --engine-release`; a\n"
             "  validated row's framework states its release.\n"
             "vendors: the accelerator vendors the engine runs on (accelerators.yaml `vendor`); unset: any. Commands that\n"
             "  take --engine refuse a system the engine does not run on (size lists it with the reason). A fact of the\n"
             "  engines' releases, not fitted: TensorRT-LLM and its PyTorch backend, NVIDIA GPUs only (TensorRT-LLM docs,\n"
             "  \"Supported Hardware\"); NVIDIA Dynamo's TensorRT-LLM and SGLang workers, NVIDIA GPUs (Dynamo docs,\n"
             "  \"Support Matrix\"); SGLang, CUDA and ROCm builds (SGLang docs, \"Install SGLang\": NVIDIA and AMD\n"
             "  Instinct); SGLang with MoRI and ATOM, AMD's ROCm stack for Instinct GPUs (ROCm/mori, ROCm/ATOM\n"
             "  READMEs); vLLM, CUDA, ROCm, Intel Gaudi/XPU and Google TPU builds (vLLM docs, \"Installation\").\n"
             "Written by `gpuplan calibrate --engines --dataset " + basename + " --write ...`.");
    if (!common.json) std::cout << "Wrote " << write_path << "\n";
  }
  return kExitOk;
}

}  // namespace gpuplan::cli::calibrate_detail
