#include "validate/band_fit.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <set>

namespace gpuplan {

std::string band_kind_of(const TrainingCase& c) {
  return std::string(c.model.is_moe() ? kBandTrainingMoe : kBandTrainingDense);
}

std::string band_kind_of(const InferenceCase& c) {
  const ServingFigure f = c.metric == "ttft_ms"                                           ? ServingFigure::ttft
                          : c.metric == "tpot_ms" || c.metric == "tokens_per_sec_per_user" ? ServingFigure::tpot
                                                                                           : ServingFigure::throughput;
  return std::string(serving_band_kind(c.deployment == "disaggregated", f));
}

bool band_reciprocal_of(const TrainingCase& c) { return c.metric == "step_time_s"; }
bool band_reciprocal_of(const InferenceCase& c) { return c.metric == "tokens_per_sec_per_user"; }

double band_log_ratio(double reported, double predicted, bool reciprocal) {
  const double r = std::log(reported / predicted);
  return reciprocal ? -r : r;
}

std::string source_family(const std::string& id) { return id.substr(0, id.find('-')); }
std::string band_family_of(const TrainingCase& c) { return source_family(c.source_id); }
std::string band_family_of(const InferenceCase& c) { return source_family(c.source_id) + " / " + c.framework; }
std::string band_source_key(const std::string& source_id, const std::string& serving_framework) {
  return serving_framework.empty() ? source_id : source_id + " / " + serving_framework;
}
std::string band_source_key(const HeldOutResidual& h) {
  return band_source_key(h.source_id, h.kind.rfind("serving", 0) == 0 ? h.release : std::string());
}

std::optional<double> predictive_quantile(const std::vector<double>& sorted, double p) {
  const double n = double(sorted.size()), pos = p * (n + 1.0);  // 1-based position
  if (sorted.empty() || pos < 1.0 - 1e-9 || pos > n + 1e-9) return std::nullopt;
  const auto i = std::min(sorted.size(), static_cast<size_t>(std::floor(pos + 1e-9)));
  const size_t j = std::min(i + 1, sorted.size());
  return sorted[i - 1] + (pos - double(i)) * (sorted[j - 1] - sorted[i - 1]);
}

int min_band_rows(double nominal) {
  return static_cast<int>(std::ceil(2.0 / (1.0 - nominal) - 1.0 - 1e-9));
}

std::optional<BandEdges> predictive_band(std::vector<double> residuals, double nominal) {
  std::sort(residuals.begin(), residuals.end());
  const double tail = 0.5 * (1.0 - nominal);
  const auto lo = predictive_quantile(residuals, tail), hi = predictive_quantile(residuals, 1.0 - tail);
  if (!lo || !hi) return std::nullopt;
  BandEdges e{std::min(0.0, *lo), std::max(0.0, *hi), std::nullopt};
  if (const auto mid = predictive_quantile(residuals, 0.5)) e.median_log = std::clamp(*mid, e.low_log, e.high_log);
  return e;
}

namespace {

// Residuals of one cell, by source family.
using ByFamily = std::map<std::string, std::vector<double>>;

size_t rows_of(const ByFamily& c) {
  size_t n = 0;
  for (const auto& [f, r] : c) n += r.size();
  return n;
}

std::vector<double> values_of(const ByFamily& c) {
  std::vector<double> v;
  for (const auto& [f, r] : c) v.insert(v.end(), r.begin(), r.end());
  return v;
}

// A sample too small for the predictive quantiles: its range (stretched to 0), which holds a new row
// with probability (n - 1) / (n + 1).
BandEdges range_of(const std::vector<double>& v) {
  BandEdges e;
  for (double x : v) e = {std::min(e.low_log, x), std::max(e.high_log, x), std::nullopt};
  return e;
}

// The kind's pooled band (or the range of its rows when they are too few for the quantiles).
BandEdges pooled_edges(const ByFamily& c, double nominal) {
  const auto v = values_of(c);
  if (auto e = predictive_band(v, nominal)) return *e;
  return range_of(v);
}

BandEdges join(BandEdges a, BandEdges b) {
  return {std::min(a.low_log, b.low_log), std::max(a.high_log, b.high_log), std::nullopt};
}

}  // namespace

std::vector<ErrorBand> fit_error_bands(const std::vector<HeldOutResidual>& held_out,
                                       const std::vector<HeldOutResidual>& unfitted, const BandFitOptions& o,
                                       const std::vector<BandCell>& measured) {
  std::map<std::string, std::map<std::string, ByFamily>> cells;  // kind -> generation -> family
  std::map<std::string, ByFamily> pooled, prior;                   // kind -> family
  for (const auto& h : held_out) {
    cells[h.kind][h.generation][h.family].push_back(h.log_ratio);
    pooled[h.kind][h.family].push_back(h.log_ratio);
  }
  for (const auto& h : unfitted) prior[h.kind][h.family].push_back(h.log_ratio);
  auto band = [&](const std::string& kind, const std::string& gen, BandEdges e, size_t rows, size_t fams,
                  const std::string& method) {
    ErrorBand b;
    b.kind = kind;
    b.generation = gen;
    b.set_edges(std::clamp(e.low_log, -5.0, 0.0), std::clamp(e.high_log, 0.0, 5.0));
    if (e.median_log) b.median_log = std::clamp(*e.median_log, b.low_log, b.high_log);
    b.rows = static_cast<int>(rows);
    b.families = static_cast<int>(fams);
    b.fitted_on = o.fitted_on;
    b.fitted_date = o.fitted_date;
    b.method = method;
    return b;
  };
  const std::string nominal = fmt::format("{:.0f}%", 100 * o.nominal);
  const int min_rows = min_band_rows(o.nominal);
  const std::string rule = fmt::format(
      "{} held-out log(measured/predicted): the {:.0f}% and {:.0f}% quantiles at plotting position p(n+1)", nominal,
      50 * (1 - o.nominal), 50 * (1 + o.nominal));
  std::vector<ErrorBand> out;
  BandEdges widest;  // over every kind's unfitted band
  std::vector<std::string> kinds_without_rows;
  for (const auto& kind : band_kinds()) {
    BandEdges kind_widest;
    if (auto it = cells.find(kind); it != cells.end()) {
      const ByFamily& all = pooled[kind];
      const BandEdges kind_edges = pooled_edges(all, o.nominal);
      const size_t all_rows = rows_of(all);
      const std::string pooled_how =
          all_rows >= size_t(min_rows)
              ? fmt::format("{} of the kind's rows pooled over generations", rule)
              : fmt::format("{} held-out log(measured/predicted): the range of the kind's {} rows (under {})", nominal,
                            all_rows, min_rows);
      for (const auto& [gen, c] : it->second) {
        const size_t n = rows_of(c);
        if (n >= size_t(min_rows) && c.size() >= size_t(o.min_families)) {
          const BandEdges e = *predictive_band(values_of(c), o.nominal);
          out.push_back(band(kind, gen, e, n, c.size(), rule + " of the generation's rows"));
          kind_widest = join(kind_widest, e);
        } else {
          out.push_back(band(kind, gen, kind_edges, all_rows, all.size(),
                             fmt::format("{} (the generation has {} rows from {} source families: under {} rows or "
                                         "{} families)",
                                         pooled_how, n, c.size(), min_rows, o.min_families)));
          kind_widest = join(kind_widest, kind_edges);
        }
      }
      for (const auto& [k, gen] : measured) {
        if (k != kind || it->second.count(gen)) continue;
        out.push_back(band(kind, gen, kind_edges, all_rows, all.size(),
                           pooled_how + " (no other source family measures this generation)"));
        kind_widest = join(kind_widest, kind_edges);
      }
    }
    const auto pr = prior.find(kind);
    if (pr == prior.end() && cells.find(kind) == cells.end()) {
      kinds_without_rows.push_back(kind);
      continue;
    }
    BandEdges e = kind_widest;
    size_t rows = 0, fams = 0;
    if (pr != prior.end()) {
      e = join(e, pooled_edges(pr->second, o.nominal));
      rows = rows_of(pr->second);
      fams = pr->second.size();
    }
    e = {e.low_log * o.unfitted_margin, e.high_log * o.unfitted_margin, std::nullopt};
    widest = join(widest, e);
    out.push_back(band(kind, std::string(kBandUnfitted), e, rows, fams,
                       fmt::format("generations without measurements: rows predicted with the prior efficiencies "
                                   "(the same quantiles), joined with every fitted band of the kind, times {}",
                                   o.unfitted_margin)));
  }
  for (const auto& kind : kinds_without_rows)
    out.push_back(band(kind, std::string(kBandUnfitted), widest, 0, 0,
                       "no measurements of this kind: the widest unfitted band of any kind"));
  return out;
}

namespace {

void count(BandCoverage& out, const HeldOutResidual& h, bool in) {
  for (Coverage* c : {&out.by_kind["all"], &out.by_kind[h.kind], &out.by_file[h.file]["all"],
                      &out.by_file[h.file][h.kind]}) {
    ++c->rows;
    c->inside += in ? 1 : 0;
  }
}

}  // namespace

void BandCoverage::add(const BandCoverage& more) {
  for (const auto& [k, c] : more.by_kind) {
    by_kind[k].rows += c.rows;
    by_kind[k].inside += c.inside;
  }
  for (const auto& [f, m] : more.by_file)
    for (const auto& [k, c] : m) {
      by_file[f][k].rows += c.rows;
      by_file[f][k].inside += c.inside;
    }
}

BandCoverage band_coverage(const std::vector<HeldOutResidual>& residuals, const std::vector<ErrorBand>& bands) {
  BandCoverage out;
  for (const auto& h : residuals) {
    const ErrorBand& b = find_band(bands, h.kind, h.generation);
    count(out, h, h.log_ratio >= b.low_log && h.log_ratio <= b.high_log);
  }
  return out;
}

BandCoverage band_coverage_lofo(const std::vector<HeldOutResidual>& held_out,
                                const std::vector<HeldOutResidual>& unfitted, const BandFitOptions& opts,
                                const std::vector<BandCell>& measured) {
  std::set<std::string> families;
  for (const auto& h : held_out) families.insert(h.family);
  BandCoverage out;
  for (const auto& f : families) {
    std::vector<HeldOutResidual> rest, mine, rest_prior;
    for (const auto& h : held_out) (h.family == f ? mine : rest).push_back(h);
    for (const auto& h : unfitted)
      if (h.family != f) rest_prior.push_back(h);
    out.add(band_coverage(mine, fit_error_bands(rest, rest_prior, opts, measured)));
  }
  return out;
}

std::vector<BandPair> band_pairs(const std::vector<HeldOutResidual>& residuals, const std::vector<ErrorBand>& bands) {
  // key -> accelerator -> the first row of that accelerator
  std::map<std::string, std::map<std::string, const HeldOutResidual*>> by_key;
  for (const auto& h : residuals)
    if (!h.pair_key.empty() && !h.accelerator.empty()) by_key[h.pair_key].emplace(h.accelerator, &h);
  std::vector<BandPair> out;
  for (const auto& [key, rows] : by_key) {
    std::vector<const HeldOutResidual*> v;
    for (const auto& [acc, h] : rows) v.push_back(h);
    for (size_t i = 0; i < v.size(); ++i)
      for (size_t j = i + 1; j < v.size(); ++j) {
        const ErrorBand& ba = find_band(bands, v[i]->kind, v[i]->generation);
        const ErrorBand& bb = find_band(bands, v[j]->kind, v[j]->generation);
        BandPair p;
        p.residual_a = v[i]->log_ratio;
        p.residual_b = v[j]->log_ratio;
        p.centre_a = 0.5 * (ba.low_log + ba.high_log);
        p.centre_b = 0.5 * (bb.low_log + bb.high_log);
        p.half_a = 0.5 * (ba.high_log - ba.low_log);
        p.half_b = 0.5 * (bb.high_log - bb.low_log);
        p.same_generation = v[i]->generation == v[j]->generation;
        p.family = v[i]->family;
        out.push_back(p);
      }
  }
  return out;
}

double pair_coverage(const std::vector<BandPair>& pairs, double rho) {
  if (pairs.empty()) return 0;
  size_t inside = 0;
  for (const auto& p : pairs) {
    const double c = p.centre_a - p.centre_b;
    const double h = std::sqrt(std::max(0.0, p.half_a * p.half_a + p.half_b * p.half_b - 2 * rho * p.half_a * p.half_b));
    const double e = p.residual_a - p.residual_b;
    if (std::abs(e - c) <= h) ++inside;
  }
  return double(inside) / double(pairs.size());
}

BandCorrelation fit_band_correlation(const std::vector<BandPair>& pairs, double nominal, int min_pairs) {
  std::vector<BandPair> same, cross;
  for (const auto& p : pairs) (p.same_generation ? same : cross).push_back(p);
  auto fit = [&](const std::vector<BandPair>& v) {
    if (int(v.size()) < min_pairs) return 0.0;
    double best = 0;
    for (int k = 0; k <= 95; ++k)
      if (pair_coverage(v, k / 100.0) >= nominal) best = k / 100.0;
    return best;
  };
  BandCorrelation c;
  c.pairs_same = int(same.size());
  c.pairs_cross = int(cross.size());
  c.cross_generation = fit(cross);
  c.same_generation = std::max(fit(same), c.cross_generation);
  c.method = fmt::format(
      "pairs of held-out rows of one source, model, metric, precision, framework and workload on different "
      "accelerators: per relation (one generation, two), the largest correlation (0 to 0.95 in steps of 0.01) whose "
      "ratio bands (half-width sqrt(ha^2 + hb^2 - 2 rho ha hb)) hold {:.0f}% of the pairs; one generation at least "
      "the cross-generation figure",
      100 * nominal);
  return c;
}

PairCoverage pair_coverage_lofo(const std::vector<BandPair>& pairs, double nominal, int min_pairs) {
  std::set<std::string> families;
  for (const auto& p : pairs) families.insert(p.family);
  PairCoverage out;
  for (const auto& f : families) {
    std::vector<BandPair> rest, mine_same, mine_cross;
    for (const auto& p : pairs)
      if (p.family != f) rest.push_back(p);
      else (p.same_generation ? mine_same : mine_cross).push_back(p);
    const BandCorrelation c = fit_band_correlation(rest, nominal, min_pairs);
    out.same_rows += int(mine_same.size());
    out.same_inside += int(std::lround(pair_coverage(mine_same, c.same_generation) * double(mine_same.size())));
    out.cross_rows += int(mine_cross.size());
    out.cross_inside += int(std::lround(pair_coverage(mine_cross, c.cross_generation) * double(mine_cross.size())));
  }
  return out;
}

}  // namespace gpuplan
