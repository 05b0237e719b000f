// gpuplan calibrate --bands: error bands from held-out residuals.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include <chrono>
#include <cmath>
#include <ctime>
#include <fstream>
#include <iostream>
#include <iterator>
#include <map>
#include <set>

#include "cli/commands.h"
#include "api/serving_engine.h"
#include "api/validate.h"
#include "cli/common.h"
#include "core/csv.h"
#include "core/error.h"
#include "catalog/serving_engine.h"
#include "validate/band_fit.h"
#include "validate/band_ground.h"
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
                         const std::vector<std::string>& training_extra, const std::vector<std::string>& new_ground,
                         const std::string& write_path,
                         const CalibrationOptions& opts) {
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
  // A further file's rows, held out by construction (no fit saw them): its residuals and their priors.
  auto add_file = [&](const std::string& path, std::vector<HeldOutResidual> rs, std::vector<HeldOutResidual> rs_prior,
                      size_t rows, const char* unseen_by) {
    const std::string file = path.substr(path.find_last_of('/') + 1);
    for (auto* v : {&rs, &rs_prior})
      for (auto& h : *v) h.file = file;
    held.insert(held.end(), std::make_move_iterator(rs.begin()), std::make_move_iterator(rs.end()));
    prior.insert(prior.end(), std::make_move_iterator(rs_prior.begin()), std::make_move_iterator(rs_prior.end()));
    fitted_on += fmt::format("; {} ({} rows, not seen by the {} fit)", file, rows, unseen_by);
  };
  for (const auto& path : serving) {
    const CsvTable t = read_csv_file(path, "--serving");
    const bool inferencex = is_inferencex_schema(t);
    if (!inferencex && !is_inference_schema(t))
      throw InputError("--serving", "'" + path + "' has neither the inference.csv nor the inferencex-deepseek-r1.csv schema");
    std::vector<SkippedRow> skipped;
    const auto sc = inferencex ? map_inferencex_cases(t, catalog, skipped) : map_inference_cases(t, catalog, skipped);
    for (const auto& c : sc) measured.insert({band_kind_of(c), c.generation});
    add_file(path, serving_residuals(sc), serving_prior_residuals(sc), sc.size(), "serving");
  }
  // Training rows of other files: the efficiency fit never saw them, so the fitted model predicts them
  // (held out as the serving files are); their source families count as the training file's do.
  for (const auto& path : training_extra) {
    const CsvTable t = read_csv_file(path, "--training");
    if (!is_training_schema(t)) throw InputError("--training", "'" + path + "' does not have the training.csv schema");
    std::vector<SkippedRow> skipped;
    const auto tc = map_training_cases(t, catalog, skipped);
    for (const auto& c : tc) measured.insert({band_kind_of(c), c.generation});
    add_file(path, training_residuals(tc), training_prior_residuals(tc), tc.size(), "efficiency");
  }
  // Rows of sources the model was neither fitted nor built on: the model as shipped predicts them.
  std::vector<HeldOutResidual> unseen_residuals;
  for (const auto& path : new_ground) {
    const CsvTable t = read_csv_file(path, "--new-ground");
    const std::string file = path.substr(path.find_last_of('/') + 1);
    std::vector<SkippedRow> skipped;
    std::vector<HeldOutResidual> rs;
    size_t rows = 0;
    if (is_training_schema(t)) {
      const auto tc = map_training_cases(t, catalog, skipped);
      rows = tc.size();
      rs = training_residuals(tc);
    } else if (is_inferencex_schema(t) || is_inference_schema(t)) {
      const auto sc = is_inferencex_schema(t) ? map_inferencex_cases(t, catalog, skipped)
                                              : map_inference_cases(t, catalog, skipped);
      rows = sc.size();
      rs = serving_residuals(sc);
    } else {
      throw InputError("--new-ground", "'" + path + "' has none of the training.csv, inference.csv and "
                                       "inferencex-deepseek-r1.csv schemas");
    }
    for (auto& h : rs) {
      h.file = file;
      unseen_residuals.push_back(std::move(h));
    }
    fitted_on += fmt::format("; new ground: {} ({} rows, sources the model was neither fitted nor built on)", file,
                             rows);
  }
  // Each row's engine as the bands record it: the serving engine entry its framework names.
  std::map<std::string, std::string> engine_names;
  for (auto* v : {&held, &unmeasured, &prior, &unseen_residuals})
    for (auto& h : *v)
      if (!h.engine.empty()) {
        auto it = engine_names.find(h.engine);
        if (it == engine_names.end()) it = engine_names.emplace(h.engine, api::band_engine(catalog, h.engine)).first;
        h.engine = it->second;
      }
  BandFitOptions bo;
  bo.fitted_on = fitted_on;
  bo.fitted_date = today_utc();
  const std::vector<BandCell> cells(measured.begin(), measured.end());
  auto bands = fit_error_bands(held, prior, bo, cells);
  // Ground: every row the fits and bands saw (the prior residuals hold each row once, with its attributes).
  attach_ground(bands, prior, min_band_rows(bo.nominal));
  const auto in_sample = band_coverage(held, bands);  // known ground: rows of sources the bands were fitted on
  // New ground: each source family left out of the band fit (training rows: of the efficiency fit too);
  // new engine: each serving engine left out (every row it ran, from whichever source); new accelerator:
  // each accelerator left out (every row measured on it).
  std::vector<NewGroundRow> fresh = new_ground_rows(held, prior, bo, cells);
  const std::vector<NewGroundRow> fresh_engine = new_ground_rows(held, prior, bo, cells, BandHoldOut::engine);
  const std::vector<NewGroundRow> fresh_accel = new_ground_rows(held, prior, bo, cells, BandHoldOut::accelerator);
  // Unseen sources: rows of sources the model was neither fitted nor built on, against the bands fitted on
  // every row above; the source widening is at least what they need.
  const std::vector<NewGroundRow> unseen = unseen_source_rows(unseen_residuals, bands);
  const size_t source_rows = fresh.size();
  fresh.insert(fresh.end(), fresh_engine.begin(), fresh_engine.end());
  fresh.insert(fresh.end(), fresh_accel.begin(), fresh_accel.end());
  fresh.insert(fresh.end(), unseen.begin(), unseen.end());
  const auto widening = fit_widening(fresh, bo.nominal);
  // By kind, the source families' own check; the unseen sources' is reported file by file.
  BandCoverage nested = nested_new_ground_coverage(fresh, bo.nominal);
  std::map<std::string, std::map<std::string, Coverage>> nested_unseen;  // file -> "all" and each kind
  for (const auto& path : new_ground)
    if (const auto f = nested.by_file.find(path.substr(path.find_last_of('/') + 1)); f != nested.by_file.end()) {
      for (const auto& [k, c] : f->second) {
        nested.by_kind[k].rows -= c.rows;
        nested.by_kind[k].inside -= c.inside;
      }
      nested_unseen[f->first] = f->second;
      nested.by_file.erase(f);
    }
  fresh.resize(source_rows);
  attach_widening(bands, widening);
  const auto lofo_before = new_ground_coverage(fresh, {});
  const auto lofo = new_ground_coverage(fresh, widening);
  const auto engine_before = new_ground_coverage(fresh_engine, {});
  const auto engine_after = new_ground_coverage(fresh_engine, widening);
  const auto accel_before = new_ground_coverage(fresh_accel, {});
  const auto accel_after = new_ground_coverage(fresh_accel, widening);
  const auto unseen_before = new_ground_coverage(unseen, {});
  const auto unseen_after = new_ground_coverage(unseen, widening);
  // Checks, not fitted on: a source's round or version left out whole (MLPerf-v5.0, every framework it
  // ran), and a framework release left out wherever it ran; widened as a new source.
  const auto round_after = new_ground_coverage(new_ground_rows(held, prior, bo, cells, BandHoldOut::source_id), widening);
  const auto release_after = new_ground_coverage(new_ground_rows(held, prior, bo, cells, BandHoldOut::release), widening);
  // How two systems' errors on one question move together: pairs of the held-out rows of one question on
  // two accelerators, against the bands just fitted.
  const std::vector<BandPair> pairs = band_pairs(held, bands);
  BandCorrelation correlation = fit_band_correlation(pairs, bo.nominal);
  correlation.fitted_on = fitted_on;
  correlation.fitted_date = bo.fitted_date;
  const PairCoverage pairs_fresh = pair_coverage_lofo(pairs, bo.nominal);
  auto share = [](int inside, int rows) { return rows > 0 ? double(inside) / rows : 0.0; };
  std::vector<BandPair> pairs_same, pairs_cross;
  for (const auto& p : pairs) (p.same_generation ? pairs_same : pairs_cross).push_back(p);
  std::set<std::string> engines_left_out;
  for (const auto& r : fresh_engine) engines_left_out.insert(r.row.engine);
  std::set<std::string> accelerators_left_out;
  for (const auto& r : fresh_accel) accelerators_left_out.insert(r.row.accelerator);
  auto off = off_ground_counts(fresh);
  off["engine"] = off_ground_counts(fresh_engine)["engine"];
  off["accelerator"] = off_ground_counts(fresh_accel)["accelerator"];
  std::set<std::string> held_families;
  for (const auto& h : held) held_families.insert(h.family);
  const std::string held_out_how = fmt::format(
      "each of {} source families left out in turn (training: source id up to its first '-', its rows predicted by "
      "efficiencies fitted without it; serving: source family and framework, against bands fitted without it); the "
      "widening per dimension fitted on those rows; the engine's on the rows of each of {} serving engines left out in "
      "turn ({}); the accelerator's on the rows of each of {} accelerators left out in turn ({}){}",
      held_families.size(), engines_left_out.size(), fmt::join(engines_left_out, ", "), accelerators_left_out.size(),
      fmt::join(accelerators_left_out, ", "),
      unseen.empty() ? std::string()
                     : fmt::format("; the source's at least what the {} rows of unseen sources (--new-ground) need",
                                   unseen.size()));
  auto share_of = [](const BandCoverage& c, const std::string& file, const std::string& k) {
    if (file.empty()) return c.by_kind.count(k) ? c.by_kind.at(k).share() : 0.0;
    const auto f = c.by_file.find(file);
    return f != c.by_file.end() && f->second.count(k) ? f->second.at(k).share() : 0.0;
  };
  if (common.json) {
    nlohmann::json jb = nlohmann::json::array(), jc;
    for (const auto& b : bands)
      jb.push_back({{"kind", b.kind}, {"generation", b.generation}, {"low_log", b.low_log}, {"high_log", b.high_log},
                    {"low_pct", 100 * (std::exp(b.low_log) - 1)}, {"high_pct", 100 * (std::exp(b.high_log) - 1)},
                    {"rows", b.rows}, {"families", b.families}, {"precisions", b.ground.precisions},
                    {"engines", b.ground.engines}, {"accelerators", b.ground.accelerators},
                    {"sources", b.ground.sources},
                    {"gpus_min", b.ground.gpus_min}, {"gpus_max", b.ground.gpus_max},
                    {"params_b_min", b.ground.params_b_min}, {"params_b_max", b.ground.params_b_max}});
    // New ground (widened bands), with the unwidened share and the known-ground (in-sample) share.
    auto coverage_json = [&](const std::string& file, const std::map<std::string, Coverage>& fresh_cov) {
      nlohmann::json j = nlohmann::json::object();
      for (const auto& [k, c] : fresh_cov)
        j[k] = {{"rows", c.rows}, {"inside", c.inside}, {"share", c.share()},
                {"share_unwidened", share_of(lofo_before, file, k)}, {"in_sample_share", share_of(in_sample, file, k)}};
      return j;
    };
    auto plain = [](const std::map<std::string, Coverage>& m) {
      nlohmann::json j = nlohmann::json::object();
      for (const auto& [k, c] : m) j[k] = {{"rows", c.rows}, {"inside", c.inside}, {"share", c.share()}};
      return j;
    };
    auto plain_by_file = [&](const std::map<std::string, std::map<std::string, Coverage>>& by_file) {
      nlohmann::json j = nlohmann::json::object();
      for (const auto& [file, m] : by_file) j[file] = plain(m);
      return j;
    };
    jc = coverage_json("", lofo.by_kind);
    nlohmann::json jf = nlohmann::json::object();
    for (const auto& [file, m] : lofo.by_file) jf[file] = coverage_json(file, m);
    nlohmann::json jw = nlohmann::json::object();
    for (const auto& [d, w] : widening)
      jw[d] = {{"source", w.source}, {"precision", w.precision}, {"scale", w.scale}, {"model_size", w.model_size},
               {"engine", w.engine}, {"accelerator", w.accelerator}};
    nlohmann::json joff = nlohmann::json::object();
    for (const auto& [d, n] : off) joff[d] = n;
    print_json("calibrate", {{"dataset", dataset}, {"bands", jb}, {"coverage_lofo", jc},
                             {"coverage_lofo_by_file", jf},
                             {"coverage_known_ground", {{"by_kind", plain(in_sample.by_kind)}, {"by_file", plain_by_file(in_sample.by_file)}}},
                             {"coverage_new_ground", {{"held_out", held_out_how},
                                                      {"by_kind", plain(lofo.by_kind)}, {"by_file", plain_by_file(lofo.by_file)},
                                                      {"unwidened_by_kind", plain(lofo_before.by_kind)},
                                                      {"unwidened_by_file", plain_by_file(lofo_before.by_file)},
                                                      {"nested_by_kind", plain(nested.by_kind)},
                                                      {"nested_by_file", plain_by_file(nested.by_file)},
                                                      {"rows_off_ground", joff}}},
                             {"coverage_new_engine", {{"engines", engines_left_out},
                                                      {"by_kind", plain(engine_after.by_kind)}, {"by_file", plain_by_file(engine_after.by_file)},
                                                      {"unwidened_by_kind", plain(engine_before.by_kind)},
                                                      {"unwidened_by_file", plain_by_file(engine_before.by_file)}}},
                             {"coverage_new_accelerator", {{"accelerators", accelerators_left_out},
                                                           {"by_kind", plain(accel_after.by_kind)},
                                                           {"by_file", plain_by_file(accel_after.by_file)},
                                                           {"unwidened_by_kind", plain(accel_before.by_kind)},
                                                           {"unwidened_by_file", plain_by_file(accel_before.by_file)}}},
                             {"coverage_new_round", {{"held_out", "each source id left out in turn (a source's "
                                                                  "round or version, every framework it ran)"},
                                                     {"by_kind", plain(round_after.by_kind)}, {"by_file", plain_by_file(round_after.by_file)}}},
                             {"coverage_new_release", {{"held_out", "each framework release left out in turn (every row "
                                                                    "that ran it, whichever source)"},
                                                       {"by_kind", plain(release_after.by_kind)}, {"by_file", plain_by_file(release_after.by_file)}}},
                             {"coverage_unseen_sources", {{"files", new_ground.size()},
                                                          {"by_kind", plain(unseen_after.by_kind)},
                                                          {"by_file", plain_by_file(unseen_after.by_file)},
                                                          {"unwidened_by_kind", plain(unseen_before.by_kind)},
                                                          {"unwidened_by_file", plain_by_file(unseen_before.by_file)},
                                                          {"nested_by_file", plain_by_file(nested_unseen)}}},
                             {"widening", jw},
                             {"correlation", {{"same_generation", correlation.same_generation},
                                              {"cross_generation", correlation.cross_generation},
                                              {"pairs_same", correlation.pairs_same},
                                              {"pairs_cross", correlation.pairs_cross},
                                              {"ratio_coverage_same", pair_coverage(pairs_same, correlation.same_generation)},
                                              {"ratio_coverage_cross", pair_coverage(pairs_cross, correlation.cross_generation)},
                                              {"ratio_coverage_same_independent", pair_coverage(pairs_same, 0)},
                                              {"ratio_coverage_cross_independent", pair_coverage(pairs_cross, 0)},
                                              {"ratio_coverage_same_new_ground", share(pairs_fresh.same_inside, pairs_fresh.same_rows)},
                                              {"ratio_coverage_cross_new_ground", share(pairs_fresh.cross_inside, pairs_fresh.cross_rows)},
                                              {"method", correlation.method}}},
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
    std::cout << fmt::format("{:<34} {:<16} {:>8} {:>8} {:>6} {:>9}  {}\n", "kind", "generation", "low", "high", "rows",
                             "families", "ground");
    for (const auto& b : bands)
      std::cout << fmt::format("{:<34} {:<16} {:>+7.1f}% {:>+7.1f}% {:>6} {:>9}  {}\n", b.kind, b.generation,
                               100 * (std::exp(b.low_log) - 1), 100 * (std::exp(b.high_log) - 1), b.rows, b.families,
                               b.ground.precisions.empty()
                                   ? std::string("-")
                                   : fmt::format("{}; {}-{} GPUs; {:.3g}-{:.3g}B", fmt::join(b.ground.precisions, ","),
                                                 b.ground.gpus_min, b.ground.gpus_max, b.ground.params_b_min,
                                                 b.ground.params_b_max));
    std::cout << "\nWidening off the ground (each log-edge moves out by (m - 1) x the band's half-width, m the product over "
                 "dimensions of 1 + (factor - 1) x distance; rows weighted by their source's effective sample):\n";
    for (const auto& [d, w] : widening)
      std::cout << fmt::format("  {:<10} source {:.2f}  precision {:.2f}  scale {:.2f}  model size {:.2f}  engine {:.2f}  "
                               "accelerator {:.2f}\n",
                               d, w.source, w.precision, w.scale, w.model_size, w.engine, w.accelerator);
    std::cout << fmt::format("  held out: {}\n  rows off the ground:", held_out_how);
    for (const auto& [d, n] : off) std::cout << fmt::format(" {} {}", d, n);
    std::cout << "\n\nCoverage of the 80% bands (share of rows inside): known ground (rows of the sources fitted, "
                 "bands fitted on all), new ground (each source family left out; unwidened -> widened; nested: "
                 "the widening fitted without the family too), new "
                 "engine (each serving engine left out; unwidened -> widened, of its rows), new accelerator (each "
                 "accelerator left out; likewise), and, widened, new "
                 "round (each source id left out: MLPerf-v5.0 whole) and new release (each framework release left "
                 "out wherever it ran):\n";
    auto line = [&](const std::string& label, const std::string& file, const std::string& k, const Coverage& c) {
      const auto pass_text = [&](const BandCoverage& before, const BandCoverage& after) {
        const auto& m = file.empty() ? after.by_kind
                                     : (after.by_file.count(file) ? after.by_file.at(file) : std::map<std::string, Coverage>{});
        const auto it = m.find(k);
        return it == m.end() ? std::string("-")
                             : fmt::format("{:>5.1f}% -> {:>5.1f}% of {:>5}", 100 * share_of(before, file, k),
                                           100 * it->second.share(), it->second.rows);
      };
      const std::string eng = pass_text(engine_before, engine_after);
      const std::string acc = pass_text(accel_before, accel_after);
      auto widened = [&](const BandCoverage& cov) {
        const auto& m = file.empty() ? cov.by_kind
                                     : (cov.by_file.count(file) ? cov.by_file.at(file) : std::map<std::string, Coverage>{});
        const auto it = m.find(k);
        return it == m.end() ? std::string("  -   ") : fmt::format("{:>5.1f}%", 100 * it->second.share());
      };
      std::cout << fmt::format("  {:<44} known {:>5.1f}%   new {:>5.1f}% -> {:>5.1f}% (nested {})  of {:>5} rows   "
                               "engine {}   accelerator {}   round {}  release {}\n",
                               label, 100 * share_of(in_sample, file, k), 100 * share_of(lofo_before, file, k),
                               100 * c.share(), widened(nested), c.rows, eng, acc, widened(round_after),
                               widened(release_after));
    };
    for (const auto& [k, c] : lofo.by_kind) line(k, "", k, c);
    std::cout << "By shared file:\n";
    for (const auto& [file, m] : lofo.by_file)
      for (const auto& [k, c] : m) line(k == "all" ? file : "  " + k, file, k, c);
    if (!unseen.empty()) {
      std::cout << "Unseen sources (--new-ground: neither fitted nor built on; unwidened -> widened; nested: the "
                   "widening fitted without the source family's rows):\n";
      for (const auto& [file, m] : unseen_after.by_file)
        for (const auto& [k, c] : m) {
          const auto nf = nested_unseen.find(file);
          const bool has_nested = nf != nested_unseen.end() && nf->second.count(k);
          std::cout << fmt::format("  {:<44} {:>5.1f}% -> {:>5.1f}% (nested {})  of {:>5} rows\n",
                                   k == "all" ? file : "  " + k, 100 * share_of(unseen_before, file, k),
                                   100 * c.share(),
                                   has_nested ? fmt::format("{:>5.1f}%", 100 * nf->second.at(k).share())
                                              : std::string("  -   "),
                                   c.rows);
        }
    }
    std::cout << fmt::format(
        "\nTwo systems' errors on one question (pairs of rows of one source and workload on two accelerators): "
        "correlation {:.2f} within a generation ({} pairs; ratio bands hold {:.1f}% of them, {:.1f}% if "
        "independent), {:.2f} across generations ({} pairs; {:.1f}%, {:.1f}% if independent); each source family's "
        "pairs against the correlation fitted without them: {:.1f}% within a generation, {:.1f}% across\n",
        correlation.same_generation, correlation.pairs_same, 100 * pair_coverage(pairs_same, correlation.same_generation),
        100 * pair_coverage(pairs_same, 0), correlation.cross_generation, correlation.pairs_cross,
        100 * pair_coverage(pairs_cross, correlation.cross_generation), 100 * pair_coverage(pairs_cross, 0),
        100 * share(pairs_fresh.same_inside, pairs_fresh.same_rows),
        100 * share(pairs_fresh.cross_inside, pairs_fresh.cross_rows));
  }
  if (!write_path.empty()) {
    std::ofstream f(write_path);
    if (!f) throw InputError("--write-bands", "cannot write '" + write_path + "'");
    // The command that wrote the file, with the files it read (their names, not the paths).
    const auto base = [](const std::string& path) { return path.substr(path.find_last_of('/') + 1); };
    std::string command = "gpuplan calibrate --bands --dataset " + base(dataset);
    for (const auto& path : serving) command += " --serving " + base(path);
    for (const auto& path : training_extra) command += " --training " + base(path);
    for (const auto& path : new_ground) command += " --new-ground " + base(path);
    const std::string header =
        "Error bands per prediction kind and accelerator generation (src/catalog/error_band.h):\n"
        "measured/predicted lies in [exp(low_log), exp(high_log)] for a nominal 80% of\n"
        "rows no fit saw; rules in docs/training-model.md (Error bands). Written by\n  " +
        command + " --write-bands ...";
    f << error_bands_to_yaml(bands, header, correlation);
    if (!common.json) std::cout << "Wrote " << write_path << "\n";
  }
}

}  // namespace gpuplan::cli::calibrate_detail
