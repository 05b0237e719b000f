// gpuplan validate: score the performance models against published measurements.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>
#include <ostream>

#include "api/validate.h"
#include "api/serving_engine.h"
#include "api/text.h"
#include "core/csv.h"
#include "core/error.h"
#include "validate/inference_cases.h"
#include "validate/open_loop_cases.h"
#include "validate/scenario_pairs.h"
#include "validate/training_cases.h"
#include "validate/validation.h"

namespace gpuplan::api {

namespace {

nlohmann::json summary_json(const ErrorSummary& s) {
  return {{"rows", s.rows}, {"median_ape_pct", s.median_ape_pct}, {"p90_ape_pct", s.p90_ape_pct}};
}

void print_text(std::ostream& os, const ValidationReport& rep, bool verbose) {
  const auto flagged = std::count_if(rep.skipped.begin(), rep.skipped.end(), [](const SkippedRow& s) { return !s.flag.empty(); });
  os << fmt::format("Validation on {}: {} rows scored, {} skipped{}\n", rep.dataset, rep.rows.size(),
                    rep.skipped.size(),
                    flagged ? fmt::format(" ({} flagged: the row contradicts itself)", flagged) : std::string());
  os << fmt::format("  median APE {:.1f}%   p90 APE {:.1f}%\n\n", rep.overall.median_ape_pct,
                    rep.overall.p90_ape_pct);
  for (const auto& [kind, groups] : rep.groups) {
    os << fmt::format("By {}:\n", kind);
    for (const auto& [name, s] : groups)
      os << fmt::format("  {:<28} {:>4} rows  median {:>5.1f}%  p90 {:>5.1f}%\n", name, s.rows,
                        s.median_ape_pct, s.p90_ape_pct);
    os << "\n";
  }
  if (verbose) {
    os << fmt::format("{:>4}  {:<18} {:<28} {:<14} {:>5} {:<22} {:>10} {:>10} {:>6}\n", "row", "source",
                      "model", "gpu", "gpus", "metric", "reported", "predicted", "APE%");
    for (const auto& r : rep.rows)
      os << fmt::format("{:>4}  {:<18} {:<28} {:<14} {:>5} {:<22} {:>10.4g} {:>10.4g} {:>6.1f}\n", r.row,
                        r.source_id.substr(0, 18), r.model.substr(0, 28), r.gpu.substr(0, 14), r.num_gpus,
                        r.metric, r.reported, r.predicted, r.ape_pct);
    os << "\n";
  }
  {
    // The worst rows, each with the command that replays it.
    std::vector<const ScoredRow*> worst;
    for (const auto& r : rep.rows)
      if (!r.command.empty()) worst.push_back(&r);
    std::sort(worst.begin(), worst.end(), [](const ScoredRow* a, const ScoredRow* b) { return a->ape_pct > b->ape_pct; });
    if (worst.size() > 5) worst.resize(5);
    if (!worst.empty()) os << "Worst rows (each replays as its command; rows count the data rows from 0):\n";
    for (const ScoredRow* r : worst)
      os << fmt::format("  row {} {} {}: reported {:.4g}, predicted {:.4g} ({:.1f}%)\n    {}\n", r->row, r->model,
                        r->metric, r->reported, r->predicted, r->ape_pct, r->command);
    if (!worst.empty()) os << "\n";
  }
  if (!rep.coverage.empty()) {
    os << fmt::format("Rows of {} inside their error band (nominal 80%):\n",
                      rep.dataset.substr(rep.dataset.find_last_of('/') + 1));
    for (const auto& [kind, c] : rep.coverage)
      os << fmt::format("  {:<34} {:>5.1f}%  ({} of {})\n", kind, 100 * c.share(), c.inside, c.rows);
    // Rows off the ground the bands were fitted on: their bands are widened, and why (the commonest reasons).
    std::map<std::string, size_t> why;
    size_t off = 0;
    for (const auto& r : rep.rows) {
      off += r.band.widened_by.empty() ? 0 : 1;
      for (const auto& w : r.band.widened_by) ++why[w];
    }
    if (off > 0) {
      std::vector<std::pair<std::string, size_t>> top(why.begin(), why.end());
      std::stable_sort(top.begin(), top.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
      os << fmt::format("  {} rows lie off the ground the bands were fitted on; their bands are widened:\n", off);
      for (size_t i = 0; i < top.size() && i < 8; ++i)
        os << fmt::format("    {:>5}  {}\n", top[i].second, top[i].first);
      if (top.size() > 8) os << fmt::format("    ({} other reasons; --json gives each row's)\n", top.size() - 8);
    }
    os << "\n";
  }
  if (!rep.skipped.empty()) {
    os << "Skip reasons:\n";
    for (const auto& [why, n] : skip_reason_counts(rep.skipped)) os << fmt::format("  {:>4}  {}\n", n, why);
    os << "Skipped rows (data rows from 0):\n";
    for (const auto& s : rep.skipped) os << fmt::format("  row {}: {}\n", s.row, s.reason);
  }
}

}  // namespace

InputError nothing_scored(const std::string& dataset, size_t rows, const std::string& first_skip_reason) {
  std::string msg = fmt::format("no row of '{}' could be scored ({} data rows", dataset, rows);
  msg += first_skip_reason.empty() ? ")" : fmt::format("; the first skipped: {})", first_skip_reason);
  return InputError("--dataset", msg);
}

void add_validate_options(CLI::App& app, ValidateRequest& req) {
  app.description("Score gpuplan's predictions against published measurements. Reads a CSV in the schema of "
               "shared/data/benchmarks/training.csv, predicts each row's reported metric for its exact "
               "configuration, and reports per-row and summary errors.");
  app.add_option("--dataset", req.dataset, "CSV file of published measurements")->required();
  app.add_flag("--rows,-v", req.verbose, "Print every scored row in the text output");
}

int validate(const Catalog& catalog, ValidateRequest req, Output& output) {

  const CsvTable table = read_csv_file(req.dataset, "--dataset");
  const bool inferencex = !is_training_schema(table) && is_inferencex_schema(table);
  const bool inference = !is_training_schema(table) && (inferencex || is_inference_schema(table));
  if (!is_training_schema(table) && !inference)
    throw InputError("--dataset", "unrecognised CSV schema: expected the columns of training.csv "
                                  "(reported_metric, tp, pp, gbs, ...) or of inference.csv (metric, isl, osl, "
                                  "concurrency_or_batch, scenario, value, ...) or of inferencex-deepseek-r1.csv (disaggregated, "
                                  "decode_tp, output_tok_s_per_gpu, median_tpot_ms, ...)");
  // Map first, then validate: the rows the mapping skips must be in `skipped` before it is passed on
  // (an argument list's evaluation order is unspecified).
  std::vector<SkippedRow> skipped;
  ValidationReport rep;
  std::optional<OpenLoopValidation> open_loop;  // serving rows under Poisson arrivals (open_loop_cases.h)
  if (inference) {
    auto cases = inferencex ? map_inferencex_cases(table, catalog, skipped)
                            : map_inference_cases(table, catalog, skipped);
    if (!inferencex) {
      // The odds as `size` and `infer --requests-per-s` draw them: the catalog's bands and correlations.
      OpenLoopOddsInputs odds;
      odds.bands = &catalog.error_bands();
      odds.band_engine = [&catalog](const std::string& framework) { return band_engine(catalog, framework); };
      odds.correlation = catalog.band_correlation();
      open_loop = validate_open_loop(table, cases, skipped, odds, &catalog);
    }
    rep = validate_inference(std::move(cases), skipped, req.dataset, &catalog);
  } else {
    auto cases = map_training_cases(table, catalog, skipped);
    rep = validate_training(std::move(cases), skipped, req.dataset);
  }
  if (rep.rows.empty())
    throw nothing_scored(req.dataset, table.rows.size(), rep.skipped.empty() ? "" : rep.skipped.front().reason);
  // Each row's framework as the bands record engines: the serving engine entry it names (band_engine).
  for (auto& r : rep.rows) r.band_question.engine = band_engine(catalog, r.band_question.engine);
  apply_bands(rep, catalog.error_bands());
  if (output.json()) {
    nlohmann::json rows = nlohmann::json::array(), skip = nlohmann::json::array();
    for (const auto& r : rep.rows)
      rows.push_back({{"row", r.row}, {"source_id", r.source_id}, {"model", r.model}, {"gpu", r.gpu},
                      {"accelerator", r.accelerator}, {"system", r.system}, {"num_gpus", r.num_gpus},
                      {"precision", r.precision}, {"plan", r.plan}, {"metric", r.metric},
                      {"reported", r.reported}, {"predicted", r.predicted}, {"ape_pct", r.ape_pct},
                      {"assumptions", r.assumptions},
                      {"command", r.command}, {"command_field", r.command_field},
                      {"command_scale", r.command_scale},
                      {"low", r.band.low}, {"high", r.band.high}, {"in_band", r.in_band},
                      {"basis", {{"kind", r.band.kind}, {"generation", r.band.generation},
                                 {"rows", r.band.rows}, {"families", r.band.families},
                                 {"widened_by", r.band.widened_by}}}});
    for (const auto& s : rep.skipped) {
      skip.push_back({{"row", s.row}, {"reason", s.reason}});
      if (!s.flag.empty()) skip.back()["flag"] = s.flag;
    }
    nlohmann::json groups, coverage = nlohmann::json::object(), reasons = nlohmann::json::object();
    for (const auto& [k, c] : rep.coverage)
      coverage[k] = {{"rows", c.rows}, {"inside", c.inside}, {"share", c.share()}};
    for (const auto& [why, n] : skip_reason_counts(rep.skipped)) reasons[why] = n;
    // The same counts under the shared file's name, as calibrate --bands reports coverage per file.
    nlohmann::json by_file = nlohmann::json::object();
    by_file[req.dataset.substr(req.dataset.find_last_of('/') + 1)] = coverage;
    for (const auto& [kind, m] : rep.groups)
      for (const auto& [name, s] : m) groups[kind][name] = summary_json(s);
    nlohmann::json doc = {{"dataset", req.dataset},
                            {"rows_scored", rep.rows.size()},
                            {"rows_skipped", rep.skipped.size()},
                            {"rows_flagged", std::count_if(rep.skipped.begin(), rep.skipped.end(),
                                                           [](const SkippedRow& s) { return !s.flag.empty(); })},
                            {"median_ape_pct", rep.overall.median_ape_pct},
                            {"p90_ape_pct", rep.overall.p90_ape_pct},
                            {"groups", groups},
                            {"coverage", coverage},
                            {"coverage_by_file", by_file},
                            {"skip_reasons", reasons},
                            {"rows", rows},
                            {"skipped", skip}};
    if (open_loop) doc["open_loop"] = open_loop_json(*open_loop);
    if (inference && !inferencex) doc["scenario_pairs"] = scenario_pairs_json(scenario_pairs(table, rep.rows));
    output.emit("validate", std::move(doc));
  } else {
    print_text(output.os(), rep, req.verbose);
    if (open_loop) print_open_loop_text(output.os(), *open_loop);
    if (inference && !inferencex) print_scenario_pairs_text(output.os(), scenario_pairs(table, rep.rows));
  }
  return kExitOk;
}


}  // namespace gpuplan::api
