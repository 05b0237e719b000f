#include "catalog/error_band.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>

#include "core/error.h"
#include "core/yaml_reader.h"

namespace gpuplan {

const std::vector<std::string>& band_kinds() {
  static const std::vector<std::string> k = {
      std::string(kBandTrainingDense),        std::string(kBandTrainingMoe),
      std::string(kBandServingAggThroughput), std::string(kBandServingAggTpot),
      std::string(kBandServingAggTtft),       std::string(kBandServingDisaggThroughput),
      std::string(kBandServingDisaggTpot),    std::string(kBandServingDisaggTtft)};
  return k;
}

void ErrorBand::set_edges(double low, double high) {
  low_log = low;
  high_log = high;
  low_ratio = std::exp(low);
  high_ratio = std::exp(high);
}

std::string_view training_band_kind(bool moe) { return moe ? kBandTrainingMoe : kBandTrainingDense; }

std::string_view serving_band_kind(bool disaggregated, ServingFigure figure) {
  switch (figure) {
    case ServingFigure::tpot:
      return disaggregated ? kBandServingDisaggTpot : kBandServingAggTpot;
    case ServingFigure::ttft:
      return disaggregated ? kBandServingDisaggTtft : kBandServingAggTtft;
    case ServingFigure::throughput:
      break;
  }
  return disaggregated ? kBandServingDisaggThroughput : kBandServingAggThroughput;
}

double BandedFigure::plus_minus_pct() const {
  if (!(value > 0)) return 0;
  return 100.0 * std::max(high / value - 1.0, 1.0 - low / value);
}

const ErrorBand& find_band(const std::vector<ErrorBand>& bands, std::string_view kind, std::string_view generation) {
  const ErrorBand* unfitted = nullptr;
  for (const auto& b : bands) {
    // Generation first: names differ in length, so most entries fail on the size compare.
    if (b.generation == generation) {
      if (b.kind == kind) return b;
    } else if (!unfitted && b.generation == kBandUnfitted && b.kind == kind) {
      unfitted = &b;
    }
  }
  if (unfitted) return *unfitted;
  // No band file entry at all: +/-60% in log terms, flagged by rows = 0.
  static const ErrorBand kRule = [] {
    ErrorBand b;
    b.generation = std::string(kBandUnfitted);
    b.set_edges(std::log(0.4), std::log(1.6));
    b.method = "rule: +/-60% where no band was fitted";
    return b;
  }();
  return kRule;
}

BandedFigure with_band(double value, const ErrorBand& band, bool reciprocal) {
  BandedFigure f;
  f.value = value;
  const double lo_r = band.low_ratio > 0 ? band.low_ratio : std::exp(band.low_log);
  const double hi_r = band.high_ratio > 0 ? band.high_ratio : std::exp(band.high_log);
  f.low = reciprocal ? value / hi_r : value * lo_r;
  f.high = reciprocal ? value / lo_r : value * hi_r;
  f.rows = band.rows;
  f.families = band.families;
  f.kind = band.kind;
  f.generation = band.generation;
  return f;
}

BandedFigure ratio_band(const BandedFigure& a, const BandedFigure& b) {
  BandedFigure r;
  if (!(a.value > 0) || !(b.value > 0) || !(a.low > 0) || !(b.low > 0)) return r;
  r.value = a.value / b.value;
  auto centre = [](const BandedFigure& f) { return 0.5 * (std::log(f.high / f.value) + std::log(f.low / f.value)); };
  auto half = [](const BandedFigure& f) { return 0.5 * std::log(f.high / f.low); };
  const double c = centre(a) - centre(b);
  const double h = std::hypot(half(a), half(b));
  r.low = r.value * std::exp(c - h);
  r.high = r.value * std::exp(c + h);
  const bool a_smaller = a.rows <= b.rows;
  r.rows = a_smaller ? a.rows : b.rows;
  r.families = a_smaller ? a.families : b.families;
  r.kind = a_smaller ? a.kind : b.kind;
  r.generation = a_smaller ? a.generation : b.generation;
  return r;
}

bool bands_overlap(const BandedFigure& a, const BandedFigure& b) { return a.low <= b.high && b.low <= a.high; }

ErrorBand parse_error_band(YamlMap& m, const std::string& origin) {
  ErrorBand b;
  b.kind = m.str("kind");
  if (std::find(band_kinds().begin(), band_kinds().end(), b.kind) == band_kinds().end())
    throw InputError(m.path() + ".kind", fmt::format("'{}' is not a band kind ({})", b.kind,
                                                     fmt::join(band_kinds(), ", ")));
  b.generation = m.str("generation");
  const double low = m.num_in("low_log", -5.0, 0.0);
  b.set_edges(low, m.num_in("high_log", 0.0, 5.0));
  b.rows = static_cast<int>(m.opt_integer_in("rows", 0, 10000000).value_or(0));
  b.families = static_cast<int>(m.opt_integer_in("families", 0, 100000).value_or(0));
  b.fitted_on = m.opt_str("fitted_on").value_or("");
  b.fitted_date = m.opt_str("fitted_date").value_or("");
  b.method = m.opt_str("method").value_or("");
  b.origin = origin;
  m.reject_unknown_keys();
  return b;
}

std::string error_bands_to_yaml(const std::vector<ErrorBand>& bands, const std::string& header_comment) {
  std::string out;
  size_t p = 0;
  while (p < header_comment.size()) {
    const size_t q = std::min(header_comment.find('\n', p), header_comment.size());
    out += fmt::format("# {}\n", std::string_view(header_comment).substr(p, q - p));
    p = q + 1;
  }
  out += "error_bands:\n";
  for (const auto& b : bands) {
    out += fmt::format("  - kind: {}\n    generation: {}\n    low_log: {:.4f}\n    high_log: {:.4f}\n", b.kind,
                       b.generation, b.low_log, b.high_log);
    out += fmt::format("    rows: {}\n    families: {}\n", b.rows, b.families);
    if (!b.fitted_on.empty()) out += fmt::format("    fitted_on: \"{}\"\n", b.fitted_on);
    if (!b.fitted_date.empty()) out += fmt::format("    fitted_date: \"{}\"\n", b.fitted_date);
    if (!b.method.empty()) out += fmt::format("    method: \"{}\"\n", b.method);
  }
  return out;
}

}  // namespace gpuplan
