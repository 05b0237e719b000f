#include "catalog/error_band.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
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

namespace {

// The band file writes a range's edges to 4 significant digits: a question within that rounding of an
// edge (DeepSeek-R1's 671.03B parameters against a fitted 671B) lies on it.
constexpr double kEdgeRounding = 5e-4;

// log2 of how far x lies outside [lo, hi], capped at 1; 0 inside (to the edges' rounding) or where the
// range is not recorded.
double range_distance(double x, double lo, double hi) {
  if (!(x > 0) || !(lo > 0) || !(hi > 0)) return 0;
  if (x > hi * (1 + kEdgeRounding)) return std::min(1.0, std::log2(x / hi));
  if (x < lo * (1 - kEdgeRounding)) return std::min(1.0, std::log2(lo / x));
  return 0;
}

std::string lower(std::string s) {
  for (auto& ch : s) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return s;
}

// A comma-separated list, each item lower-cased; empty items dropped.
std::vector<std::string> lower_list(const std::string& text) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i < text.size()) {
    const size_t j = std::min(text.find(',', i), text.size());
    if (j > i) out.push_back(lower(text.substr(i, j - i)));
    i = j + 1;
  }
  return out;
}

}  // namespace

GroundDistance ground_distance(const ErrorBand& b, const BandQuestion& q) {
  GroundDistance d;
  if (b.generation == kBandUnfitted) return d;  // already the band of a generation nobody measured
  const auto& ss = b.ground.sources;
  const bool known_source =
      q.source_fitted || (!q.source.empty() && std::find(ss.begin(), ss.end(), lower(q.source)) != ss.end());
  if (!known_source) {
    d.source = 1;
    d.why.push_back({"source", q.source.empty() ? std::string("a source the bands were not fitted on")
                                                : fmt::format("source {} not among the {} the band was fitted on",
                                                              q.source, ss.size())});
  }
  const std::string p = lower(q.precision);
  const auto& ps = b.ground.precisions;
  if (!p.empty() && !ps.empty() && std::find(ps.begin(), ps.end(), p) == ps.end()) {
    d.precision = 1;
    d.why.push_back({"precision", fmt::format("precision {} never fitted on {} (fitted: {})", p, b.generation,
                                              fmt::join(ps, ", "))});
  }
  d.scale = range_distance(q.num_gpus, b.ground.gpus_min, b.ground.gpus_max);
  if (d.scale > 0)
    d.why.push_back({"scale", q.num_gpus > b.ground.gpus_max
                                  ? fmt::format("scale {} GPUs above fitted {}", q.num_gpus, b.ground.gpus_max)
                                  : fmt::format("scale {} GPUs below fitted {}", q.num_gpus, b.ground.gpus_min)});
  d.model_size = range_distance(q.params_b, b.ground.params_b_min, b.ground.params_b_max);
  if (d.model_size > 0)
    d.why.push_back(
        {"model_size", q.params_b > b.ground.params_b_max
                           ? fmt::format("model {:.3g}B parameters above fitted {:.3g}B", q.params_b, b.ground.params_b_max)
                           : fmt::format("model {:.3g}B parameters below fitted {:.3g}B", q.params_b,
                                         b.ground.params_b_min)});
  // An engine the band's rows ran too few times (or never) on the generation: its scheduler, kernels and
  // recipe were not in the sample (a blank engine or a band without recorded engines: not known).
  const std::string e = lower(q.engine);
  const auto& es = b.ground.engines;
  if (!e.empty() && !es.empty() && std::find(es.begin(), es.end(), e) == es.end()) {
    d.engine = 1;
    d.why.push_back({"engine", fmt::format("engine {} has too few fitted {} rows on {} (fitted: {})", e, b.kind,
                                           b.generation, fmt::join(es, ", "))});
  }
  // An accelerator the band's rows measured too few times (or never) on the generation: the generation's
  // parameters carry over, its balance of compute, memory and links was not in the sample.
  const std::string a = lower(q.accelerator);
  const auto& as = b.ground.accelerators;
  if (!a.empty() && !as.empty() && std::find(as.begin(), as.end(), a) == as.end()) {
    d.accelerator = 1;
    d.why.push_back({"accelerator", fmt::format("accelerator {} has too few fitted {} rows on {} (fitted: {})", a,
                                                b.kind, b.generation, fmt::join(as, ", "))});
  }
  return d;
}

