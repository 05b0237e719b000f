// Sizing with the odds (see sizing.h).
#include "sizing/sizing.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <string>
#include <tuple>

#include "core/error.h"
#include "inference/queueing.h"

namespace gpuplan::sizing {

namespace {

// splitmix64: a small, portable generator, so a seed gives the same draws on every platform.
struct Rng {
  std::uint64_t s;
  std::uint64_t next() {
    std::uint64_t z = (s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  double uniform() { return (double(next() >> 11) + 0.5) * (1.0 / 9007199254740992.0); }
  double normal() { return normal_quantile(uniform()); }
};

}  // namespace

LogNormalError band_error(const ErrorBand& b) {
  const double z90 = 1.2815515655446004;
  const double median = std::clamp(b.median_log.value_or(0.5 * (b.low_log + b.high_log)), b.low_log, b.high_log);
  return {median, std::max(0.0, (median - b.low_log) / z90), std::max(0.0, (b.high_log - median) / z90)};
}

void apply_band_correlation(const BandCorrelation& measured, SizingOptions& o) {
  if (measured.pairs_same + measured.pairs_cross <= 0) return;
  o.same_generation_correlation = measured.same_generation;
  o.cross_generation_correlation = measured.cross_generation;
}

bool meets_sla(const OpenLoopCurve& c, double rate, const Sla& sla, const OpenLoopScale& scale) {
  OpenLoopLimits limits;
  limits.ttft_p99_s = sla.ttft_p99_s;
  limits.tpot_p50_s = sla.tokens_per_s_per_user > 0 ? 1.0 / sla.tokens_per_s_per_user : 0.0;
  limits.tpot_p99_s = sla.tpot_p99_s;
  return open_loop_meets(c, rate, limits, scale);
}

long long fewest_replicas(const OpenLoopCurve& c, double total_rate, const Sla& sla, const OpenLoopScale& scale,
                          long long max_replicas, long long hint) {
  if (max_replicas < 1) return 0;
  const auto ok = [&](long long k) { return meets_sla(c, total_rate / double(k), sla, scale); };
  // A bracket lo < answer <= hi (lo fails or is 0, hi meets), then bisection: galloping from the hint
  // (steps 1, 2, 4 ..; from one without a hint), so a count near the hint costs a few evaluations and
  // one far from it log2 of the distance, twice.
  long long lo = 0, hi = 0;
  const long long h = std::clamp(hint, 1LL, max_replicas);
  if (ok(h)) {
    hi = h;
    for (long long step = 1; hi - step >= 1; step *= 2) {
      if (!ok(hi - step)) {
        lo = hi - step;
        break;
      }
      hi -= step;
    }
  } else {
    lo = h;
    for (long long step = 1;; step *= 2) {
      if (lo >= max_replicas) return 0;
      const long long k = std::min(max_replicas, lo + step);
      if (ok(k)) {
        hi = k;
        break;
      }
      lo = k;
    }
  }
  while (hi - lo > 1) {
    const long long mid = lo + (hi - lo) / 2;
    (ok(mid) ? hi : lo) = mid;
  }
  return hi;
}

OpenLoopScale error_at_confidence(const Candidate& c, double confidence) {
  const double z = normal_quantile(confidence);
  return {std::max(1.0, std::exp(band_error(c.tpot_band).at(z))), std::max(1.0, std::exp(band_error(c.ttft_band).at(z)))};
}

bool meets_within_reach(const Candidate& c, const SizingOptions& o, const OpenLoopScale& scale) {
  const long long nominal = fewest_replicas(c.curve, o.requests_per_s, o.sla, {}, o.max_replicas);
  return nominal > 0 &&
         fewest_replicas(c.curve, o.requests_per_s, o.sla, scale, std::min(o.max_replicas, kMaxOverNominal * nominal)) > 0;
}

std::vector<std::vector<OpenLoopScale>> draw_scales(const std::vector<Candidate>& cands, const SizingOptions& o) {
  if (o.draws < 1 || o.draws > 1'000'000) throw InputError("--draws", "must be 1 to 1000000");
  if (!(o.cross_generation_correlation >= 0 && o.cross_generation_correlation <= o.same_generation_correlation &&
        o.same_generation_correlation <= 1))
    throw InputError("error_band_correlation", "needs 0 <= cross_generation <= same_generation <= 1");
  // Each shared draw (a band kind across generations, a kind on one generation, a kind on one system)
  // is a stream of its own, seeded by the seed and its name: a system's draws are the same whichever
  // other candidates are sized beside it (size over the catalog, infer on one system).
  std::map<std::string, std::vector<double>> streams;
  const auto stream = [&](const std::string& key) -> const std::vector<double>& {
    auto [it, fresh] = streams.try_emplace(key);
    if (fresh) {
      std::uint64_t h = 0xcbf29ce484222325ULL;  // FNV-1a of the name
      for (unsigned char ch : key) h = (h ^ ch) * 0x100000001b3ULL;
      Rng rng{o.seed ^ h};
      it->second.resize(std::size_t(o.draws));
      for (double& z : it->second) z = rng.normal();
    }
    return it->second;
  };
  const double w_common = std::sqrt(o.cross_generation_correlation);
  const double w_generation = std::sqrt(o.same_generation_correlation - o.cross_generation_correlation);
  const double w_own = std::sqrt(1 - o.same_generation_correlation);
  std::vector<std::vector<OpenLoopScale>> scales(cands.size(), std::vector<OpenLoopScale>(std::size_t(o.draws)));
  for (std::size_t i = 0; i < cands.size(); ++i) {
    const Candidate& c = cands[i];
    // A system's own error, shared by its alternative deployments (a candidate without a name: its own).
    const std::string who = c.system.empty() ? "#" + std::to_string(i) : c.system;
    const auto mixed = [&](const ErrorBand& b) {
      std::vector<double> z(std::size_t(o.draws), 0.0);
      const auto add = [&](double w, const std::string& key) {
        if (w <= 0) return;  // only what is weighed is drawn
        const std::vector<double>& s = stream(key);
        for (std::size_t d = 0; d < z.size(); ++d) z[d] += w * s[d];
      };
      add(w_generation, "generation|" + b.kind + "|" + c.generation);
      add(w_common, "kind|" + b.kind);
      add(w_own, "system|" + b.kind + "|" + who);
      return z;
    };
    const LogNormalError tpot_error = band_error(c.tpot_band), ttft_error = band_error(c.ttft_band);
    const std::vector<double> z_tpot = mixed(c.tpot_band), z_ttft = mixed(c.ttft_band);
    for (std::size_t d = 0; d < std::size_t(o.draws); ++d)
      scales[i][d] = {std::exp(tpot_error.at(z_tpot[d])), std::exp(ttft_error.at(z_ttft[d]))};
  }
  return scales;
}

std::vector<SizedOption> size_candidates(const std::vector<Candidate>& cands, const SizingOptions& o) {
  if (!(o.requests_per_s > 0 && std::isfinite(o.requests_per_s))) throw InputError("--requests-per-s", "must be above 0");
  if (!(o.confidence > 0 && o.confidence < 1)) throw InputError("--confidence", "must be above 0 and below 1");
  const std::vector<std::vector<OpenLoopScale>> scales = draw_scales(cands, o);
  const std::size_t n = cands.size();
  std::vector<SizedOption> out(n);
  for (std::size_t i = 0; i < n; ++i) {
    out[i].replicas_nominal = fewest_replicas(cands[i].curve, o.requests_per_s, o.sla, {}, o.max_replicas);
    out[i].feasible = out[i].replicas_nominal > 0;
    if (!out[i].feasible) out[i].why_not = "no number of replicas meets the SLA (one request alone misses it)";
  }
  // Per draw: the fewest replicas each candidate needs; then the purchase. A group's alternatives go in
  // order of the units their central figures need: one needing more than another already buys cannot be
  // bought (a purchase is never below the central figures' count) and is not drawn.
  std::vector<std::vector<long long>> need(n, std::vector<long long>(o.draws, 0));
  const double needed = std::ceil(o.confidence * o.draws - 1e-9);
  const auto nominal_units = [&](std::size_t i) { return out[i].replicas_nominal * cands[i].replica_units; };
  std::vector<std::size_t> order(n);
  for (std::size_t i = 0; i < n; ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) {
    if (cands[x].group != cands[y].group) return cands[x].group < cands[y].group;
    return cands[x].group >= 0 && nominal_units(x) < nominal_units(y);
  });
  std::map<int, long long> fewest_bought;  // group -> the fewest units an alternative buys so far
  for (std::size_t i : order) {
    SizedOption& s = out[i];
    if (!s.feasible) continue;
    if (const auto it = fewest_bought.find(cands[i].group); it != fewest_bought.end() && nominal_units(i) > it->second) {
      s.why_not = fmt::format("not sized: its central figures need {} units, more than another deployment of the "
                              "system buys ({})",
                              nominal_units(i), it->second);
      continue;
    }
    // The draws in order of their decode scale, each searched from the count the one before needed
    // (neighbours need nearly the same): a few evaluations a draw where a search from one takes dozens.
    // A draw no slower than one that met nothing within reach, in both scales, is not searched: slower
    // times never need fewer replicas.
    std::vector<int> by_scale(std::size_t(o.draws));
    for (int d = 0; d < o.draws; ++d) by_scale[std::size_t(d)] = d;
    const std::vector<OpenLoopScale>& sc = scales[i];
    std::sort(by_scale.begin(), by_scale.end(), [&](int a, int b) {
      return std::tie(sc[std::size_t(a)].tpot, sc[std::size_t(a)].prefill, a) <
             std::tie(sc[std::size_t(b)].tpot, sc[std::size_t(b)].prefill, b);
    });
    long long hint = s.replicas_nominal;
    double out_of_reach_prefill = std::numeric_limits<double>::infinity();  // least of the draws met by none
    for (int d : by_scale) {
      const OpenLoopScale& x = sc[std::size_t(d)];
      const long long k =
          x.prefill >= out_of_reach_prefill
              ? 0
              : fewest_replicas(cands[i].curve, o.requests_per_s, o.sla, x,
                                std::min(o.max_replicas, kMaxOverNominal * s.replicas_nominal), hint);
      need[i][std::size_t(d)] = k;
      if (k > 0)
        hint = k;
      else
        out_of_reach_prefill = std::min(out_of_reach_prefill, x.prefill);
    }
    std::vector<long long> v;
    for (long long k : need[i])
      if (k > 0) v.push_back(k);
    if (double(v.size()) < needed) {
      s.replicas = 0;  // the confidence is out of reach at any size
      // The share cut (not rounded) to a tenth of a percent: never shown at the confidence it misses.
      s.why_not = fmt::format("only {:.1f}% of the draws meet the SLA within {}x the {} replicas the model's central "
                              "figures need (the rest only nearly idle, or never: the SLA is within the model's error "
                              "of one request's own latency)",
                              std::floor(1000.0 * double(v.size()) / o.draws) / 10.0, kMaxOverNominal,
                              s.replicas_nominal);
    } else {
      std::sort(v.begin(), v.end());
      s.replicas = std::max(s.replicas_nominal, v[std::size_t(needed) - 1]);
    }
    long long met = 0;
    for (long long k : need[i])
      if (k > 0 && k <= s.replicas) ++met;
    s.p_meets_sla = double(met) / o.draws;
    if (s.replicas == 0) continue;
    s.units = s.replicas * cands[i].replica_units;
    s.gpus = s.units * cands[i].unit_gpus;
    s.at_bought = open_loop(cands[i].curve, o.requests_per_s / double(s.replicas));
    if (cands[i].group >= 0) {
      auto [it, fresh] = fewest_bought.emplace(cands[i].group, s.units);
      if (!fresh) it->second = std::min(it->second, s.units);
    }
  }
  // Of each group, the alternative bought: the fewest units, then the smaller replica (a smaller failure
  // domain for the same purchase: P(meets SLA) already reached the confidence on both), then the higher
  // P(meets SLA); where none is bought, the last.
  std::map<int, std::size_t> bought;  // group -> candidate
  for (std::size_t i = 0; i < n; ++i) {
    if (cands[i].group < 0) continue;
    auto [it, fresh] = bought.emplace(cands[i].group, i);
    if (fresh) continue;
    const std::size_t j = it->second;
    const SizedOption &a = out[j], &b = out[i];
    const auto key = [&](std::size_t k) {
      return std::tuple(out[k].units, cands[k].replica_units, -out[k].p_meets_sla);
    };
    const bool better = b.units > 0 && (a.units == 0 || key(i) < key(j));
    if (better || (a.units == 0 && b.units == 0)) it->second = i;
  }
  for (std::size_t i = 0; i < n; ++i)
    if (cands[i].group >= 0) out[i].chosen = bought.at(cands[i].group) == i;
  // Per draw, which bought alternative is cheapest.
  std::vector<double> cheapest(n, 0.0);
  int priced_draws = 0;
  for (int d = 0; d < o.draws; ++d) {
    double best = 0;
    std::vector<std::size_t> best_i;
    for (std::size_t i = 0; i < n; ++i) {
      const long long k = need[i][d];
      if (!out[i].chosen || k <= 0 || cands[i].usd_per_unit_year <= 0) continue;
      const double usd = double(k) * cands[i].replica_units * cands[i].usd_per_unit_year;
      if (best_i.empty() || usd < best * (1 - 1e-12)) {
        best = usd;
        best_i = {i};
      } else if (usd <= best * (1 + 1e-12)) {
        best_i.push_back(i);
      }
    }
    if (!best_i.empty()) {
      ++priced_draws;
      for (std::size_t i : best_i) cheapest[i] += 1.0 / double(best_i.size());
    }
  }
  for (std::size_t i = 0; i < n; ++i) out[i].p_cheapest = priced_draws ? cheapest[i] / priced_draws : 0;
  return out;
}

}  // namespace gpuplan::sizing
