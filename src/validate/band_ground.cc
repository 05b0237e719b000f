#include "validate/band_ground.h"

#include <algorithm>
#include <set>

#include "core/text.h"

namespace gpuplan {

std::string band_domain(std::string_view kind) {
  // Training per kind: dense and MoE models stray from the fitted sizes differently (an MoE's size counts
  // every expert); serving's kinds share one widening.
  if (kind.substr(0, 8) == "training") return std::string(kind);
  // Serving per figure: TTFT carries the queueing for the prefill, whose error on a new source spreads
  // otherwise than a throughput's or a decode interval's ("serving_ttft" for both deployments).
  return "serving_" + std::string(kind.substr(kind.rfind('_') + 1));
}

void attach_ground(std::vector<ErrorBand>& bands, const std::vector<HeldOutResidual>& rows, int min_engine_rows) {
  std::map<BandCell, BandGround> ground;
  std::map<BandCell, std::set<std::string>> precisions, sources;
  std::map<BandCell, std::map<std::string, int>> engine_rows, accelerator_rows;
  for (const auto& h : rows) {
    BandGround& g = ground[{h.kind, h.generation}];
    if (!h.precision.empty()) precisions[{h.kind, h.generation}].insert(h.precision);
    if (!h.source_id.empty()) sources[{h.kind, h.generation}].insert(to_lower(band_source_key(h)));
    if (!h.engine.empty()) ++engine_rows[{h.kind, h.generation}][h.engine];
    if (!h.accelerator.empty()) ++accelerator_rows[{h.kind, h.generation}][h.accelerator];
    if (h.num_gpus > 0) {
      g.gpus_min = g.gpus_min > 0 ? std::min(g.gpus_min, h.num_gpus) : h.num_gpus;
      g.gpus_max = std::max(g.gpus_max, h.num_gpus);
    }
    if (h.params_b > 0) {
      g.params_b_min = g.params_b_min > 0 ? std::min(g.params_b_min, h.params_b) : h.params_b;
      g.params_b_max = std::max(g.params_b_max, h.params_b);
    }
  }
  for (auto& b : bands) {
    if (b.generation == kBandUnfitted) continue;
    const BandCell cell{b.kind, b.generation};
    auto it = ground.find(cell);
    if (it == ground.end()) continue;
    b.ground = it->second;
    const auto& p = precisions[cell];
    b.ground.precisions.assign(p.begin(), p.end());
    const auto& s = sources[cell];
    b.ground.sources.assign(s.begin(), s.end());
    b.ground.engines.clear();
    for (const auto& [e, n] : engine_rows[cell])
      if (n >= min_engine_rows) b.ground.engines.push_back(e);
    b.ground.accelerators.clear();
    for (const auto& [a, n] : accelerator_rows[cell])
      if (n >= min_engine_rows) b.ground.accelerators.push_back(a);
  }
}

void attach_widening(std::vector<ErrorBand>& bands, const std::map<std::string, BandWidening>& by_domain) {
  for (auto& b : bands)
    if (auto it = by_domain.find(band_domain(b.kind)); it != by_domain.end()) b.widening = it->second;
}

BandQuestion question_of(const HeldOutResidual& h, bool source_fitted) {
  BandQuestion q;
  q.source_fitted = source_fitted;
  q.precision = h.precision;
  q.num_gpus = h.num_gpus;
  q.params_b = h.params_b;
  q.engine = h.engine;
  q.accelerator = h.accelerator;
  return q;
}

std::vector<NewGroundRow> new_ground_rows(const std::vector<HeldOutResidual>& held_out,
                                          const std::vector<HeldOutResidual>& unfitted, const BandFitOptions& opts,
                                          const std::vector<BandCell>& measured, BandHoldOut by) {
  const auto group_of = [by](const HeldOutResidual& h) -> const std::string& {
    switch (by) {
      case BandHoldOut::engine:
        return h.engine;
      case BandHoldOut::accelerator:
        return h.accelerator;
      case BandHoldOut::source_id:
        return h.source_id;
      case BandHoldOut::release:
        return h.release;
      case BandHoldOut::source_family:
      case BandHoldOut::unseen:
        break;
    }
    return h.family;
  };
  std::set<std::string> groups;
  for (const auto& h : held_out)
    if (!group_of(h).empty()) groups.insert(group_of(h));
  const int min_engine_rows = min_band_rows(opts.nominal);
  std::vector<NewGroundRow> out;
  for (const auto& f : groups) {
    std::vector<HeldOutResidual> rest, mine, rest_prior;
    for (const auto& h : held_out) (group_of(h) == f ? mine : rest).push_back(h);
    for (const auto& h : unfitted)
      if (group_of(h) != f) rest_prior.push_back(h);
    auto bands = fit_error_bands(rest, rest_prior, opts, measured);
    attach_ground(bands, rest, min_engine_rows);
    for (auto& h : mine) {
      const ErrorBand& b = find_band(bands, h.kind, h.generation);
      GroundDistance d = ground_distance(b, question_of(h, false));
      out.push_back({std::move(h), b, std::move(d), by});
    }
  }
  return out;
}

std::vector<NewGroundRow> unseen_source_rows(const std::vector<HeldOutResidual>& rows,
                                             const std::vector<ErrorBand>& bands) {
  std::vector<NewGroundRow> out;
  out.reserve(rows.size());
  for (const auto& h : rows) {
    const ErrorBand& b = find_band(bands, h.kind, h.generation);
    BandQuestion q = question_of(h, false);
    q.source = band_source_key(h);
    GroundDistance d = ground_distance(b, q);
    out.push_back({h, b, std::move(d), BandHoldOut::unseen});
  }
  return out;
}

namespace {

using Field = double BandWidening::*;
using Dist = double GroundDistance::*;
struct Dimension {
  const char* name;
  Field factor;
  Dist distance;
};
constexpr Dimension kDimensions[] = {
    {"source", &BandWidening::source, &GroundDistance::source},
    {"precision", &BandWidening::precision, &GroundDistance::precision},
    {"scale", &BandWidening::scale, &GroundDistance::scale},
    {"model_size", &BandWidening::model_size, &GroundDistance::model_size},
    {"engine", &BandWidening::engine, &GroundDistance::engine},
    {"accelerator", &BandWidening::accelerator, &GroundDistance::accelerator},
};

// Whether a row counts towards a dimension's factor: the engine's from the engines left out, the
// accelerator's from the accelerators left out, every other dimension's from the source families left out;
// `unseen`: the source factor's second estimate, from the rows of unseen sources.
bool fits_dimension(const NewGroundRow& r, const Dimension& dim, bool unseen = false) {
  const BandHoldOut pass = unseen                                     ? BandHoldOut::unseen
                           : dim.factor == &BandWidening::engine      ? BandHoldOut::engine
                           : dim.factor == &BandWidening::accelerator ? BandHoldOut::accelerator
                                                                      : BandHoldOut::source_family;
  return r.held_out_by == pass && r.distance.*(dim.distance) > 0;
}

bool inside(const NewGroundRow& r, const BandWidening& w) {
  const LogEdges e = widened_log_edges(r.band.low_log, r.band.high_log, widening_multiplier(w, r.distance));
  return r.row.log_ratio >= e.low_log && r.row.log_ratio <= e.high_log;
}

// The group a left-out row went out with: its serving engine in the engine's pass, its accelerator in the
// accelerator's, else its source family.
const std::string& group_of(const NewGroundRow& r) {
  if (r.held_out_by == BandHoldOut::engine) return r.row.engine;
  if (r.held_out_by == BandHoldOut::accelerator) return r.row.accelerator;
  return r.row.family;
}

}  // namespace

double intra_group_correlation(const std::vector<const NewGroundRow*>& rows, const std::vector<double>& values) {
  std::map<std::string, std::pair<double, double>> g;  // group -> (sum of values, rows)
  double sum = 0;
  for (size_t i = 0; i < rows.size(); ++i) {
    auto& v = g[group_of(*rows[i])];
    v.first += values[i];
    v.second += 1;
    sum += values[i];
  }
  const double n = double(rows.size()), k = double(g.size());
  if (k < 2 || n <= k) return 0;
  double ssb = 0, ssw = 0, sq = 0;
  for (const auto& [name, v] : g) {
    ssb += v.second * (v.first / v.second - sum / n) * (v.first / v.second - sum / n);
    sq += v.second * v.second;
  }
  for (size_t i = 0; i < rows.size(); ++i) {
    const auto& v = g[group_of(*rows[i])];
    const double d = values[i] - v.first / v.second;
    ssw += d * d;
  }
  const double msb = ssb / (k - 1), msw = ssw / (n - k), n0 = (n - sq / n) / (k - 1);
  const double between = std::max(0.0, (msb - msw) / n0);
  return between + msw > 0 ? between / (between + msw) : 0;
}

std::vector<double> effective_weights(const std::vector<const NewGroundRow*>& rows, const std::vector<double>& values) {
  const double rho = intra_group_correlation(rows, values);
  std::map<std::string, double> n;
  for (const auto* r : rows) n[group_of(*r)] += 1;
  std::vector<double> w;
  w.reserve(rows.size());
  for (const auto* r : rows) w.push_back(1.0 / (1.0 + (n[group_of(*r)] - 1.0) * rho));
  return w;
}

std::map<std::string, BandWidening> fit_widening(const std::vector<NewGroundRow>& rows, double nominal,
                                                 double max_factor) {
  std::map<std::string, std::vector<const NewGroundRow*>> by_domain;
  for (const auto& r : rows) by_domain[band_domain(r.row.kind)].push_back(&r);
  std::map<std::string, BandWidening> out;
  const size_t min_rows = static_cast<size_t>(min_band_rows(nominal));
  for (const auto& [domain, rs] : by_domain) {
    BandWidening w;
    // The smallest factor along `dim` whose widened bands hold `nominal` of `off` (max_factor if none does),
    // the other dimensions at w's.
    auto factor_for = [&](const Dimension& dim, const std::vector<const NewGroundRow*>& off) {
      // Coverage grows with the factor (every band holds 0, so its edges only move out): the first
      // factor on a fine grid that reaches the nominal share.
      // Each row weighs its share of its group's effective sample (effective_weights): a new source
      // is one more group, so a group of many rows sharing one shift counts as few.
      std::vector<double> outside;  // the quantity counted: a row outside the band unwidened along the dimension
      BandWidening at_one = w;
      at_one.*(dim.factor) = 1.0;
      for (const auto* r : off) outside.push_back(inside(*r, at_one) ? 0.0 : 1.0);
      const std::vector<double> weight = effective_weights(off, outside);
      double total = 0;
      for (double x : weight) total += x;
      for (double f = 1.0; f <= max_factor + 1e-9; f += 0.01) {
        BandWidening t = w;
        t.*(dim.factor) = f;
        double in = 0;
        for (size_t i = 0; i < off.size(); ++i) in += inside(*off[i], t) ? weight[i] : 0;
        if (in >= nominal * total - 1e-9) return f;
      }
      return max_factor;
    };
    for (int pass = 0; pass < 3; ++pass) {
      for (const auto& dim : kDimensions) {
        std::vector<const NewGroundRow*> off, unseen;
        for (const auto* r : rs) {
          if (fits_dimension(*r, dim)) off.push_back(r);
          if (dim.factor == &BandWidening::source && fits_dimension(*r, dim, true)) unseen.push_back(r);
        }
        double chosen = off.size() < min_rows ? 1.0 : factor_for(dim, off);
        if (unseen.size() >= min_rows) chosen = std::max(chosen, factor_for(dim, unseen));
        w.*(dim.factor) = chosen;
      }
    }
    out[domain] = w;
  }
  return out;
}

BandCoverage new_ground_coverage(const std::vector<NewGroundRow>& rows,
                                 const std::map<std::string, BandWidening>& by_domain) {
  BandCoverage out;
  for (const auto& r : rows) {
    const auto it = by_domain.find(band_domain(r.row.kind));
    const bool in = inside(r, it != by_domain.end() ? it->second : BandWidening{});
    for (Coverage* c : {&out.by_kind["all"], &out.by_kind[r.row.kind], &out.by_file[r.row.file]["all"],
                        &out.by_file[r.row.file][r.row.kind]}) {
      ++c->rows;
      c->inside += in ? 1 : 0;
    }
  }
  return out;
}

BandCoverage nested_new_ground_coverage(const std::vector<NewGroundRow>& rows, double nominal, double max_factor) {
  std::set<std::string> families;
  const auto checked = [](const NewGroundRow& r) {
    return r.held_out_by == BandHoldOut::source_family || r.held_out_by == BandHoldOut::unseen;
  };
  for (const auto& r : rows)
    if (checked(r)) families.insert(r.row.family);
  BandCoverage out;
  for (const auto& f : families) {
    std::vector<NewGroundRow> rest, mine;
    for (const auto& r : rows)
      if (r.row.family != f) rest.push_back(r);
      else if (checked(r)) mine.push_back(r);
    out.add(new_ground_coverage(mine, fit_widening(rest, nominal, max_factor)));
  }
  return out;
}

std::map<std::string, size_t> off_ground_counts(const std::vector<NewGroundRow>& rows) {
  std::map<std::string, size_t> n;
  for (const auto& r : rows)
    for (const auto& dim : kDimensions)
      if (fits_dimension(r, dim)) ++n[dim.name];
  return n;
}

}  // namespace gpuplan