double widening_multiplier(const BandWidening& w, const GroundDistance& d) {
  auto term = [](double factor, double dist) { return 1.0 + std::max(0.0, factor - 1.0) * std::clamp(dist, 0.0, 1.0); };
  return term(w.source, d.source) * term(w.precision, d.precision) * term(w.scale, d.scale) *
         term(w.model_size, d.model_size) * term(w.engine, d.engine) * term(w.accelerator, d.accelerator);
}

LogEdges widened_log_edges(double low_log, double high_log, double multiplier) {
  const double grow = std::max(0.0, multiplier - 1.0) * 0.5 * (high_log - low_log);
  return {std::max(-5.0, low_log - grow), std::min(5.0, high_log + grow)};
}

double widening_factor(const BandWidening& w, std::string_view dimension) {
  if (dimension == "source") return w.source;
  if (dimension == "precision") return w.precision;
  if (dimension == "scale") return w.scale;
  if (dimension == "model_size") return w.model_size;
  if (dimension == "engine") return w.engine;
  if (dimension == "accelerator") return w.accelerator;
  return 1.0;
}

ErrorBand widen_band(const ErrorBand& band, const GroundDistance& d) {
  ErrorBand b = band;
  const double m = widening_multiplier(band.widening, d);
  if (m > 1.0) {
    const LogEdges e = widened_log_edges(band.low_log, band.high_log, m);
    b.set_edges(e.low_log, e.high_log);
    // Only what widened: a dimension whose fitted factor is 1 leaves the band as it is.
    for (const auto& r : d.why)
      if (widening_factor(band.widening, r.dimension) > 1.0) b.widened_by.push_back(r.text);
  }
  return b;
}

ErrorBand band_for(const std::vector<ErrorBand>& bands, std::string_view kind, std::string_view generation,
                   const BandQuestion& q) {
  const ErrorBand& b = find_band(bands, kind, generation);
  ErrorBand w = widen_band(b, ground_distance(b, q));
  // A generation without a fitted entry of the kind gets the band of generations nobody measured, wider
  // than any fitted one; its basis says so.
  if (b.generation == kBandUnfitted && generation != kBandUnfitted && !generation.empty())
    w.widened_by.insert(w.widened_by.begin(),
                        fmt::format("generation {} has no fitted {} rows", generation, kind));
  // A serving band says which engine its question stated (none: no engine widened it).
  if (kind.substr(0, 7) == "serving") w.engine = q.engine.empty() ? std::string(kBandEngineNotStated) : q.engine;
  return w;
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
  f.widened_by = band.widened_by;
  f.engine = band.engine;
  return f;
}

double BandCorrelation::between(const BandedFigure& a, const BandedFigure& b) const {
  const bool one_generation = a.generation == b.generation && !a.generation.empty() && a.generation != kBandUnfitted;
  return one_generation ? same_generation : cross_generation;
}

BandedFigure ratio_band(const BandedFigure& a, const BandedFigure& b, const BandCorrelation& correlation) {
  BandedFigure r;
  if (!(a.value > 0) || !(b.value > 0) || !(a.low > 0) || !(b.low > 0)) return r;
  r.value = a.value / b.value;
  auto centre = [](const BandedFigure& f) { return 0.5 * (std::log(f.high / f.value) + std::log(f.low / f.value)); };
  auto half = [](const BandedFigure& f) { return 0.5 * std::log(f.high / f.low); };
  const double c = centre(a) - centre(b);
  const double rho = std::clamp(correlation.between(a, b), 0.0, 1.0);
  const double ha = half(a), hb = half(b);
  const double h = std::sqrt(std::max(0.0, ha * ha + hb * hb - 2 * rho * ha * hb));
  r.low = r.value * std::exp(c - h);
  r.high = r.value * std::exp(c + h);
  const bool a_smaller = a.rows <= b.rows;
  r.rows = a_smaller ? a.rows : b.rows;
  r.families = a_smaller ? a.families : b.families;
  r.kind = a_smaller ? a.kind : b.kind;
  r.generation = a_smaller ? a.generation : b.generation;
  r.widened_by = a.widened_by;
  for (const auto& w : b.widened_by)
    if (std::find(r.widened_by.begin(), r.widened_by.end(), w) == r.widened_by.end()) r.widened_by.push_back(w);
  // The two sides' engines: one where they agree (or one side states none), both where they differ.
  r.engine = a.engine == b.engine || b.engine.empty() ? a.engine
             : a.engine.empty()                       ? b.engine
                                                      : a.engine + " / " + b.engine;
  return r;
}

