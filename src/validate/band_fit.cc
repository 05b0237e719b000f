#include "validate/band_fit.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>

namespace gpuplan {

std::string band_kind_of(const TrainingCase& c) {
  return std::string(c.model.is_moe() ? kBandTrainingMoe : kBandTrainingDense);
}

std::string band_kind_of(const InferenceCase& c) {
  const bool latency = c.metric == "ttft_ms" || c.metric == "tpot_ms" || c.metric == "tokens_per_sec_per_user";
  return std::string(serving_band_kind(c.deployment == "disaggregated", latency));
}

bool band_reciprocal_of(const TrainingCase& c) { return c.metric == "step_time_s"; }
bool band_reciprocal_of(const InferenceCase& c) { return c.metric == "tokens_per_sec_per_user"; }

double band_log_ratio(double reported, double predicted, bool reciprocal) {
  const double r = std::log(reported / predicted);
  return reciprocal ? -r : r;
}

std::string source_family(const std::string& id) { return id.substr(0, id.find('-')); }

namespace {

// Linear-interpolation quantile of sorted values.
double quantile(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) return 0;
  const double pos = q * double(sorted.size() - 1);
  const auto i = static_cast<size_t>(std::floor(pos));
  const size_t j = std::min(i + 1, sorted.size() - 1);
  return sorted[i] + (pos - double(i)) * (sorted[j] - sorted[i]);
}

struct Edges {
  double lo = 0, hi = 0;
};

Edges raw_edges(std::vector<double> v, double nominal) {
  std::sort(v.begin(), v.end());
  const double tail = 0.5 * (1.0 - nominal);
  return {std::min(0.0, quantile(v, tail)), std::max(0.0, quantile(v, 1.0 - tail))};
}

Edges widen(Edges e, size_t rows) {
  const double f = 1.0 + 1.0 / std::sqrt(double(std::max<size_t>(1, rows)));
  return {e.lo * f, e.hi * f};
}

}  // namespace

