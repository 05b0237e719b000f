#include "validate/row_contradiction.h"

#include <fmt/format.h>

#include <cmath>
#include <regex>

#include "core/text.h"

namespace gpuplan {

namespace {

bool usable(double v) { return std::isfinite(v) && v > 0 && v < 1e12; }

void set(double& slot, std::string& from, double v, const std::string& why) {
  if (slot > 0 || !usable(v)) return;
  slot = v;
  from = why;
}

}  // namespace

void add_metric_figure(RunFigures& f, const std::string& metric, double value, double gpus, const std::string& from) {
  if (metric == "tokens_per_sec_per_gpu") set(f.per_gpu, f.per_gpu_from, value, from);
  else if (metric == "tokens_per_sec_total" && gpus >= 1) set(f.per_gpu, f.per_gpu_from, value / gpus, from);
  else if (metric == "tokens_per_sec_per_user") set(f.per_user, f.per_user_from, value, from);
  else if (metric == "tpot_ms" && usable(value)) set(f.per_user, f.per_user_from, 1000.0 / value, from + " (1000 / TPOT)");
}

void add_notes_figures(RunFigures& f, const std::string& notes) {
  const std::string l = to_lower(notes);
  static const std::regex per_gpu(
      R"((\d+(\.\d+)?)\s*(output\s+)?(tok|tokens)\s*/\s*s\s*(/|per)\s*gpu\b)");
  static const std::regex per_user(
      R"((\d+(\.\d+)?)\s*(output\s+)?(tok|tokens)\s*/\s*s\s*(/|per)\s*user\b)");
  static const std::regex tpot(R"(\btpot\s*[=:]?\s*(\d+(\.\d+)?)\s*ms\b)");
  std::smatch m;
  if (std::regex_search(l, m, per_gpu)) set(f.per_gpu, f.per_gpu_from, std::stod(m[1].str()), "the notes' '" + m.str() + "'");
  if (std::regex_search(l, m, per_user))
    set(f.per_user, f.per_user_from, std::stod(m[1].str()), "the notes' '" + m.str() + "'");
  else if (std::regex_search(l, m, tpot) && usable(std::stod(m[1].str())))
    set(f.per_user, f.per_user_from, 1000.0 / std::stod(m[1].str()), "the notes' '" + m.str() + "' (1000 / TPOT)");
}

std::optional<std::string> figures_contradiction(const RunFigures& f, double concurrency, double gpus) {
  if (!(f.per_gpu > 0 && f.per_user > 0 && concurrency >= 1 && gpus >= 1)) return std::nullopt;
  const double implied = f.per_user * concurrency / gpus;
  const double ratio = implied / f.per_gpu;
  if (ratio >= kMinImpliedOverStated && ratio <= kMaxImpliedOverStated) return std::nullopt;
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
