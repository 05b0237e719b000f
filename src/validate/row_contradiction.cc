#include "validate/row_contradiction.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <regex>

#include "core/csv.h"
#include "core/text.h"
#include "validate/metric_name.h"

namespace gpuplan {

namespace {

bool usable(double v) { return std::isfinite(v) && v > 0 && v < 1e12; }

void set(double& slot, std::string& from, double v, const std::string& why) {
  if (slot > 0 || !usable(v)) return;
  slot = v;
  from = why;
}

}  // namespace

// The run a row reports one figure of: the rows of one source with the same model, system, layout,
// precisions, framework, lengths, load, scenario and notes' deployment are one run's figures.
std::string run_key(const CsvTable& t, size_t row) {
  std::string k;
  for (const char* col : {"source_id", "source_url_or_path", "model", "gpu", "num_gpus", "tp", "ep", "pp",
                          "precision_weights", "precision_kv", "framework", "isl", "osl", "concurrency_or_batch",
                          "scenario"})
    k += t.cell(row, col) + "|";
  const std::string notes = to_lower(t.cell(row, "notes"));
  const auto d = notes.find("disagg:");
  if (d != std::string::npos) k += notes.substr(d, notes.find("num_gpus", d) - d);
  return k;
}

// Each run's figures from its rows' values; a figure two rows of the run state differently (by more
// than 1%) is left out: those rows are not one run.
std::map<std::string, RunFigures> run_figures(const CsvTable& t) {
  std::map<std::string, std::pair<RunFigures, std::pair<bool, bool>>> acc;  // figures, (per-GPU, per-user) ambiguous
  for (size_t i = 0; i < t.rows.size(); ++i) {
    double value = 0, gpus = 0;
    if (!parse_cell_number(t.cell(i, "value"), value) || value <= 0) continue;
    if (!parse_cell_number(t.cell(i, "num_gpus"), gpus)) gpus = 0;
    RunFigures one;
    add_metric_figure(one, canonical_metric_name(t.cell(i, "metric")), value, gpus, fmt::format("row {}", i));
    auto& [f, amb] = acc[run_key(t, i)];
    const auto same = [](double a, double b) { return std::abs(a - b) <= 0.01 * std::max(a, b); };
    if (one.per_gpu > 0) {
      if (f.per_gpu > 0 && !same(f.per_gpu, one.per_gpu)) amb.first = true;
      if (f.per_gpu <= 0) f.per_gpu = one.per_gpu, f.per_gpu_from = one.per_gpu_from;
    }
    if (one.per_user > 0) {
      if (f.per_user > 0 && !same(f.per_user, one.per_user)) amb.second = true;
      if (f.per_user <= 0) f.per_user = one.per_user, f.per_user_from = one.per_user_from;
    }
  }
  std::map<std::string, RunFigures> out;
  for (auto& [k, v] : acc) {
    RunFigures f = v.first;
    if (v.second.first) f.per_gpu = 0;
    if (v.second.second) f.per_user = 0;
    out.emplace(k, std::move(f));
  }
  return out;
}

void add_metric_figure(RunFigures& f, const std::string& metric, double value, double gpus, const std::string& from) {
  if (metric == "tokens_per_sec_per_gpu") set(f.per_gpu, f.per_gpu_from, value, from);
  else if (metric == "tokens_per_sec_total" && gpus >= 1) set(f.per_gpu, f.per_gpu_from, value / gpus, from);
  else if (metric == "tokens_per_sec_per_user") set(f.per_user, f.per_user_from, value, from);
  else if (metric == "tpot_ms" && usable(value)) set(f.per_user, f.per_user_from, 1000.0 / value, from + " (1000 / TPOT)");
  else if (metric == "ttft_ms" && usable(value) && !(f.ttft_ms > 0)) f.ttft_ms = value;
}

void add_notes_figures(RunFigures& f, const std::string& notes) {
  const std::string l = to_lower(notes);
  static const std::regex per_gpu(
      R"((\d+(\.\d+)?)\s*(output\s+)?(tok|tokens)\s*/\s*s\s*(/|per)\s*gpu\b)");
  static const std::regex per_user(
      R"((\d+(\.\d+)?)\s*(output\s+)?(tok|tokens)\s*/\s*s\s*(/|per)\s*user\b)");
  static const std::regex tpot(R"(\btpot\s*[=:]?\s*(\d+(\.\d+)?)\s*ms\b)");
  static const std::regex ttft(R"(\bttft\s*[=:]?\s*(\d+(\.\d+)?)\s*ms\b)");
  std::smatch m;
  if (!(f.ttft_ms > 0) && std::regex_search(l, m, ttft) && usable(std::stod(m[1].str()))) f.ttft_ms = std::stod(m[1].str());
  if (std::regex_search(l, m, per_gpu)) set(f.per_gpu, f.per_gpu_from, std::stod(m[1].str()), "the notes' '" + m.str() + "'");
  if (std::regex_search(l, m, per_user))
    set(f.per_user, f.per_user_from, std::stod(m[1].str()), "the notes' '" + m.str() + "'");
  else if (std::regex_search(l, m, tpot) && usable(std::stod(m[1].str())))
    set(f.per_user, f.per_user_from, 1000.0 / std::stod(m[1].str()), "the notes' '" + m.str() + "' (1000 / TPOT)");
}

std::optional<std::string> figures_contradiction(const RunFigures& f, double concurrency, double gpus, double osl) {
  if (!(f.per_gpu > 0 && f.per_user > 0 && concurrency >= 1 && gpus >= 1)) return std::nullopt;
  const double implied = f.per_user * concurrency / gpus;
  const double ratio = implied / f.per_gpu;
  double upper = kMaxImpliedOverStated;
  if (f.ttft_ms > 0 && osl >= 1) upper = std::max(upper, 2.0 * (1.0 + f.ttft_ms / 1e3 / (osl / f.per_user)));
  if (ratio >= kMinImpliedOverStated && ratio <= upper) return std::nullopt;
  return fmt::format("the row contradicts itself: {:.4g} tokens/s per user ({}) x {:g} clients / {:g} GPUs = {:.4g} "
                     "tokens/s per GPU, {:.3g}x the {:.4g} stated ({}); {}",
                     f.per_user, f.per_user_from, concurrency, gpus, implied, ratio, f.per_gpu, f.per_gpu_from,
                     ratio < kMinImpliedOverStated ? "the GPUs cannot give more than their users receive"
                                                   : "its users would wait far longer for a first token than they "
                                                     "decode");
}

std::optional<std::string> lengths_contradiction(long long isl, long long osl, const MlperfBenchmark& b) {
  if (b.isl_max > 0 && isl > b.isl_max)
    return fmt::format("the row contradicts its benchmark: isl {} is above MLPerf {}'s {}-token input maximum", isl,
                       b.name, b.isl_max);
  if (b.osl_max > 0 && osl > b.osl_max)
    return fmt::format("the row contradicts its benchmark: osl {} is above MLPerf {}'s {}-token output maximum", osl,
                       b.name, b.osl_max);
  return std::nullopt;
}

}  // namespace gpuplan
