// Sizing with the odds (see sizing.h).
#include "sizing/sizing.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

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
                          long long max_replicas) {
  const auto ok = [&](long long k) { return meets_sla(c, total_rate / double(k), sla, scale); };
  // Lower bound from the prefill and decode capacities would save steps; doubling then bisection
  // costs log2 of the answer twice.
  long long hi = 1;
  while (!ok(hi)) {
    if (hi >= max_replicas) return 0;
    hi = std::min(max_replicas, hi * 2);
  }
  long long lo = hi / 2;  // fails (or 0)
  while (hi - lo > 1) {
    const long long mid = lo + (hi - lo) / 2;
    (ok(mid) ? hi : lo) = mid;
  }
  return hi;
}

std::vector<std::vector<OpenLoopScale>> draw_scales(const std::vector<Candidate>& cands, const SizingOptions& o) {
  if (o.draws < 1 || o.draws > 1'000'000) throw InputError("--draws", "must be 1 to 1000000");
  if (!(o.cross_generation_correlation >= 0 && o.cross_generation_correlation <= o.same_generation_correlation &&
        o.same_generation_correlation <= 1))
    throw InputError("error_band_correlation", "needs 0 <= cross_generation <= same_generation <= 1");
  const std::size_t n = cands.size();
  // The band kinds and generations drawn: one standard normal per (kind, generation), shared; each
  // candidate scales it by its own band (widened for its question off the bands' ground).
  std::map<std::string, std::size_t> key_index;
  std::vector<std::size_t> tpot_key(n), ttft_key(n);
  std::vector<LogNormalError> tpot_error(n), ttft_error(n);
  const auto key_of = [&](const ErrorBand& b, const std::string& generation) {
    return key_index.emplace(b.kind + "|" + generation, key_index.size()).first->second;
  };
  // The draws shared by every generation (per kind) and each candidate's own (per kind and candidate),
  // drawn after the generations' in each draw.
  std::map<std::string, std::size_t> common_index, own_index;
  std::vector<std::size_t> tpot_common(n), ttft_common(n), tpot_own(n), ttft_own(n);
  const auto common_of = [&](const ErrorBand& b) { return common_index.emplace(b.kind, common_index.size()).first->second; };
  const auto own_of = [&](const ErrorBand& b, std::size_t i) {
    return own_index.emplace(b.kind + "|" + std::to_string(i), own_index.size()).first->second;
  };
  const double w_common = std::sqrt(o.cross_generation_correlation);
  const double w_generation = std::sqrt(o.same_generation_correlation - o.cross_generation_correlation);
  const double w_own = std::sqrt(1 - o.same_generation_correlation);
  for (std::size_t i = 0; i < n; ++i) {
    tpot_key[i] = key_of(cands[i].tpot_band, cands[i].generation);
    ttft_key[i] = key_of(cands[i].ttft_band, cands[i].generation);
    tpot_common[i] = common_of(cands[i].tpot_band);
    ttft_common[i] = common_of(cands[i].ttft_band);
    tpot_own[i] = own_of(cands[i].tpot_band, i);
    ttft_own[i] = own_of(cands[i].ttft_band, i);
    tpot_error[i] = band_error(cands[i].tpot_band);
    ttft_error[i] = band_error(cands[i].ttft_band);
  }
  std::vector<std::vector<OpenLoopScale>> scales(n, std::vector<OpenLoopScale>(std::size_t(o.draws)));
  Rng rng{o.seed};
  std::vector<double> z(key_index.size()), z_common(common_index.size()), z_own(own_index.size());
  for (int d = 0; d < o.draws; ++d) {
    for (double& zk : z) zk = rng.normal();
    // Only what is weighed is drawn, so the defaults (a generation as one) keep the generations' draws alone.
    if (w_common > 0)
      for (double& zk : z_common) zk = rng.normal();
    if (w_own > 0)
      for (double& zk : z_own) zk = rng.normal();
    const auto mixed = [&](std::size_t gen_key, std::size_t common_key, std::size_t own_key) {
      return w_generation * z[gen_key] + (w_common > 0 ? w_common * z_common[common_key] : 0.0) +
             (w_own > 0 ? w_own * z_own[own_key] : 0.0);
    };
    for (std::size_t i = 0; i < n; ++i)
      scales[i][std::size_t(d)] = {
          std::exp(tpot_error[i].at(mixed(tpot_key[i], tpot_common[i], tpot_own[i]))),
          std::exp(ttft_error[i].at(mixed(ttft_key[i], ttft_common[i], ttft_own[i])))};
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
  // Per draw: the fewest replicas each candidate needs, and which is cheapest.
  std::vector<std::vector<long long>> need(n, std::vector<long long>(o.draws, 0));
  std::vector<double> cheapest(n, 0.0);
  int priced_draws = 0;
  for (int d = 0; d < o.draws; ++d) {
    double best = 0;
    std::vector<std::size_t> best_i;
    for (std::size_t i = 0; i < n; ++i) {
      if (!out[i].feasible) continue;
      const long long k = fewest_replicas(cands[i].curve, o.requests_per_s, o.sla, scales[i][std::size_t(d)],
                                          std::min(o.max_replicas, kMaxOverNominal * out[i].replicas_nominal));
      need[i][d] = k;
      if (k <= 0 || cands[i].usd_per_unit_year <= 0) continue;
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
  for (std::size_t i = 0; i < n; ++i) {
    SizedOption& s = out[i];
    s.p_cheapest = priced_draws ? cheapest[i] / priced_draws : 0;
    if (!s.feasible) continue;
    std::vector<long long> v;
    for (long long k : need[i])
      if (k > 0) v.push_back(k);
    const double needed = std::ceil(o.confidence * o.draws - 1e-9);
    if (double(v.size()) < needed) {
      s.replicas = 0;  // the confidence is out of reach at any size
      s.why_not = fmt::format("only {:.0f}% of the draws meet the SLA within {}x the {} replicas the model's central "
                              "figures need (the rest only nearly idle, or never: the SLA is within the model's error "
                              "of one request's own latency)",
                              100.0 * double(v.size()) / o.draws, kMaxOverNominal, s.replicas_nominal);
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
  }
  return out;
}

}  // namespace gpuplan::sizing