std::vector<ErrorBand> fit_error_bands(const std::vector<HeldOutResidual>& held_out,
                                       const std::vector<HeldOutResidual>& unfitted, const BandFitOptions& o,
                                       const std::vector<BandCell>& measured) {
  struct Cell {
    std::vector<double> r;
    std::set<std::string> families;
  };
  std::map<std::string, std::map<std::string, Cell>> cells;  // kind -> generation
  std::map<std::string, Cell> pooled, prior;                // kind
  for (const auto& h : held_out) {
    auto& c = cells[h.kind][h.generation];
    c.r.push_back(h.log_ratio);
    c.families.insert(h.family);
    pooled[h.kind].r.push_back(h.log_ratio);
    pooled[h.kind].families.insert(h.family);
  }
  for (const auto& h : unfitted) {
    prior[h.kind].r.push_back(h.log_ratio);
    prior[h.kind].families.insert(h.family);
  }
  auto band = [&](const std::string& kind, const std::string& gen, Edges e, size_t rows, size_t fams,
                  const std::string& method) {
    ErrorBand b;
    b.kind = kind;
    b.generation = gen;
    b.set_edges(std::clamp(e.lo, -5.0, 0.0), std::clamp(e.hi, 0.0, 5.0));
    b.rows = static_cast<int>(rows);
    b.families = static_cast<int>(fams);
    b.fitted_on = o.fitted_on;
    b.fitted_date = o.fitted_date;
    b.method = method;
    return b;
  };
  const std::string nominal = fmt::format("{:.0f}%", 100 * o.nominal);
  std::vector<ErrorBand> out;
  double widest_lo = 0, widest_hi = 0;  // over every kind's unfitted band
  std::vector<std::string> kinds_without_rows;
  for (const auto& kind : band_kinds()) {
    Edges kind_widest;
    if (auto it = cells.find(kind); it != cells.end()) {
      const Cell& all = pooled[kind];
      const Edges kind_edges = raw_edges(all.r, o.nominal);
      for (const auto& [gen, c] : it->second) {
        Edges e = raw_edges(c.r, o.nominal);
        std::string how = fmt::format("{} quantiles of held-out log(measured/predicted)", nominal);
        if (c.r.size() < size_t(o.few_rows)) {
          e = {std::min(e.lo, kind_edges.lo), std::max(e.hi, kind_edges.hi)};
          how += fmt::format(", joined with the kind's pooled band (under {} rows)", o.few_rows);
        }
        e = widen(e, c.r.size());
        how += ", widened by 1 + 1/sqrt(rows)";
        out.push_back(band(kind, gen, e, c.r.size(), c.families.size(), how));
        kind_widest = {std::min(kind_widest.lo, e.lo), std::max(kind_widest.hi, e.hi)};
      }
      for (const auto& [k, gen] : measured) {
        if (k != kind || it->second.count(gen)) continue;
        const Edges e = widen(kind_edges, all.r.size());
        out.push_back(band(kind, gen, e, all.r.size(), all.families.size(),
                           fmt::format("no other source family measures this generation: the kind's pooled {} "
                                       "quantiles, widened by 1 + 1/sqrt(rows)",
                                       nominal)));
        kind_widest = {std::min(kind_widest.lo, e.lo), std::max(kind_widest.hi, e.hi)};
      }
    }
    const auto pr = prior.find(kind);
    if (pr == prior.end() && cells.find(kind) == cells.end()) {
      kinds_without_rows.push_back(kind);
      continue;
    }
    Edges e = kind_widest;
    size_t rows = 0, fams = 0;
    if (pr != prior.end()) {
      const Edges p = widen(raw_edges(pr->second.r, o.nominal), pr->second.r.size());
      e = {std::min(e.lo, p.lo), std::max(e.hi, p.hi)};
      rows = pr->second.r.size();
      fams = pr->second.families.size();
    }
    e = {e.lo * o.unfitted_margin, e.hi * o.unfitted_margin};
    widest_lo = std::min(widest_lo, e.lo);
    widest_hi = std::max(widest_hi, e.hi);
    out.push_back(band(kind, std::string(kBandUnfitted), e, rows, fams,
                       fmt::format("generations without measurements: rows predicted with the prior efficiencies "
                                   "({} quantiles, widened by 1 + 1/sqrt(rows)), joined with every fitted band of "
                                   "the kind, times {}",
                                   nominal, o.unfitted_margin)));
  }
  for (const auto& kind : kinds_without_rows)
    out.push_back(band(kind, std::string(kBandUnfitted), {widest_lo, widest_hi}, 0, 0,
                       "no measurements of this kind: the widest unfitted band of any kind"));
  return out;
}

std::map<std::string, Coverage> band_coverage(const std::vector<HeldOutResidual>& residuals,
                                              const std::vector<ErrorBand>& bands) {
  std::map<std::string, Coverage> out;
  for (const auto& h : residuals) {
    const ErrorBand& b = find_band(bands, h.kind, h.generation);
    const bool in = h.log_ratio >= b.low_log && h.log_ratio <= b.high_log;
    for (const std::string& k : {std::string("all"), h.kind}) {
      ++out[k].rows;
      out[k].inside += in ? 1 : 0;
    }
  }
  return out;
}

std::map<std::string, Coverage> band_coverage_lofo(const std::vector<HeldOutResidual>& held_out,
                                                   const std::vector<HeldOutResidual>& unfitted,
                                                   const BandFitOptions& opts, const std::vector<BandCell>& measured) {
  std::set<std::string> families;
  for (const auto& h : held_out) families.insert(h.family);
  std::map<std::string, Coverage> out;
  for (const auto& f : families) {
    std::vector<HeldOutResidual> rest, mine, rest_prior;
    for (const auto& h : held_out) (h.family == f ? mine : rest).push_back(h);
    for (const auto& h : unfitted)
      if (h.family != f) rest_prior.push_back(h);
    const auto bands = fit_error_bands(rest, rest_prior, opts, measured);
    for (const auto& [k, c] : band_coverage(mine, bands)) {
      out[k].rows += c.rows;
      out[k].inside += c.inside;
    }
  }
  return out;
}

}  // namespace gpuplan