bool bands_overlap(const BandedFigure& a, const BandedFigure& b) { return a.low <= b.high && b.low <= a.high; }

double probability_at_least(const BandedFigure& f, double threshold) {
  if (!(threshold > 0)) return 1.0;
  if (!(f.value > 0)) return 0.0;
  if (!(f.low > 0) || !(f.high > f.low)) return f.value >= threshold ? 1.0 : 0.0;
  const double z90 = 1.2815515655446004;  // the standard normal's 90% quantile
  const double mean = 0.5 * (std::log(f.low) + std::log(f.high));
  const double sd = 0.5 * std::log(f.high / f.low) / z90;
  return 0.5 * std::erfc((std::log(threshold) - mean) / (sd * std::sqrt(2.0)));
}

ErrorBand parse_error_band(YamlMap& m, const std::string& origin) {
  ErrorBand b;
  b.kind = m.str("kind");
  if (std::find(band_kinds().begin(), band_kinds().end(), b.kind) == band_kinds().end())
    throw InputError(m.path() + ".kind", fmt::format("'{}' is not a band kind ({})", b.kind,
                                                     fmt::join(band_kinds(), ", ")));
  b.generation = m.str("generation");
  const double low = m.num_in("low_log", -5.0, 0.0);
  b.set_edges(low, m.num_in("high_log", 0.0, 5.0));
  b.median_log = m.opt_num_in("median_log", b.low_log, b.high_log);
  b.rows = static_cast<int>(m.opt_integer_in("rows", 0, 10000000).value_or(0));
  b.families = static_cast<int>(m.opt_integer_in("families", 0, 100000).value_or(0));
  b.fitted_on = m.opt_str("fitted_on").value_or("");
  b.fitted_date = m.opt_str("fitted_date").value_or("");
  b.method = m.opt_str("method").value_or("");
  b.origin = origin;
  b.ground.precisions = lower_list(m.opt_str("precisions").value_or(""));
  b.ground.engines = lower_list(m.opt_str("engines").value_or(""));
  b.ground.accelerators = lower_list(m.opt_str("accelerators").value_or(""));
  if (m.has("sources"))
    for (const auto& x : m.str_list("sources")) b.ground.sources.push_back(lower(x));
  b.ground.gpus_min = static_cast<int>(m.opt_integer_in("gpus_min", 0, 10000000).value_or(0));
  b.ground.gpus_max = static_cast<int>(m.opt_integer_in("gpus_max", 0, 10000000).value_or(0));
  b.ground.params_b_min = m.opt_num_in("params_b_min", 0.0, 1e6).value_or(0);
  b.ground.params_b_max = m.opt_num_in("params_b_max", 0.0, 1e6).value_or(0);
  b.widening.source = m.opt_num_in("widen_source", 1.0, 10.0).value_or(1);
  b.widening.precision = m.opt_num_in("widen_precision", 1.0, 10.0).value_or(1);
  b.widening.scale = m.opt_num_in("widen_scale", 1.0, 10.0).value_or(1);
  b.widening.model_size = m.opt_num_in("widen_model_size", 1.0, 10.0).value_or(1);
  b.widening.engine = m.opt_num_in("widen_engine", 1.0, 10.0).value_or(1);
  b.widening.accelerator = m.opt_num_in("widen_accelerator", 1.0, 10.0).value_or(1);
  m.reject_unknown_keys();
  return b;
}

