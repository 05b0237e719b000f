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

// Residuals of one cell, by source family.
using ByFamily = std::map<std::string, std::vector<double>>;

double median_of(std::vector<double> v) { return quantile((std::sort(v.begin(), v.end()), v), 0.5); }

// Standard normal quantile (bisection on erfc; fitting only).
double normal_quantile(double p) {
  double lo = -10, hi = 10;
  for (int i = 0; i < 80; ++i) {
    const double mid = 0.5 * (lo + hi);
    (0.5 * std::erfc(-mid / std::sqrt(2.0)) < p ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

// Student-t quantile with `dof` degrees of freedom (Cornish-Fisher expansion; within 4% at dof = 1,
// 0.3% at dof = 2).
double t_quantile(double p, double dof) {
  const double z = normal_quantile(p), z3 = z * z * z, z5 = z3 * z * z, z7 = z5 * z * z;
  return z + (z3 + z) / (4 * dof) + (5 * z5 + 16 * z3 + 3 * z) / (96 * dof * dof) +
         (3 * z7 + 19 * z5 + 17 * z3 - 15 * z) / (384 * dof * dof * dof);
}

// Spread of the source families' shifts: how far a family's median residual falls from its cell's
// (generation's) mean of family medians, pooled over the cells of a kind (variance and degrees of
// freedom add up over cells with two families or more).
struct Between {
  double var = 0;
  int dof = 0;
};

Between between_families(const std::vector<const ByFamily*>& cells) {
  Between b;
  double ss = 0, noise = 0;
  for (const ByFamily* c : cells) {
    if (c->size() < 2) continue;
    std::vector<double> med;
    double within_ss = 0;
    size_t within_n = 0;
    for (const auto& [f, r] : *c) {
      med.push_back(median_of(r));
      for (double x : r) within_ss += (x - med.back()) * (x - med.back());
      within_n += r.size();
    }
    double mean = 0;
    for (double m : med) mean += m / double(med.size());
    for (double m : med) ss += (m - mean) * (m - mean);
    // A family's median carries its own sampling noise, (pi/2) s_w^2 / n_f: taken out of the spread
    // of the medians (method of moments), so a few rows per family do not pass for a family effect.
    const double var_w = within_n > c->size() ? within_ss / double(within_n - c->size()) : 0.0;
    double mean_noise = 0;
    for (const auto& [f, r] : *c) mean_noise += 1.5707963 * var_w / double(r.size()) / double(c->size());
    noise += (double(c->size()) - 1.0) * mean_noise;
    b.dof += int(med.size()) - 1;
  }
  if (b.dof > 0) b.var = std::max(0.0, (ss - noise) / b.dof);
  return b;
}

// Edges for rows of a family nobody fitted on: the cell's mean family shift, plus the within-family
// quantiles (residuals less their family's median) and the spread of a new family's shift added in
// quadrature (the quantiles widened by 1 + 1/sqrt(rows)). The new family's shift is a prediction from `between` (t quantile with its degrees of
// freedom, times sqrt(1 + 1/families) for the uncertainty of the cell's mean), so few families widen
// the band; then stretched to include 0.
Edges family_edges(const ByFamily& c, double nominal, const Between& between) {
  const double tail = 0.5 * (1.0 - nominal);
  std::vector<double> within;
  double centre = 0;
  for (const auto& [f, r] : c) {
    const double m = median_of(r);
    centre += m / double(c.size());
    for (double x : r) within.push_back(x - m);
  }
  std::sort(within.begin(), within.end());
  // The within-family quantiles, widened by 1 + 1/sqrt(rows) for their sampling uncertainty.
  const double grow = 1.0 + 1.0 / std::sqrt(double(std::max<size_t>(1, within.size())));
  const double lo_w = grow * quantile(within, tail), hi_w = grow * quantile(within, 1.0 - tail);
  double shift = 0;
  if (between.dof > 0)
    shift = t_quantile(1.0 - tail, between.dof) * std::sqrt(between.var * (1.0 + 1.0 / double(c.size())));
  return {std::min(0.0, centre - std::hypot(lo_w, shift)), std::max(0.0, centre + std::hypot(hi_w, shift))};
}

size_t rows_of(const ByFamily& c) {
  size_t n = 0;
  for (const auto& [f, r] : c) n += r.size();
  return n;
}


}  // namespace

std::vector<ErrorBand> fit_error_bands(const std::vector<HeldOutResidual>& held_out,
                                       const std::vector<HeldOutResidual>& unfitted, const BandFitOptions& o,
                                       const std::vector<BandCell>& measured) {
  std::map<std::string, std::map<std::string, ByFamily>> cells;  // kind -> generation -> family
  std::map<std::string, ByFamily> pooled, prior;                   // kind -> family
  std::map<std::string, std::map<std::string, ByFamily>> prior_cells;
  for (const auto& h : held_out) {
    cells[h.kind][h.generation][h.family].push_back(h.log_ratio);
    pooled[h.kind][h.family].push_back(h.log_ratio);
  }
  for (const auto& h : unfitted) {
    prior[h.kind][h.family].push_back(h.log_ratio);
    prior_cells[h.kind][h.generation][h.family].push_back(h.log_ratio);
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
      const ByFamily& all = pooled[kind];
      std::vector<const ByFamily*> gens;
      for (const auto& [gen, c] : it->second) gens.push_back(&c);
      const Between between = between_families(gens);
      const Edges kind_edges = family_edges(all, o.nominal, between);
      const size_t all_rows = rows_of(all);
      for (const auto& [gen, c] : it->second) {
        Edges e = family_edges(c, o.nominal, between);
        const size_t n = rows_of(c);
        std::string how = fmt::format(
            "{} held-out log(measured/predicted) for a family nobody fitted on: the families' mean shift, "
            "within-family quantiles and a new family's shift (t, {} dof) in quadrature",
            nominal, between.dof);
        if (n < size_t(o.few_rows)) {
          e = {std::min(e.lo, kind_edges.lo), std::max(e.hi, kind_edges.hi)};
          how += fmt::format(", joined with the kind's pooled band (under {} rows)", o.few_rows);
        }
        how += "; within-family quantiles widened by 1 + 1/sqrt(rows)";
        out.push_back(band(kind, gen, e, n, c.size(), how));
        kind_widest = {std::min(kind_widest.lo, e.lo), std::max(kind_widest.hi, e.hi)};
      }
      for (const auto& [k, gen] : measured) {
        if (k != kind || it->second.count(gen)) continue;
        const Edges e = kind_edges;
        out.push_back(band(kind, gen, e, all_rows, all.size(),
                           fmt::format("no other source family measures this generation: the kind's pooled {} "
                                       "band",
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
      std::vector<const ByFamily*> gens;
      for (const auto& [gen, c] : prior_cells[kind]) gens.push_back(&c);
      rows = rows_of(pr->second);
      const Edges p = family_edges(pr->second, o.nominal, between_families(gens));
      e = {std::min(e.lo, p.lo), std::max(e.hi, p.hi)};
      fams = pr->second.size();
    }
    e = {e.lo * o.unfitted_margin, e.hi * o.unfitted_margin};
    widest_lo = std::min(widest_lo, e.lo);
    widest_hi = std::max(widest_hi, e.hi);
    out.push_back(band(kind, std::string(kBandUnfitted), e, rows, fams,
                       fmt::format("generations without measurements: rows predicted with the prior efficiencies "
                                   "(the same rule), joined with every fitted band of "
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
