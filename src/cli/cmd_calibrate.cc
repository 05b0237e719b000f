// gpuplan calibrate: fit the efficiency parameters per accelerator generation on a dataset.
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

namespace gpuplan::cli {

namespace {

std::vector<std::string> split_list(const std::string& s) {
  std::vector<std::string> out;
  size_t p = 0;
  while (p <= s.size()) {
    const size_t q = std::min(s.find(',', p), s.size());
    if (q > p) out.push_back(s.substr(p, q - p));
    p = q + 1;
  }
  return out;
}

// The entry of `generation` in `out`; a generation without its own (it used `default`) gets one, a copy
// of `base` (the values it was predicted with), for the fitted values to be written into.
Efficiency& generation_entry(std::vector<Efficiency>& out, const std::string& generation, const Efficiency& base) {
  for (auto& e : out)
    if (e.generation == generation) return e;
  out.push_back(base);
  out.back().generation = generation;
  return out.back();
}

// The header of data/catalog/efficiency.yaml, the same whichever fit writes the file (each fit writes
// every generation's entry, so the header documents all of them).
std::string efficiency_file_header() {
  return "Efficiency parameters per accelerator generation (src/catalog/efficiency.h).\n"
         "Training values: `gpuplan calibrate --dataset training.csv --write ...`;\n"
         "serving values (infer_hbm_eff, infer_step_overhead_s, infer_kernel_overhead_s): `gpuplan calibrate\n"
         "  --inference --dataset FILE [--generation G] --write ...` (each entry's infer_fitted_on names its file);\n"
         "prefill rates (infer_mla_prefill_eff, every generation with InferenceX TTFTs; infer_fp8_block_share, the\n"
         "  block-scaled FP8 GEMMs' share of the FP8 rate, where disaggregated opening waves measure the prefill pools):\n"
         "  `gpuplan calibrate --inference --prefill --dataset inferencex-deepseek-r1.csv --params\n"
         "  infer_mla_prefill_eff,infer_fp8_block_share,infer_fp8_block_triton_share` (TTFT at 1-8 clients jointly\n"
         "  with the engines' front ends, and the p99 TTFT of the opening waves; infer_fp8_block_triton_share, the same\n"
         "  share on SGLang's Triton kernel, on the rows whose recipes run it; docs/inference-model.md, \"Prefill rate\n"
         "  per generation\", \"Block-scaled FP8 and the opening waves\" and \"SGLang's Triton block-FP8 kernel\");\n"
         "  infer_gemm_max (a serving GEMM rate) is fitted by none of them (the held-out\n"
         "  files reject it);\n"
         "MLA decode attention rate (infer_mla_decode_eff, cdna4 and blackwell_ultra: hopper's and blackwell's fits\n"
         "  are rejected by the held-out files): `gpuplan calibrate --inference --params infer_mla_decode_eff\n"
         "  --generation cdna4,blackwell_ultra --dataset\n"
         "  inferencex-deepseek-r1.csv` (TPOT of MLA models); mla_decode_tile_rows (cdna3, cdna4: 16) is a fact of\n"
         "  the MLA decode kernels, not fitted (AITER's 16-head kernels; NVIDIA's tile 64 rows: the default);\n"
         "the `default` entry serves generations without measurements.\n"
         "expert_gemm_overhead_s (fine-grained MoE, docs/training-model.md): the value `gpuplan calibrate` fitted on\n"
         "training.csv (2026-11-30) with the other training values held at this file's fit (a full refit moved the\n"
         "shared GEMM values and worsened the serving files); generations without MoE rows keep the 20 us prior.";
}

// Writes the efficiency entries `out` as the catalog's efficiency file to --write (nothing when empty).
void write_efficiency_file(const std::string& write_path, const std::vector<Efficiency>& out,
                           const std::vector<std::string>& command_args, bool json) {
  if (write_path.empty()) return;
  check_output_file(write_path, "--write", command_args);
  std::ofstream f(write_path);
  if (!f) throw InputError("--write", "cannot write '" + write_path + "'");
  f << efficiencies_to_yaml(out, efficiency_file_header());
  if (!json) std::cout << "Wrote " << write_path << "\n";
}

// One generation's fit in the JSON output: its rows, loss and median error before and after, and the
// fitted values.
nlohmann::json generation_fit_json(const GenerationFit& f, nlohmann::json fitted) {
  return {{"generation", f.generation},       {"rows", f.rows},
          {"loss_before", f.loss_before},     {"loss_after", f.loss_after},
          {"median_ape_before_pct", f.median_ape_before}, {"median_ape_after_pct", f.median_ape_after},
          {"fitted", std::move(fitted)}};
}

// The --dataset of a serving fit: the inference.csv or the InferenceX schema (`mode`: the options
// that asked for it, for the error).
CsvTable read_serving_table(const std::string& dataset, const std::string& mode) {
  CsvTable table = read_csv_file(dataset, "--dataset");
  if (!is_inferencex_schema(table) && !is_inference_schema(table))
    throw InputError("--dataset", "expected the inference.csv or InferenceX schema with " + mode);
  return table;
}

// calibrate --inference: the serving parameters (infer_*) of each generation on serving rows.
int calibrate_inference_cli(const CommonOptions& common, const std::string& dataset, const std::string& write_path,
                            const std::vector<std::string>& holdouts, CalibrationOptions opts,
                            const std::vector<std::string>& only_generations,
                            const std::vector<std::string>& command_args) {
  Catalog catalog = load_catalog(common);
  const CsvTable table = read_serving_table(dataset, "--inference");
  const bool inferencex = is_inferencex_schema(table);
  std::set<std::string> held;
  for (const auto& h : holdouts) {
    const CsvTable ht = read_csv_file(h, "--holdout");
    if (!is_inference_schema(ht)) throw InputError("--holdout", "'" + h + "' does not have the inference.csv schema");
    for (size_t i = 0; i < ht.rows.size(); ++i) held.insert(inference_row_key(ht, i));
  }
  std::vector<SkippedRow> skipped;
  auto all = inferencex ? map_inferencex_cases(table, catalog, skipped) : map_inference_cases(table, catalog, skipped);
  std::vector<InferenceCase> cases;
  size_t left_out = 0;
  for (auto& c : all) {
    if (!only_generations.empty() &&
        std::find(only_generations.begin(), only_generations.end(), c.generation) == only_generations.end())
      continue;
    if (!inferencex && held.count(inference_row_key(table, c.row))) ++left_out;
    else cases.push_back(std::move(c));
  }
  if (cases.empty()) throw nothing_scored(dataset, table.rows.size(), skipped.empty() ? "" : skipped.front().reason);
  const auto fits = calibrate_inference(cases, opts);
  const std::string basename = dataset.substr(dataset.find_last_of('/') + 1);
  std::string metrics = "all metrics";
  if (!opts.metrics.empty()) {
    metrics.clear();
    for (const auto& m : opts.metrics) metrics += (metrics.empty() ? "" : "+") + m;
  }
  std::vector<Efficiency> out = catalog.efficiencies();
  for (const auto& f : fits) {
    {
      Efficiency& e = generation_entry(out, f.generation, f.before);
      e.infer_hbm_eff = f.after.infer_hbm_eff;
      e.infer_step_overhead_s = f.after.infer_step_overhead_s;
      e.infer_kernel_overhead_s = f.after.infer_kernel_overhead_s;
      e.infer_fitted_on = fmt::format("{} {} rows ({}{})", basename, f.rows, metrics,
                                      held.empty() ? "" : fmt::format("; {} rows also in --holdout files left out", left_out));
      e.infer_fitted_date = today_utc();
      e.infer_method = "gpuplan calibrate --inference: coordinate descent on the weighted mean of min(2, "
                       "|log(pred/reported)|), each (source, model, metric) series weighted equally, bounded "
                       "ranges, log-prior pull to the defaults";
    }
  }
  if (common.json) {
    nlohmann::json j = nlohmann::json::array();
    for (const auto& f : fits)
      j.push_back(generation_fit_json(f, {{"infer_hbm_eff", f.after.infer_hbm_eff},
                                          {"infer_step_overhead_s", f.after.infer_step_overhead_s},
                                          {"infer_kernel_overhead_s", f.after.infer_kernel_overhead_s}}));
    print_json("calibrate", {{"dataset", dataset}, {"inference", true}, {"generations", j},
                             {"rows_left_out_for_holdout", left_out}, {"rows_skipped", skipped.size()}});
  } else {
    std::cout << fmt::format("Calibrated the serving parameters on {} ({} rows, {} left out as in --holdout, {} "
                             "skipped; fitted on {})\n\n",
                             dataset, cases.size(), left_out, skipped.size(), metrics);
    std::cout << fmt::format("{:<16} {:>6} {:>9} {:>10} {:>10}  {}\n", "generation", "rows", "hbm_eff", "step_ms",
                             "kernel_us", "median APE before -> after");
    for (const auto& f : fits)
      std::cout << fmt::format("{:<16} {:>6} {:>9.3f} {:>10.3f} {:>10.2f}  {:.1f}% -> {:.1f}%\n", f.generation, f.rows,
                               f.after.infer_hbm_eff, f.after.infer_step_overhead_s * 1e3,
                               f.after.infer_kernel_overhead_s * 1e6, f.median_ape_before, f.median_ape_after);
  }
  write_efficiency_file(write_path, out, command_args, common.json);
  return kExitOk;
}

// calibrate --inference --params infer_mla_decode_eff: each generation's absorbed-MLA decode
// attention rate on the TPOT of the dataset's MLA-model rows (calibrate_mla_decode), everything else
// as the catalog has it; every other figure held out. Writes the efficiencies.
int calibrate_mla_decode_cli(const CommonOptions& common, const std::string& dataset, const std::string& write_path,
                             const CalibrationOptions& opts, const std::vector<std::string>& only_generations,
                             const std::vector<std::string>& command_args) {
  Catalog catalog = load_catalog(common);
  const CsvTable table = read_serving_table(dataset, "--inference");
  const bool inferencex = is_inferencex_schema(table);
  std::vector<SkippedRow> skipped;
  auto all = inferencex ? map_inferencex_cases(table, catalog, skipped) : map_inference_cases(table, catalog, skipped);
  std::vector<InferenceCase> cases;
  for (auto& c : all)
    if (only_generations.empty() ||
        std::find(only_generations.begin(), only_generations.end(), c.generation) != only_generations.end())
      cases.push_back(std::move(c));
  for (const auto& g : only_generations)
    if (std::none_of(cases.begin(), cases.end(), [&](const InferenceCase& c) { return c.generation == g; }))
      throw InputError("--generation", fmt::format("no row of '{}' is of generation '{}'", dataset, g));
  const auto fits = calibrate_mla_decode(cases, opts);
  if (fits.empty()) throw InputError("--dataset", "'" + dataset + "' has no TPOT row of an MLA model to fit on");
  const size_t total = cases.size();
  const std::string basename = dataset.substr(dataset.find_last_of('/') + 1);
  std::vector<Efficiency> out = catalog.efficiencies();
  for (const auto& f : fits) {
    Efficiency& e = generation_entry(out, f.generation, f.before);
    e.infer_mla_decode_eff = f.after.infer_mla_decode_eff;
    e.infer_mla_decode_fitted_on =
        fmt::format("{}: the {} TPOT points of MLA models on {} (calibrate --inference --params "
                    "infer_mla_decode_eff); its other figures and every other file held out",
                    basename, f.rows, f.generation);
    e.infer_mla_decode_fitted_date = today_utc();
    e.infer_mla_decode_method =
        "calibrate_mla_decode: shrinking log-spaced grids over [0.05, 0.95] minimising the weighted mean of "
        "min(2, |log(pred/reported)|), each (source, model, engine) series weighted equally, log-prior pull to "
        "attention_eff";
  }
  if (common.json) {
    nlohmann::json j = nlohmann::json::array();
    for (const auto& f : fits)
      j.push_back(generation_fit_json(f, {{"infer_mla_decode_eff", f.after.infer_mla_decode_eff}}));
    print_json("calibrate", {{"dataset", dataset}, {"inference", true}, {"generations", j},
                             {"rows_skipped", skipped.size()}, {"cases", total}});
  } else {
    std::cout << fmt::format("Calibrated the MLA decode attention rate on the TPOT of {} ({} cases, {} rows skipped)\n\n",
                             dataset, total, skipped.size());
    std::cout << fmt::format("{:<16} {:>6} {:>14} {:>14}  {}\n", "generation", "rows", "attention_eff",
                             "mla_decode_eff", "median APE before -> after");
    for (const auto& f : fits)
      std::cout << fmt::format("{:<16} {:>6} {:>14.3f} {:>14.3f}  {:.1f}% -> {:.1f}%\n", f.generation, f.rows,
                               f.before.attention_eff, f.after.infer_mla_decode_eff, f.median_ape_before,
                               f.median_ape_after);
  }
  write_efficiency_file(write_path, out, command_args, common.json);
  return kExitOk;
}

// calibrate --inference --prefill: the prefill-side serving parameters (infer_gemm_max,
// infer_mla_prefill_eff) of each generation on TTFT at low load, jointly with each engine's front end
// (calibrate_prefill). Writes the efficiencies; the front ends are printed (calibrate --engines
// writes them, by the same rule, at the rates written here).
int calibrate_prefill_cli(const CommonOptions& common, const std::string& dataset, const std::string& write_path,
                          CalibrationOptions opts, const std::vector<std::string>& only_generations,
                          const std::vector<std::string>& command_args) {
  Catalog catalog = load_catalog(common);
  const CsvTable table = read_serving_table(dataset, "--inference --prefill");
  const bool inferencex = is_inferencex_schema(table);
  std::vector<SkippedRow> skipped;
  // InferenceX: the disaggregated rows' p99 TTFTs too (the opening wave's tail: the prefill pools' throughput).
  auto all = inferencex ? map_inferencex_cases(table, catalog, skipped, /*p99_ttft=*/true)
                        : map_inference_cases(table, catalog, skipped);
  // Every row counts towards the front ends; --generation names the generations whose rates are fitted.
  std::vector<InferenceCase> cases = std::move(all);
  if (cases.empty()) throw nothing_scored(dataset, table.rows.size(), skipped.empty() ? "" : skipped.front().reason);
  for (const auto& g : only_generations)
    if (std::none_of(cases.begin(), cases.end(), [&](const InferenceCase& c) { return c.generation == g; }))
      throw InputError("--generation", fmt::format("no row of '{}' is of generation '{}'", dataset, g));
  constexpr long long kMaxFitClients = 8;
  const PrefillFit fit = calibrate_prefill(cases, catalog, opts, kMaxFitClients, 4, only_generations);
  if (fit.fit_rows == 0)
    throw InputError("--dataset", fmt::format("'{}' has no TTFT rows at 1 to {} clients to fit the prefill rates on",
                                              dataset, kMaxFitClients));
  const std::string basename = dataset.substr(dataset.find_last_of('/') + 1);
  std::vector<Efficiency> out = catalog.efficiencies();
  for (const auto& g : fit.generations) {
    {
      Efficiency& e = generation_entry(out, g.generation, catalog.efficiency(g.generation));
      if (prefill_param_fitted(opts, "infer_gemm_max")) e.infer_gemm_max = g.after.infer_gemm_max;
      if (prefill_param_fitted(opts, "infer_mla_prefill_eff")) e.infer_mla_prefill_eff = g.after.infer_mla_prefill_eff;
      // The block-scaled FP8 share is fitted only where opening waves measure it (calibrate_prefill).
      if (prefill_param_fitted(opts, "infer_fp8_block_share") && g.wave_rows > 0)
        e.infer_fp8_block_share = g.after.infer_fp8_block_share;
      if (prefill_param_fitted(opts, "infer_fp8_block_triton_share") && g.triton_rows > 0)
        e.infer_fp8_block_triton_share = g.after.infer_fp8_block_triton_share;
      e.infer_prefill_fitted_on = fmt::format(
          "{}: {} TTFT rows at 1-{} clients, jointly with each engine's front end, and {} p99 TTFTs of disaggregated "
          "runs whose opening wave measures the prefill pool ({} other TTFT figures and every median above {} clients "
          "held out){}",
          basename, g.rows - g.wave_rows, kMaxFitClients, g.wave_rows, fit.held_out_rows, kMaxFitClients,
          g.triton_rows > 0 && prefill_param_fitted(opts, "infer_fp8_block_triton_share")
              ? fmt::format("; infer_fp8_block_triton_share on the {} of them whose recipes run SGLang's Triton "
                            "block-FP8 kernel",
                            g.triton_rows)
              : std::string());
      e.infer_prefill_fitted_date = today_utc();
      e.infer_prefill_method = "gpuplan calibrate --inference --prefill: alternating fit, each engine's front end the "
                               "median of measured - bare predicted TTFT, each generation's rates by coordinate descent "
                               "on the weighted mean of min(2, |log(pred/reported)|), log-prior pull to the training fit";
    }
  }
  if (common.json) {
    nlohmann::json jg = nlohmann::json::array(), je = nlohmann::json::array();
    for (const auto& g : fit.generations) {
      nlohmann::json one = generation_fit_json(g, {{"infer_gemm_max", g.after.infer_gemm_max},
                                                   {"infer_mla_prefill_eff", g.after.infer_mla_prefill_eff},
                                                   {"infer_fp8_block_share", g.after.infer_fp8_block_share},
                                                   {"infer_fp8_block_triton_share", g.after.infer_fp8_block_triton_share}});
      one["training"] = {{"gemm_max", g.before.gemm_max}, {"attention_eff", g.before.attention_eff}};
      one["wave_rows"] = g.wave_rows;
      one["triton_rows"] = g.triton_rows;
      jg.push_back(std::move(one));
    }
    for (const auto& f : fit.engines)
      je.push_back({{"engine", f.after.name}, {"fit_rows", f.fit_rows},
                    {"request_overhead_s_before", f.before.request_overhead_s},
                    {"request_overhead_s", f.after.request_overhead_s},
                    {"median_error_before", f.median_ape_before / 100}, {"median_error", f.median_ape_after / 100}});
    print_json("calibrate", {{"dataset", dataset}, {"inference", true}, {"prefill", true}, {"generations", jg},
                             {"engines", je}, {"fit_rows", fit.fit_rows}, {"held_out_rows", fit.held_out_rows},
                             {"not_steady_rows", fit.not_steady_rows}, {"rows_skipped", skipped.size()}});
  } else {
    std::cout << fmt::format("Calibrated the prefill rates on {}: {} TTFT rows at 1-{} clients ({} beyond any steady "
                             "state counted, not fitted) and {} p99 TTFTs of opening waves; {} TTFT figures held out\n\n",
                             dataset, fit.fit_rows, kMaxFitClients, fit.not_steady_rows, fit.wave_rows,
                             fit.held_out_rows);
    std::cout << fmt::format("{:<16} {:>5} {:>18} {:>22} {:>10} {:>13}  {}\n", "generation", "rows",
                             "gemm_max (train)", "mla_prefill (train att)", "fp8_block", "fp8_b. triton",
                             "median APE before -> after");
    const auto value = [](double v) { return v > 0 ? fmt::format("{:.3f}", v) : std::string("-"); };
    for (const auto& g : fit.generations)
      std::cout << fmt::format("{:<16} {:>5} {:>8} ({:.3f}) {:>12} ({:.3f}) {:>10} {:>13}  {:.1f}% -> {:.1f}%\n",
                               g.generation, g.rows, value(g.after.infer_gemm_max), g.before.gemm_max,
                               value(g.after.infer_mla_prefill_eff), g.before.attention_eff,
                               value(g.after.infer_fp8_block_share),
                               g.triton_rows > 0 ? value(g.after.infer_fp8_block_triton_share) : std::string("-"),
                               g.median_ape_before, g.median_ape_after);
    std::cout << fmt::format("\n{:<22} {:>5} {:>22}  {}\n", "engine", "rows", "front end s (catalog)",
                             "median APE before -> after");
    for (const auto& f : fit.engines)
      std::cout << fmt::format("{:<22} {:>5} {:>9.4f} ({:.4f})        {:.1f}% -> {:.1f}%\n", f.after.name, f.fit_rows,
                               f.after.request_overhead_s, f.before.request_overhead_s, f.median_ape_before,
                               f.median_ape_after);
    std::cout << "(front ends printed, not written: `calibrate --engines` writes them at the rates written here)\n";
  }
  write_efficiency_file(write_path, out, command_args, common.json);
  return kExitOk;
}

// calibrate --bands: error bands from held-out residuals (training: leave-one-source-family-out
// fits; serving: files the serving fit never saw), written as data/catalog/error_bands.yaml.
void calibrate_bands_cli(const CommonOptions& common, const Catalog& catalog, const std::string& dataset,
                         const std::vector<TrainingCase>& cases, const std::vector<std::string>& serving,
                         const std::string& write_path, const CalibrationOptions& opts) {
  std::vector<HeldOutResidual> unmeasured;  // rows whose generation no other family measures
  std::vector<HeldOutResidual> held = training_held_out_residuals(cases, opts, unmeasured);
  std::vector<HeldOutResidual> prior = training_prior_residuals(cases);
  const std::string train_file = dataset.substr(dataset.find_last_of('/') + 1);
  for (auto* v : {&held, &unmeasured, &prior})
    for (auto& h : *v) h.file = train_file;
  std::set<BandCell> measured;
  for (const auto& c : cases) measured.insert({band_kind_of(c), c.generation});
  std::vector<double> ape, ape_all;
  for (const auto& h : held) ape.push_back(100.0 * std::abs(std::exp(-h.log_ratio) - 1.0));
  ape_all = ape;
  for (const auto& h : unmeasured) ape_all.push_back(100.0 * std::abs(std::exp(-h.log_ratio) - 1.0));
  const ErrorSummary train_summary = summarize(ape), train_all = summarize(ape_all);
  std::string fitted_on = fmt::format("{} ({} rows, leave-one-source-family-out)",
                                      dataset.substr(dataset.find_last_of('/') + 1), cases.size());
  for (const auto& path : serving) {
    const CsvTable t = read_csv_file(path, "--serving");
    const bool inferencex = is_inferencex_schema(t);
    if (!inferencex && !is_inference_schema(t))
      throw InputError("--serving", "'" + path + "' has neither the inference.csv nor the inferencex-deepseek-r1.csv schema");
    std::vector<SkippedRow> skipped;
    const auto sc = inferencex ? map_inferencex_cases(t, catalog, skipped) : map_inference_cases(t, catalog, skipped);
    for (const auto& c : sc) measured.insert({band_kind_of(c), c.generation});
    const std::string file = path.substr(path.find_last_of('/') + 1);
    for (auto& h : serving_residuals(sc)) {
      h.file = file;
      held.push_back(std::move(h));
    }
    for (auto& h : serving_prior_residuals(sc)) {
      h.file = file;
      prior.push_back(std::move(h));
    }
    fitted_on += fmt::format("; {} ({} rows, not seen by the serving fit)", path.substr(path.find_last_of('/') + 1),
                             sc.size());
  }
  BandFitOptions bo;
  bo.fitted_on = fitted_on;
  bo.fitted_date = today_utc();
  const std::vector<BandCell> cells(measured.begin(), measured.end());
  const auto bands = fit_error_bands(held, prior, bo, cells);
  const auto in_sample = band_coverage(held, bands);
  const auto lofo = band_coverage_lofo(held, prior, bo, cells);
  if (common.json) {
    nlohmann::json jb = nlohmann::json::array(), jc;
    for (const auto& b : bands)
      jb.push_back({{"kind", b.kind}, {"generation", b.generation}, {"low_log", b.low_log}, {"high_log", b.high_log},
                    {"low_pct", 100 * (std::exp(b.low_log) - 1)}, {"high_pct", 100 * (std::exp(b.high_log) - 1)},
                    {"rows", b.rows}, {"families", b.families}});
    auto coverage_json = [](const std::map<std::string, Coverage>& held_out, const std::map<std::string, Coverage>& in) {
      nlohmann::json j = nlohmann::json::object();
      for (const auto& [k, c] : held_out)
        j[k] = {{"rows", c.rows}, {"inside", c.inside}, {"share", c.share()},
                {"in_sample_share", in.count(k) ? in.at(k).share() : 0.0}};
      return j;
    };
    jc = coverage_json(lofo.by_kind, in_sample.by_kind);
    nlohmann::json jf = nlohmann::json::object();
    for (const auto& [file, m] : lofo.by_file)
      jf[file] = coverage_json(m, in_sample.by_file.count(file) ? in_sample.by_file.at(file)
                                                                : std::map<std::string, Coverage>{});
    print_json("calibrate", {{"dataset", dataset}, {"bands", jb}, {"coverage_lofo", jc},
                             {"coverage_lofo_by_file", jf},
                             {"training_held_out", {{"rows", train_summary.rows},
                                                    {"median_ape_pct", train_summary.median_ape_pct},
                                                    {"p90_ape_pct", train_summary.p90_ape_pct}}},
                             {"training_held_out_with_unmeasured_generations",
                              {{"rows", train_all.rows}, {"median_ape_pct", train_all.median_ape_pct},
                               {"p90_ape_pct", train_all.p90_ape_pct}}}});
  } else {
    std::cout << fmt::format("Error bands (nominal 80%) from {} held-out residuals.\nTraining rows held out by source "
                             "family: median {:.1f}%, p90 {:.1f}% ({} rows whose generation other families measure); "
                             "with the {} rows of generations only the held-out family measures (priors): median "
                             "{:.1f}%, p90 {:.1f}%\n\n",
                             held.size(), train_summary.median_ape_pct, train_summary.p90_ape_pct, train_summary.rows,
                             unmeasured.size(), train_all.median_ape_pct, train_all.p90_ape_pct);
    std::cout << fmt::format("{:<34} {:<12} {:>8} {:>8} {:>6} {:>9}\n", "kind", "generation", "low", "high", "rows",
                             "families");
    for (const auto& b : bands)
      std::cout << fmt::format("{:<34} {:<12} {:>+7.1f}% {:>+7.1f}% {:>6} {:>9}\n", b.kind, b.generation,
                               100 * (std::exp(b.low_log) - 1), 100 * (std::exp(b.high_log) - 1), b.rows, b.families);
    std::cout << "\nCoverage of the bands (share of rows inside), each source family against bands fitted without it:\n";
    for (const auto& [k, c] : lofo.by_kind)
      std::cout << fmt::format("  {:<34} {:>5.1f}%  of {:>5} rows   (in-sample {:.1f}%)\n", k, 100 * c.share(), c.rows,
                               in_sample.by_kind.count(k) ? 100 * in_sample.by_kind.at(k).share() : 0.0);
    std::cout << "By shared file:\n";
    for (const auto& [file, m] : lofo.by_file)
      for (const auto& [k, c] : m) {
        const auto f = in_sample.by_file.find(file);
        const double in = f != in_sample.by_file.end() && f->second.count(k) ? f->second.at(k).share() : 0.0;
        std::cout << fmt::format("  {:<34} {:>5.1f}%  of {:>5} rows   (in-sample {:.1f}%)\n",
                                 k == "all" ? file : "  " + k, 100 * c.share(), c.rows, 100 * in);
      }
  }
  if (!write_path.empty()) {
    std::ofstream f(write_path);
    if (!f) throw InputError("--write-bands", "cannot write '" + write_path + "'");
    // The command that wrote the file, with the files it read (their names, not the paths).
    const auto base = [](const std::string& path) { return path.substr(path.find_last_of('/') + 1); };
    std::string command = "gpuplan calibrate --bands --dataset " + base(dataset);
    for (const auto& path : serving) command += " --serving " + base(path);
    const std::string header =
        "Error bands per prediction kind and accelerator generation (src/catalog/error_band.h):\n"
        "measured/predicted lies in [exp(low_log), exp(high_log)] for a nominal 80% of\n"
        "rows no fit saw; rules in docs/training-model.md (Error bands). Written by\n  " +
        command + " --write-bands ...";
    f << error_bands_to_yaml(bands, header);
    if (!common.json) std::cout << "Wrote " << write_path << "\n";
  }
}


// calibrate --engines: each serving engine's front-end latency and the MTP acceptance
// (data/catalog/serving_engines.yaml) on an InferenceX-schema file (calibrate_engines: low-concurrency
// TTFT for the front ends, the MTP points for the acceptance; the other rows held out).
int calibrate_engines_cli(const CommonOptions& common, const std::string& dataset, const std::string& write_path,
                          const std::vector<std::string>& command_args, const std::vector<std::string>& fit_sources,
                          bool moe_gemm_waves) {
  const Catalog catalog = load_catalog(common);
  const CsvTable table = read_csv_file(dataset, "--dataset");
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
  if (host_fit) moe_fits = calibrate_engine_moe_gemm(cases, catalog);
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
  // Reported, not written: the fits absorb the closed-loop runs' warm-up tail and over-predict TPOT,
  // so the catalog keeps every engine at 1 (docs/inference-model.md, "Closed-loop bursts").
  for (const auto& f : moe_fits) {
    moe_j.push_back({{"engine", f.after.name}, {"fit_rows", f.fit_rows}, {"held_out_rows", f.held_out_rows},
                 {"moe_gemm_eff_before", f.before.moe_gemm_eff}, {"moe_gemm_eff", f.after.moe_gemm_eff},
                 {"median_error_before", f.median_ape_before / 100}, {"median_error", f.median_ape_after / 100}});
    if (!common.json)
      std::cout << fmt::format("{:<22} {:>5} {:>9}  MoE GEMM efficiency share {:.2f} -> {:.2f} (MoE TTFT+TPOT at <= 8 "
                               "clients)  {:>6.1f}% -> {:.1f}%\n",
                               f.after.name, f.fit_rows, f.held_out_rows, f.before.moe_gemm_eff, f.after.moe_gemm_eff,
                               f.median_ape_before, f.median_ape_after);
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
    std::cout << "(MoE GEMM efficiency shares reported, not written: docs/inference-model.md, Closed-loop bursts)\n";
  if (!common.json && !wave_fits.empty() && !moe_gemm_waves)
    std::cout << "(MoE GEMM efficiency shares on the opening waves reported, not written: --moe-gemm-waves writes "
                 "them; docs/inference-model.md, Each engine's MoE GEMM share)\n";
  if (common.json) print_json("calibrate", {{"dataset", dataset}, {"engines", j}, {"moe_gemm_eff_fits", moe_j}});
  if (!write_path.empty()) {
    check_output_file(write_path, "--write", command_args);
    std::ofstream f(write_path);
    if (!f) throw InputError("--write", "cannot write '" + write_path + "'");
    const std::string basename = dataset.substr(dataset.find_last_of('/') + 1);
    f << serving_engines_to_yaml(
        out, "Serving engines: the serving parameters kept per engine (framework) rather than per accelerator\n"
             "generation (src/catalog/serving_engine.h; docs/inference-model.md, \"Parameters of this section\").\n"
             "Entries are matched in this order against a framework string (each `match` alternative: words that\n"
             "must all occur), so the specific engines come before the generic ones; `default` serves any other.\n"
             "request_overhead_s: the front end's latency per request before prefill, fitted by calibrate_engines()\n"
             "  (src/validate/calibrate.h) as the median of measured - predicted TTFT of each engine's InferenceX\n"
             "  DeepSeek-R1 points at concurrency <= 8 (no queue, no wave); the points above 8 are held out.\n"
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
             "  (1 when unset: TensorRT-LLM's CUTLASS / trtllm-gen MoE kernels, whose rows the generation's\n"
             "  efficiencies were fitted on); fitted by calibrate_engine_moe_gemm() on the engine's MoE TTFT rows at\n"
             "  <= 8 closed-loop clients of an inference-schema file (`calibrate --engines --dataset FILE`), the rows\n"
             "  above 8 clients held out. Per engine, never per model. It applies to a step's prompt rows (decode\n"
             "  rows at the reference's). On an InferenceX file `calibrate --engines` also fits it on each non-\n"
             "  TensorRT-LLM engine's prefill pools' opening waves (p99 TTFT; Dynamo + X rows count for X), reported\n"
             "  and written only with --moe-gemm-waves: not kept (docs/inference-model.md, Each engine's MoE GEMM share).\n"
             "prefill_separate: the engine runs prompts in forwards of their own that the running decodes wait for\n"
             "  (SGLang's scheduler alternates prefill and decode batches unless --enable-mixed-chunk; ATOM likewise);\n"
             "  unset: prompts ride in the decodes' forward (inflight batching). A fact of the scheduler, not fitted.\n"
             "Written by `gpuplan calibrate --engines --dataset " + basename + " --write ...`.");
    if (!common.json) std::cout << "Wrote " << write_path << "\n";
  }
  return kExitOk;
}

}  // namespace

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
  std::vector<std::string> holdouts, serving;
  std::string bands_path, generations, fit_sources, params;
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
  app.add_option("--write-bands", bands_path, "--bands: write the bands as catalog YAML (data/catalog/error_bands.yaml)");
  app.add_option("--rounds", opts.rounds, "Coordinate-descent sweeps")->check(CLI::Range(1, 50));
  app.add_option("--prior-weight", opts.prior_weight, "Pull towards the starting values")
      ->check(CLI::Range(0.0, 10.0));
  if (int rc = parse_args(app, argc, argv); rc >= 0) return rc;
  return run_guarded([&] {
    if (engines) {
      if (inference || bands) throw InputError("--engines", "cannot be combined with --inference or --bands");
      return calibrate_engines_cli(common, dataset, write_path, command_args,
                                   fit_sources.empty() ? std::vector<std::string>{} : split_list(fit_sources),
                                   moe_gemm_waves);
    }
    if (moe_gemm_waves) throw InputError("--moe-gemm-waves", "applies with --engines");
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
        for (const auto& m : opts.metrics)
          if (m != "tpot_ms" && m != "ttft_ms" && m != "tokens_per_sec_total" && m != "tokens_per_sec_per_gpu" &&
              m != "tokens_per_sec_per_user")
            throw InputError("--metrics", "unknown metric '" + m + "' (tpot_ms, ttft_ms, tokens_per_sec_total, "
                                          "tokens_per_sec_per_gpu, tokens_per_sec_per_user or all)");
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
      calibrate_bands_cli(common, catalog, dataset, cases, serving, bands_path, opts);
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
