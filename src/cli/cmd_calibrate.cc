// gpuplan calibrate: fit the efficiency parameters per accelerator generation on a dataset.
// Its parts: cli/calibrate_parts.h.
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

namespace gpuplan::cli {

using namespace calibrate_detail;

int cmd_calibrate(int argc, char** argv) {
  const std::vector<std::string> command_args(argv + 1, argv + argc);  // what --write must not replace
  CLI::App app{"Fit the efficiency parameters of each accelerator generation (GEMM curve, FP8/FP4 gain, "
               "attention, HBM and link efficiencies, overlap, kernel overhead) on published measurements, "
               "by coordinate descent on the weighted mean |log(predicted/reported)|. Prints the fitted "
               "values and the fit's error; --write saves them where the catalog reads them.",
               "gpuplan calibrate"};
  CommonOptions common;
  add_common_options(app, common);
  std::string dataset, write_path, metrics = "tpot_ms";
  std::vector<std::string> holdouts, serving, training_extra, new_ground;
  std::string bands_path, generations, fit_sources, params, front_end_engines;
  bool inference = false, bands = false, engines = false, prefill = false, moe_gemm_waves = false;
  CalibrationOptions opts;
  app.add_option("--dataset", dataset, "CSV of published measurements (training.csv schema, or the inference "
                                       "schema with --inference)")->required();
  app.add_flag("--inference", inference,
               "Fit the serving parameters (infer_hbm_eff, infer_step_overhead_s, infer_kernel_overhead_s) on "
               "serving rows instead of the training ones");
  app.add_flag("--prefill", prefill,
               "--inference: fit the prefill rates (infer_mla_prefill_eff; infer_gemm_max, infer_fp8_block_share, "
               "infer_fp8_block_triton_share with --params) per generation on TTFT rows at 1-8 clients, jointly with each engine's front end, "
               "and on an InferenceX file also on the p99 TTFT of disaggregated runs whose opening wave measures "
               "the prefill pool (every median held out)");
  app.add_flag("--engines", engines,
               "Fit each serving engine's front-end latency and the MTP acceptance "
               "(data/catalog/serving_engines.yaml) on an InferenceX-schema --dataset, or its host work per "
               "sequence per step on an inference.csv-schema one (maximum-load rows)");
  app.add_option("--front-end-engines", front_end_engines,
                 "--engines on an inference.csv-schema --dataset: also fit the front end (request_overhead_s) of these "
                 "engines (comma-separated catalog names: those without InferenceX points) on their dense closed-loop "
                 "TTFT rows at <= 8 clients; the MoE GEMM shares are fitted at it");
  app.add_flag("--moe-gemm-waves", moe_gemm_waves,
               "--engines on an InferenceX-schema --dataset: also write each non-reference engine's MoE GEMM "
               "share (moe_gemm_eff) fitted on its prefill pools' opening waves, and fit the front ends at it "
               "(not kept in the built-in catalog: docs/inference-model.md)");
  app.add_option("--metrics", metrics,
                 "--inference: comma-separated metrics whose rows the fit uses (tpot_ms, ttft_ms, "
                 "tokens_per_sec_total, tokens_per_sec_per_gpu, tokens_per_sec_per_user; 'all')");
  app.add_option("--params", params,
                 "--inference: comma-separated parameters to fit (--prefill: infer_mla_prefill_eff (default), "
                 "infer_gemm_max, infer_fp8_block_share, infer_fp8_block_triton_share; otherwise infer_hbm_eff, infer_step_overhead_s, infer_kernel_overhead_s (default "
                 "all three), or infer_mla_decode_eff alone: the MLA decode attention rate on the TPOT of MLA models)");
  app.add_option("--holdout", holdouts,
                 "--inference: leave out of the fit the rows these files also hold (to check on them after)");
  app.add_option("--fit-sources", fit_sources,
                 "--engines on an inference.csv-schema --dataset: fit each engine's host work per sequence on "
                 "these source_ids only (comma-separated); the engine's other maximum-load rows are held out");
  app.add_option("--generation", generations,
                 "--inference: fit only these generations (comma-separated, e.g. cdna3,cdna4); the others keep "
                 "their values (--prefill: their rows still count towards the engines' front ends)");
  app.add_option("--write", write_path,
                 "Write the fitted parameters as catalog YAML (e.g. data/catalog/efficiency.yaml, or a file in "
                 "a --catalog directory)");
  app.add_flag("--bands", bands,
               "Also fit the error bands: leave-one-source-family-out on the training rows, plus the rows of "
               "each --serving file, per kind of prediction and accelerator generation");
  app.add_option("--serving", serving, "--bands: serving measurements (inference.csv schema) the serving fit did "
                                       "not see");
  app.add_option("--training", training_extra,
                 "--bands: training measurements (training.csv schema) the efficiency fit did not see but the model "
                 "was built on (data/benchmarks/), scored with the fitted efficiencies");
  app.add_option("--new-ground", new_ground,
                 "--bands: measurements of sources the model was neither fitted nor built on (training.csv or "
                 "inference.csv schema; data/new_ground/): the source widening is at least what they need "
                 "(docs/training-model.md, \"Error bands off the data\")");
  app.add_option("--write-bands", bands_path, "--bands: write the bands as catalog YAML (data/catalog/error_bands.yaml)");
  app.add_option("--rounds", opts.rounds, "Coordinate-descent sweeps")->check(CLI::Range(1, 50));
  app.add_option("--prior-weight", opts.prior_weight, "Pull towards the starting values")
      ->check(CLI::Range(0.0, 10.0));
  if (int rc = parse_args(app, argc, argv); rc >= 0) return rc;
  return run_guarded([&] {
    const bool metrics_given = app.get_option("--metrics")->count() > 0;
    if (!fit_sources.empty() && !engines) throw InputError("--fit-sources", "applies with --engines");
    if (metrics_given && !inference) throw InputError("--metrics", "applies with --inference");
    if (engines) {
      if (inference || bands) throw InputError("--engines", "cannot be combined with --inference or --bands");
      if (!holdouts.empty()) throw InputError("--holdout", "applies with --inference");
      if (!generations.empty()) throw InputError("--generation", "applies with --inference");
      if (!serving.empty()) throw InputError("--serving", "applies with --bands");
      if (!training_extra.empty()) throw InputError("--training", "applies with --bands");
      if (!new_ground.empty()) throw InputError("--new-ground", "applies with --bands");
      if (!bands_path.empty()) throw InputError("--write-bands", "applies with --bands");
      return calibrate_engines_cli(common, dataset, write_path, command_args,
                                   fit_sources.empty() ? std::vector<std::string>{} : split_list(fit_sources),
                                   moe_gemm_waves,
                                   front_end_engines.empty() ? std::vector<std::string>{} : split_list(front_end_engines));
    }
    if (!bands && !serving.empty()) throw InputError("--serving", "applies with --bands");
    if (!bands && !training_extra.empty()) throw InputError("--training", "applies with --bands");
    if (!bands && !new_ground.empty()) throw InputError("--new-ground", "applies with --bands");
    if (moe_gemm_waves) throw InputError("--moe-gemm-waves", "applies with --engines");
    if (!front_end_engines.empty()) throw InputError("--front-end-engines", "applies with --engines");
    if (prefill && !inference) throw InputError("--prefill", "applies with --inference");
    if (!params.empty() && !inference) throw InputError("--params", "applies with --inference");
    if (!params.empty()) {
      opts.params = split_list(params);
      static const std::vector<std::string> kPrefill{"infer_gemm_max", "infer_mla_prefill_eff", "infer_fp8_block_share",
                                                     "infer_fp8_block_triton_share"},
          kDecode{"infer_hbm_eff", "infer_step_overhead_s", "infer_kernel_overhead_s", "infer_mla_decode_eff"};
      const auto& known = prefill ? kPrefill : kDecode;
      for (const auto& p : opts.params)
        if (std::find(known.begin(), known.end(), p) == known.end()) {
          std::string list;
          for (const auto& k : known) list += (list.empty() ? "" : ", ") + k;
          throw InputError("--params", "unknown parameter '" + p + "' (" + list + ")");
        }
    }
    if (metrics_given && (prefill || !opts.params.empty()))
      throw InputError("--metrics", prefill ? "does not apply with --prefill (it fits on the TTFT rows)"
                                            : "does not apply with --params (the parameters choose their rows)");
    if (inference && prefill) {
      if (!holdouts.empty()) throw InputError("--holdout", "does not apply with --prefill (its held-out rows are fixed)");
      return calibrate_prefill_cli(common, dataset, write_path, opts,
                                   generations.empty() ? std::vector<std::string>{} : split_list(generations),
                                   command_args);
    }
    if (inference && std::find(opts.params.begin(), opts.params.end(), "infer_mla_decode_eff") != opts.params.end()) {
      if (opts.params.size() > 1)
        throw InputError("--params", "infer_mla_decode_eff is fitted on its own (the TPOT of MLA models)");
      if (!holdouts.empty()) throw InputError("--holdout", "does not apply with --params infer_mla_decode_eff");
      return calibrate_mla_decode_cli(common, dataset, write_path, opts,
                                      generations.empty() ? std::vector<std::string>{} : split_list(generations),
                                      command_args);
    }
    if (inference) {
      if (metrics != "all") {
        opts.metrics = split_list(metrics);
        for (std::size_t i = 0; i < opts.metrics.size(); ++i) {
          const std::string& m = opts.metrics[i];
          if (m == "all") throw InputError("--metrics", "'all' cannot be combined with other metrics: give all alone");
          if (m != "tpot_ms" && m != "ttft_ms" && m != "tokens_per_sec_total" && m != "tokens_per_sec_per_gpu" &&
              m != "tokens_per_sec_per_user")
            throw InputError("--metrics", "unknown metric '" + m + "' (tpot_ms, ttft_ms, tokens_per_sec_total, "
                                          "tokens_per_sec_per_gpu, tokens_per_sec_per_user or all)");
          if (std::find(opts.metrics.begin(), opts.metrics.begin() + static_cast<std::ptrdiff_t>(i), m) !=
              opts.metrics.begin() + static_cast<std::ptrdiff_t>(i))
            throw InputError("--metrics", "'" + m + "' is given twice");
        }
      }
      return calibrate_inference_cli(common, dataset, write_path, holdouts, opts,
                                     generations.empty() ? std::vector<std::string>{} : split_list(generations),
                                     command_args);
    }
    if (!holdouts.empty()) throw InputError("--holdout", "applies with --inference");
    if (!generations.empty()) throw InputError("--generation", "applies with --inference");
    if (!bands && !serving.empty()) throw InputError("--serving", "applies with --bands");
    if (!bands && !bands_path.empty()) throw InputError("--write-bands", "applies with --bands");
    if (!bands_path.empty()) check_output_file(bands_path, "--write-bands", command_args);
    Catalog catalog = load_catalog(common);
    const CsvTable table = read_csv_file(dataset, "--dataset");
    if (!is_training_schema(table)) throw InputError("--dataset", "expected the training.csv schema");
    std::vector<SkippedRow> skipped;
    auto cases = map_training_cases(table, catalog, skipped);
    if (cases.empty()) throw nothing_scored(dataset, table.rows.size(), skipped.empty() ? "" : skipped.front().reason);
    if (bands) {
      calibrate_bands_cli(common, catalog, dataset, cases, serving, training_extra, new_ground, bands_path, opts);
      return kExitOk;
    }
    const auto fits = calibrate(cases, opts);
    const ValidationReport rep = validate_training(cases, skipped, dataset);

    std::vector<Efficiency> out;
    for (const auto& e : catalog.efficiencies()) {
      bool fitted = false;
      for (const auto& f : fits) fitted |= f.generation == e.generation;
      if (!fitted) out.push_back(e);
    }
    const std::string basename = dataset.substr(dataset.find_last_of('/') + 1);
    for (const auto& f : fits) {
      Efficiency e = f.after;
      e.fitted_on = fmt::format("{} ({} rows)", basename, f.rows);
      e.fitted_date = today_utc();
      e.method = "gpuplan calibrate: coordinate descent on weighted mean |log(pred/reported)|, each "
                 "(source, model) series weighted equally, bounded ranges, log-prior pull to the defaults";
      out.push_back(e);
    }
    if (common.json) {
      nlohmann::json j = nlohmann::json::array();
      for (const auto& f : fits)
        j.push_back(generation_fit_json(
            f, {{"gemm_max", f.after.gemm_max}, {"gemm_half_dim", f.after.gemm_half_dim},
                {"gemm_fp8_scale", f.after.gemm_fp8_scale}, {"gemm_fp4_scale", f.after.gemm_fp4_scale},
                {"attention_eff", f.after.attention_eff}, {"hbm_eff", f.after.hbm_eff},
                {"scaleup_eff", f.after.scaleup_eff}, {"scaleout_eff", f.after.scaleout_eff},
                {"overlap_eff", f.after.overlap_eff}, {"kernel_overhead_s", f.after.kernel_overhead_s}}));
      print_json("calibrate", {{"dataset", dataset}, {"generations", j},
                               {"median_ape_pct", rep.overall.median_ape_pct}, {"p90_ape_pct", rep.overall.p90_ape_pct},
                               {"rows_scored", rep.rows.size()}, {"rows_skipped", rep.skipped.size()}});
    } else {
      std::cout << fmt::format("Calibrated on {} ({} rows, {} skipped)\n\n", dataset, cases.size(), skipped.size());
      std::cout << fmt::format("{:<16} {:>5} {:>9} {:>9} {:>8} {:>8} {:>7} {:>7} {:>7} {:>7} {:>7} {:>7} {:>7} {:>8}  {}\n",
                               "generation", "rows", "gemm_max", "half_dim", "fp8", "fp4", "attn", "hbm", "up",
                               "out", "overlap", "kern_us", "", "", "median APE before -> after");
      for (const auto& f : fits) {
        const Efficiency& e = f.after;
        std::cout << fmt::format("{:<16} {:>5} {:>9.3f} {:>9.0f} {:>8.3f} {:>8.3f} {:>7.3f} {:>7.3f} {:>7.3f} {:>7.3f} "
                                 "{:>7.3f} {:>7.1f} {:>7} {:>8}  {:.1f}% -> {:.1f}%\n",
                                 f.generation, f.rows, e.gemm_max, e.gemm_half_dim, e.gemm_fp8_scale, e.gemm_fp4_scale,
                                 e.attention_eff, e.hbm_eff, e.scaleup_eff, e.scaleout_eff, e.overlap_eff,
                                 e.kernel_overhead_s * 1e6, "", "", f.median_ape_before, f.median_ape_after);
      }
      std::cout << fmt::format("\nAll rows: median APE {:.1f}%, p90 APE {:.1f}%, {} scored, {} skipped\n",
                               rep.overall.median_ape_pct, rep.overall.p90_ape_pct, rep.rows.size(), rep.skipped.size());
    }
    write_efficiency_file(write_path, out, command_args, common.json);
    return kExitOk;
  });
}

}  // namespace gpuplan::cli