BandCorrelation parse_band_correlation(YamlMap& m) {
  BandCorrelation c;
  c.same_generation = m.num_in("same_generation", 0.0, 1.0);
  c.cross_generation = m.num_in("cross_generation", 0.0, 1.0);
  if (c.cross_generation > c.same_generation)
    throw InputError(m.path() + ".cross_generation",
                     fmt::format("must be at most same_generation ({:g}): systems of one generation share at least "
                                 "what two generations share, got {:g}",
                                 c.same_generation, c.cross_generation));
  c.pairs_same = static_cast<int>(m.opt_integer_in("pairs_same", 0, 100000000).value_or(0));
  c.pairs_cross = static_cast<int>(m.opt_integer_in("pairs_cross", 0, 100000000).value_or(0));
  c.fitted_on = m.opt_str("fitted_on").value_or("");
  c.fitted_date = m.opt_str("fitted_date").value_or("");
  c.method = m.opt_str("method").value_or("");
  m.reject_unknown_keys();
  return c;
}

std::string error_bands_to_yaml(const std::vector<ErrorBand>& bands, const std::string& header_comment,
                                const BandCorrelation& correlation) {
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
    if (b.median_log) out += fmt::format("    median_log: {:.4f}\n", *b.median_log);
    out += fmt::format("    rows: {}\n    families: {}\n", b.rows, b.families);
    if (!b.fitted_on.empty()) out += fmt::format("    fitted_on: \"{}\"\n", b.fitted_on);
    if (!b.fitted_date.empty()) out += fmt::format("    fitted_date: \"{}\"\n", b.fitted_date);
    if (!b.method.empty()) out += fmt::format("    method: \"{}\"\n", b.method);
    if (!b.ground.precisions.empty()) out += fmt::format("    precisions: \"{}\"\n", fmt::join(b.ground.precisions, ","));
    if (!b.ground.engines.empty()) out += fmt::format("    engines: \"{}\"\n", fmt::join(b.ground.engines, ","));
    if (!b.ground.accelerators.empty())
      out += fmt::format("    accelerators: \"{}\"\n", fmt::join(b.ground.accelerators, ","));
    if (!b.ground.sources.empty()) {
      out += "    sources:\n";
      for (const auto& x : b.ground.sources) out += fmt::format("      - {}\n", nlohmann::json(x).dump());
    }
    if (b.ground.gpus_max > 0) out += fmt::format("    gpus_min: {}\n    gpus_max: {}\n", b.ground.gpus_min, b.ground.gpus_max);
    if (b.ground.params_b_max > 0)
      out += fmt::format("    params_b_min: {:.4g}\n    params_b_max: {:.4g}\n", b.ground.params_b_min, b.ground.params_b_max);
    out += fmt::format("    widen_source: {:.3f}\n    widen_precision: {:.3f}\n    widen_scale: {:.3f}\n"
                       "    widen_model_size: {:.3f}\n    widen_engine: {:.3f}\n    widen_accelerator: {:.3f}\n",
                       b.widening.source, b.widening.precision, b.widening.scale, b.widening.model_size,
                       b.widening.engine, b.widening.accelerator);
  }
  if (correlation.pairs_same + correlation.pairs_cross > 0) {
    out += fmt::format("error_band_correlation:\n  same_generation: {:.2f}\n  cross_generation: {:.2f}\n"
                       "  pairs_same: {}\n  pairs_cross: {}\n",
                       correlation.same_generation, correlation.cross_generation, correlation.pairs_same,
                       correlation.pairs_cross);
    if (!correlation.fitted_on.empty()) out += fmt::format("  fitted_on: \"{}\"\n", correlation.fitted_on);
    if (!correlation.fitted_date.empty()) out += fmt::format("  fitted_date: \"{}\"\n", correlation.fitted_date);
    if (!correlation.method.empty()) out += fmt::format("  method: \"{}\"\n", correlation.method);
  }
  return out;
}

}  // namespace gpuplan
