// gpuplan calibrate --inference: the serving parameters, the MLA decode rate, the prefill rates.
#include <fmt/format.h>
#include <fmt/ranges.h>

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
#include "core/suggest.h"
#include "catalog/serving_engine.h"
#include "validate/band_fit.h"
#include "validate/calibrate.h"
#include "validate/held_out.h"
#include "validate/inference_cases.h"
#include "validate/training_cases.h"
#include "validate/validation.h"
#include "cli/calibrate_parts.h"

namespace gpuplan::cli::calibrate_detail {

namespace {

// Each generation --generation names must be one the catalog knows and one some row of the dataset is of.
void check_fit_generations(const Catalog& catalog, const std::vector<InferenceCase>& rows, const std::string& dataset,
                           const std::vector<std::string>& only_generations) {
  std::set<std::string> known, present;
  for (const auto& a : catalog.accelerators()) known.insert(a.generation);
  for (const auto& c : rows) present.insert(c.generation);
  for (const auto& g : only_generations) {
    if (!known.count(g))
      throw InputError("--generation", fmt::format("unknown generation '{}'; known generations: {}", echo_name(g),
                                                   fmt::join(known, ", ")));
    if (!present.count(g))
      throw InputError("--generation",
                       fmt::format("no row of '{}' is of generation '{}' (its rows' generations: {})", dataset, g,
                                   present.empty() ? "none" : fmt::format("{}", fmt::join(present, ", "))));
  }
}

}  // namespace

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
  check_fit_generations(catalog, all, dataset, only_generations);
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
  check_fit_generations(catalog, all, dataset, only_generations);
  std::vector<InferenceCase> cases;
  for (auto& c : all)
    if (only_generations.empty() ||
        std::find(only_generations.begin(), only_generations.end(), c.generation) != only_generations.end())
      cases.push_back(std::move(c));
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
  check_fit_generations(catalog, cases, dataset, only_generations);
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

}  // namespace gpuplan::cli::calibrate_detail
