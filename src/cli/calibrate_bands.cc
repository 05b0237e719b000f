// gpuplan calibrate --bands: error bands from held-out residuals.
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

}  // namespace gpuplan::cli::calibrate_detail
