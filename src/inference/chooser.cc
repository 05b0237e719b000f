#include "inference/chooser.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <numeric>
#include <optional>
#include <mutex>
#include <set>
#include <vector>

#include "core/error.h"
#include "inference/step.h"

namespace gpuplan {

namespace {

// A deployment the chooser evaluates at several loads, with its evaluator (an aggregated deployment's,
// made at its first point evaluated: the parts of a point that do not depend on the load, once).
struct DeploymentPoints {
  explicit DeploymentPoints(ServingDeployment deployment, bool repeated_ = false)
      : d(std::move(deployment)), repeated(repeated_) {}
  ServingDeployment d;
  std::unique_ptr<InferenceEvaluator> aggregated;
  // A disaggregated deployment generated more than once on its GPUs (pools whose rounding gives the
  // same split): its copies' points are kept for one another.
  bool repeated = false;
};

// A deployment with its result at the most clients it holds (the KV cache's or the decode slots'
// limit): its throughput there bounds what it gives at any target. `order`: its place among its size's
// deployments (ties in throughput go by it).
struct Candidate {
  DeploymentPoints dp;
  InferenceResult top;
  std::size_t order = 0;
};

// A disaggregated deployment whose result at the most clients is not yet evaluated, with a bound on
// the tokens/s per GPU it gives at any load (disaggregated_bound).
struct Pending {
  DeploymentPoints dp;
  double bound_tokens_per_s_per_gpu = 0;
  std::size_t order = 0;
};

// The order the candidates are solved in: the most throughput at the most clients first, then the
// first generated.
bool solved_before(const Candidate& a, const Candidate& b) {
  if (a.top.tokens_per_s_per_gpu != b.top.tokens_per_s_per_gpu)
    return a.top.tokens_per_s_per_gpu > b.top.tokens_per_s_per_gpu;
  return a.order < b.order;
}

// The least load that puts one sequence on every rank: one per instance (per attention-DP rank), or one
// per decode worker of a disaggregated deployment (as the sweep starts).
long long min_load(const ServingDeployment& d, const InferenceResult& top) {
  if (d.disaggregated) return std::max(1, d.disagg.decode_gpus / std::max(1, d.disagg.decode.tp));
  return std::max(1LL, static_cast<long long>(top.instances) * (d.parallel.attention_dp ? d.parallel.tp : 1));
}

void put(ServingEvalCache::Key& k, std::size_t& i, const InferenceParallel& p) {
  k[i++] = p.tp;
  k[i++] = p.ep;
  k[i++] = p.pp;
  k[i++] = p.attention_dp;
  k[i++] = p.two_batch_overlap;
}

// The cache's key of deployment `d` at `c` clients.
ServingEvalCache::Key point_key(const ServingDeployment& d, long long c) {
  ServingEvalCache::Key k{};
  std::size_t i = 0;
  k[i++] = d.gpus;
  k[i++] = d.disaggregated;
  k[i++] = d.mtp_draft_tokens;
  k[i++] = c;
  put(k, i, d.parallel);
  if (d.disaggregated) {
    const DisaggregatedDeployment& g = d.disagg;
    put(k, i, g.prefill);
    put(k, i, g.decode);
    k[i++] = g.prefill_gpus;
    k[i++] = g.decode_gpus;
    k[i++] = g.decode_max_batch;
    k[i++] = g.prefill_max_batch;
    k[i++] = g.prefill_max_tokens;
    k[i++] = g.prefill_fp8_block_gemm_triton;
  }
  return k;
}

struct Solver {
  // `drafts`: deployments with MTP drafts are evaluated (their instances carry the draft head's pass).
  explicit Solver(const ServingScenario& scenario, bool drafts = false)
      : s(scenario), serving_hw(serving_hardware(scenario.hw)), instances(drafts) {}
  const ServingScenario& s;
  const Hardware serving_hw;  // serving_hardware(s.hw), made once for every aggregated point
  // The aggregated deployments' instances, shared by the deployments of one parallelism (with and
  // without MTP drafts).
  InferenceInstances instances;
  std::size_t evaluated = 0;
  // At one sequence per rank (the fastest a deployment gets): the best per-user speed seen, the best
  // within the TTFT limit, and the lowest TTFT.
  double fastest = 0, fastest_within_ttft = 0, lowest_ttft = 0;

  // How far a result is from the traffic's limits, relative: <= 0 within them (per-user speed at least
  // the target, TTFT within the limit), 1 for a result that does not fit.
  double shortfall(const InferenceResult& r) const {
    if (!r.valid() || r.tokens_per_s_per_user <= 0) return 1.0;
    double g = -1.0;
    const double need = s.traffic.min_tokens_per_s_per_user();
    if (need > 0) g = std::max(g, need / r.tokens_per_s_per_user - 1.0);
    if (s.traffic.ttft_limit_s > 0) g = std::max(g, r.ttft_s / s.traffic.ttft_limit_s - 1.0);
    return g;
  }

  ServingEvalCache* cache = nullptr;
  // Without `cache`: the repeated deployments' points.
  std::unordered_map<ServingEvalCache::Key, InferenceResult, ServingEvalCache::KeyHash> own_points;
  // The disaggregated deployments' pools, evaluated once for every pairing and load they serve in (the
  // cache's when shared).
  DisaggregatedPools own_pools{false};  // this chooser's alone (one thread)
  DisaggregatedPools* pools = &own_pools;

  // evaluate_scenario(s, dp.d, c), the pools and the aggregated evaluator kept.
  InferenceResult evaluate(DeploymentPoints& dp, long long c) {
    const ServingDeployment& d = dp.d;
    if (!d.disaggregated) {
      if (!dp.aggregated)
        dp.aggregated =
            std::make_unique<InferenceEvaluator>(s.model, serving_hw, d.parallel, scenario_workload(s, d, c), &instances);
      return dp.aggregated->evaluate(c);
    }
    return evaluate_disaggregated(s.model, s.hw, d.disagg, scenario_workload(s, d, c), pools);
  }

  InferenceResult eval(DeploymentPoints& dp, long long c) {
    const ServingDeployment& d = dp.d;
    ++evaluated;
    if (!cache) {
      // A repeated deployment's points: evaluated for its first copy, the same for the others.
      if (!dp.repeated) return evaluate(dp, c);
      const ServingEvalCache::Key key = point_key(d, c);
      if (auto it = own_points.find(key); it != own_points.end()) return it->second;
      InferenceResult r = evaluate(dp, c);  // a deployment the shapes refuse throws: not kept
      return own_points.emplace(key, std::move(r)).first->second;
    }
    const ServingEvalCache::Key key = point_key(d, c);
    {
      std::lock_guard<SpinLock> lock(cache->mutex);
      if (auto it = cache->points.find(key); it != cache->points.end()) return it->second;
    }
    InferenceResult r = evaluate(dp, c);  // a deployment the shapes refuse throws: not cached
    std::lock_guard<SpinLock> lock(cache->mutex);
    cache->points.emplace(key, r);
    return r;
  }

  // The ranks the load spreads over (`lo0`: one sequence per instance or decode worker), each
  // attention-DP rank of a disaggregated decode worker its own.
  static long long rank_count(const ServingDeployment& d, long long lo0) {
    long long ranks = std::max(1LL, lo0);
    if (d.disaggregated && d.disagg.decode.attention_dp) ranks *= std::max(1, d.disagg.decode.tp);
    return ranks;
  }

  // What bounds the tokens/s per GPU a deployment can give at loads it has not been evaluated at. Per-user
  // speed does not grow with the load (the busiest rank's step only lengthens), and tokens/s per GPU is
  // at most the load times the per-user speed over the GPUs (every request in flight decodes at that
  // speed, or it prefills or waits). So a load c gives at most c x (the speed at the largest evaluated
  // load <= c) / GPUs: the bound the chooser skips loads and deployments by (chooser_test checks it
  // against evaluated loads).
  struct Ceiling {
    std::vector<std::pair<long long, double>> points;  // evaluated load -> per-user speed, ascending load
    double per_gpu = 0;                                // tokens/s per GPU of one token/s of the deployment
    void reset(const InferenceResult& r) {
      points.clear();
      per_gpu = r.tokens_per_s_total > 0 ? r.tokens_per_s_per_gpu / r.tokens_per_s_total : 0;
    }
    void add(long long c, const InferenceResult& r) {
      if (!r.valid() || !(r.tokens_per_s_per_user > 0)) return;
      auto it = std::lower_bound(points.begin(), points.end(), std::make_pair(c, -1.0));
      if (it == points.end() || it->first != c) points.insert(it, {c, r.tokens_per_s_per_user});
    }
    // The most tokens/s per GPU a load in [a, b] can give (points[0] at or below a), with a margin
    // of a few ulps over the evaluator's rounding.
    double over(long long a, long long b) const {
      double most = 0;
      for (std::size_t i = 0; i < points.size(); ++i) {
        const long long end = i + 1 < points.size() ? std::min(b, points[i + 1].first - 1) : b;
        if (end < a || end < points[i].first) continue;
        most = std::max(most, double(end) * points[i].second * per_gpu);
      }
      return most * (1 + 1e-9);
    }
    // A disaggregated deployment's prefill side, and its tokens/s per GPU of one request/s (OSL over
    // the GPUs); without: an aggregated one.
    std::optional<PrefillTimeFloor> prefill;
    double osl = 0, per_gpu_of_rate = 0;
    // Whether no load in [a, b] (points[0] at or below a) can give more than `x` tokens/s per GPU.
    // Beyond over(): a disaggregated deployment's c clients hold its requests/s r in both pools,
    // r (prefill time + decode time) <= c (evaluate_disaggregated's split), its decode time at least
    // OSL x TPOT (its first token's step is no shorter than a TPOT) and its TPOT at least 1 / the
    // per-user speed of a lower load; the left side grows with r, so where it already exceeds c at
    // the rate that would give x, every rate c allows gives less (margins over the rounding of both).
    bool below(long long a, long long b, double x) const {
      if (over(a, b) <= x) return true;
      if (!prefill) return false;
      const double r_x = x / per_gpu_of_rate * (1 - 1e-9);
      const double prefill_s = prefill->at(r_x);
      for (std::size_t i = 0; i < points.size(); ++i) {
        const long long end = i + 1 < points.size() ? std::min(b, points[i + 1].first - 1) : b;
        if (end < a || end < points[i].first) continue;
        if (!(r_x * (prefill_s + osl / points[i].second) > double(end) * (1 + 1e-9))) return false;
      }
      return true;
    }
  };
  Ceiling ceiling;

  // Deployment `d`'s best point at the traffic (its result at the most clients: `top`): false when even
  // one sequence per rank misses the traffic, or (beat >= 0) when no load can give more than `beat`
  // tokens/s per GPU (by the ceiling: the loads it rules out are not evaluated). Otherwise the point is
  // the one exhaustive solving finds, whenever it gives more than `beat`.
  bool solve(DeploymentPoints& dp, const InferenceResult& top, SweepPoint& out, double beat = -1) {
    const ServingDeployment& d = dp.d;
    if (!top.valid() || top.max_concurrency < 1) return false;
    const long long hi = top.max_concurrency;
    const long long lo0 = std::min(min_load(d, top), hi);
    InferenceResult at_lo = lo0 == top.concurrency ? top : eval(dp, lo0);
    if (at_lo.valid()) {
      fastest = std::max(fastest, at_lo.tokens_per_s_per_user);
      lowest_ttft = lowest_ttft > 0 ? std::min(lowest_ttft, at_lo.ttft_s) : at_lo.ttft_s;
      if (!(s.traffic.ttft_limit_s > 0 && at_lo.ttft_s > s.traffic.ttft_limit_s))
        fastest_within_ttft = std::max(fastest_within_ttft, at_lo.tokens_per_s_per_user);
    }
    const bool pruning = beat >= 0 && at_lo.valid() && at_lo.tokens_per_s_total > 0;
    if (pruning) {
      ceiling.reset(at_lo);
      ceiling.add(lo0, at_lo);
      ceiling.add(top.concurrency, top);
      ceiling.prefill.reset();
      if (d.disaggregated) {
        const InferenceWorkload w = scenario_workload(s, d, 0);
        ceiling.prefill.emplace(s.model, s.hw, d.disagg, w, pools);
        ceiling.osl = double(w.osl);
        ceiling.per_gpu_of_rate = double(w.osl) / double(d.disagg.prefill_gpus + d.disagg.decode_gpus);
      }
    }
    auto cannot_beat = [&](long long a, long long b) { return pruning && ceiling.below(a, b, beat); };
    // The loads the solve can choose lie within `reach` below the largest that meets the traffic
    // (best_below's run and even loads).
    const long long ranks = rank_count(d, lo0);
    const long long reach = std::clamp(ranks, 8LL, 32LL) + 4 * ranks;
    if (meets_traffic(s.traffic, top)) {  // the most clients it holds meet it: no bisection
      if (cannot_beat(std::max(lo0, top.concurrency - reach), top.concurrency)) return false;
      long long at = top.concurrency;
      InferenceResult best = top;
      best_below(dp, lo0, at, best, pruning ? beat : -1);
      out = SweepPoint::of(d, at, std::move(best));
      return true;
    }
    if (!meets_traffic(s.traffic, at_lo)) return false;
    // Bracketing: lo meets the traffic, up does not (per-user speed falls and TTFT grows with the load).
    // Each step tries where the shortfall, interpolated linearly between the two ends, crosses zero
    // (TPOT and TTFT are near linear in the load: a few steps), falling back to the middle whenever
    // that did not halve the bracket, so it never takes more than twice bisection's steps. The point
    // found and the loads tried below it all lie below `up` and within `reach` below `lo`: once the
    // ceiling says no load there beats `beat`, the deployment is done.
    long long lo = lo0, up = hi;
    double g_lo = shortfall(at_lo), g_up = shortfall(top);
    InferenceResult best = std::move(at_lo);
    bool halve = false;
    while (up - lo > 1) {
      if (cannot_beat(std::max(lo0, lo - reach), up - 1)) return false;
      long long mid = lo + (up - lo) / 2;
      if (!halve && g_up > g_lo) {
        const double x = double(lo) + double(up - lo) * (-g_lo) / (g_up - g_lo);
        mid = std::clamp(static_cast<long long>(std::floor(x)), lo + 1, up - 1);
      }
      const long long width = up - lo;
      InferenceResult r = eval(dp, mid);
      if (pruning) ceiling.add(mid, r);
      const double g = shortfall(r);
      if (meets_traffic(s.traffic, r)) {
        lo = mid;
        g_lo = g;
        best = std::move(r);
      } else {
        up = mid;
        g_up = g;
      }
      halve = !halve && 2 * (up - lo) > width;
    }
    if (cannot_beat(std::max(lo0, lo - reach), lo)) return false;
    long long at = lo;
    best_below(dp, lo0, at, best, pruning ? beat : -1);
    out = SweepPoint::of(d, at, std::move(best));
    return true;
  }

  // Throughput per GPU is not monotone in the load: the busiest rank sets every rank's step, so a load
  // that puts one sequence more on a few ranks than on the others slows them all for little more work,
  // and the loads that fill the ranks evenly give the most. Below the largest load `at` that meets the
  // traffic (its result `best`), the few even loads (multiples of the ranks) and the short run just below
  // it are tried: `at` and `best` become the one that gives the most tokens/s per GPU within the
  // traffic's limits (on a tie: `at`, then the larger load of the run, then the larger even load).
  // With beat >= 0 the loads are tried from the lowest up, and a load whose ceiling is at most `beat`
  // or the best of the deployment's loads so far is not tried (it could not be chosen): on a stretch of
  // loads whose busiest rank holds as many sequences, one evaluation rules out the rest below `at`.
  void best_below(DeploymentPoints& dp, long long lo0, long long& at, InferenceResult& best, double beat) {
    const ServingDeployment& d = dp.d;
    const long long ranks = rank_count(d, lo0);
    const long long run = std::min(at - lo0, std::clamp(ranks, 8LL, 32LL));
    const long long top = at;
    // The loads in the order a tie goes by: the run down from `at`, then the even loads down, then the
    // loads that fill the GEMMs' row tiles down: the decode step's weight GEMMs pad each rank's rows (its
    // sequences x the tokens each carries, 1 + the MTP drafts) to tiles of kGemmTileRows, so a rank of 129
    // rows pays for 192 and the load just past a tile's end can give less than one far below it.
    std::array<long long, 40> loads{};
    std::size_t n = 0;
    for (long long c = top - 1; c >= top - run; --c)
      if (c >= lo0 && n < loads.size()) loads[n++] = c;
    for (long long k = 0, even = (top - run - 1) / ranks * ranks; k < 4; ++k) {
      const long long c = even - k * ranks;
      if (c >= lo0 && c < top && n < loads.size()) loads[n++] = c;
    }
    const long long rows_per_seq = 1 + std::max(0, d.mtp_draft_tokens);
    const long long tile_seqs = step::kGemmTileRows / std::gcd(step::kGemmTileRows, rows_per_seq);  // sequences a rank
    for (long long k = 0, filled = (top - run - 1) / (ranks * tile_seqs) * (ranks * tile_seqs); k < 4; ++k) {
      const long long c = filled - k * ranks * tile_seqs;
      if (c >= lo0 && c < top && n < loads.size() && std::find(loads.begin(), loads.begin() + n, c) == loads.begin() + n)
        loads[n++] = c;
    }
    // Tried from the lowest load up (the tie order's reverse), each kept when it gives more than the
    // best so far or as much and comes first in the tie order.
    std::size_t best_rank = loads.size();  // `at`'s: before every load
    for (std::size_t i = n; i-- > 0;) {
      const long long c = loads[i];
      if (beat >= 0 && ceiling.below(c, c, std::max(beat, best.tokens_per_s_per_gpu))) continue;
      InferenceResult r = eval(dp, c);
      if (beat >= 0) ceiling.add(c, r);
      if (!meets_traffic(s.traffic, r)) continue;
      const bool first = best_rank == loads.size() ? false : i < best_rank;
      if (r.tokens_per_s_per_gpu > best.tokens_per_s_per_gpu ||
          (r.tokens_per_s_per_gpu == best.tokens_per_s_per_gpu && first)) {
        best = std::move(r);
        at = c;
        best_rank = i;
      }
    }
  }
};

// A disaggregated deployment's shape: its pools' GPUs, worker widths, decode attention-DP and MTP.
std::array<int, 6> pool_key(int prefill_gpus, int decode_gpus, const ServingDeployment& d) {
  return {prefill_gpus, decode_gpus, d.disagg.prefill.tp, d.disagg.decode.tp, d.disagg.decode.attention_dp ? 1 : 0,
          d.mtp_draft_tokens};
}

// The fields of disaggregated deployment `d` its prefill side's figures read: the prefill worker and
// pool, its caps and whether both pools share one scale-up domain (the KV hand-off's link). Not the
// MTP drafts: the prefill pool's workload has none (prefill_pool_workload).
using PrefillKey = std::array<long long, 10>;
PrefillKey prefill_key(const ServingScenario& s, const ServingDeployment& d) {
  const DisaggregatedDeployment& g = d.disagg;
  return {g.prefill.tp, g.prefill.ep, g.prefill.pp, g.prefill.attention_dp, g.prefill.two_batch_overlap,
          g.prefill_gpus, g.prefill_max_batch, g.prefill_max_tokens, g.prefill_fp8_block_gemm_triton,
          g.prefill_gpus + g.decode_gpus <= s.hw.fabric.domain_gpus};
}

// The prefill sides' figures the bounds below read, each computed once by its deployments' PrefillKey:
// the pool's capacity and its rate within the TTFT limit (requests/s).
struct PrefillRates {
  std::map<PrefillKey, double> capacity_per_s, within_ttft_per_s;
};

// A bound on the tokens/s per GPU of disaggregated deployment `d` at any load: its requests/s stay
// below the prefill pool's capacity (evaluate_disaggregated), each request giving OSL tokens; with a
// margin of a few ulps over the rounding.
double disaggregated_bound(const ServingScenario& s, const Hardware& serving_hw, const ServingDeployment& d,
                           PrefillRates& rates) {
  const InferenceWorkload w = scenario_workload(s, d, 0);
  const DisaggregatedDeployment& g = d.disagg;
  const PrefillKey key = prefill_key(s, d);
  auto it = rates.capacity_per_s.find(key);
  if (it == rates.capacity_per_s.end())
    it = rates.capacity_per_s.emplace(key, prefill_capacity_per_s(s.model, s.hw, g, w, nullptr, &serving_hw)).first;
  const double capacity_per_s = it->second;
  return capacity_per_s * double(w.osl) / double(g.prefill_gpus + g.decode_gpus) * (1 + 1e-9);
}

// A bound on the tokens/s per GPU of disaggregated deployment `d` at any load that meets the TTFT
// limit: its requests/s stay below disaggregated_rate_within_ttft_per_s, each request giving OSL tokens;
// with a margin of a few ulps over the rounding. (The rate reads the prefill side alone, and InputError
// for a decode pool that would throw there throws again when the deployment is evaluated.)
double disaggregated_ttft_bound(const ServingScenario& s, const ServingDeployment& d, DisaggregatedPools& pools,
                                PrefillRates& rates) {
  const InferenceWorkload w = scenario_workload(s, d, 0);
  const DisaggregatedDeployment& g = d.disagg;
  const PrefillKey key = prefill_key(s, d);
  auto it = rates.within_ttft_per_s.find(key);
  if (it == rates.within_ttft_per_s.end())
    it = rates.within_ttft_per_s
             .emplace(key, disaggregated_rate_within_ttft_per_s(s.model, s.hw, g, w, s.traffic.ttft_limit_s, &pools))
             .first;
  const double rate_per_s = it->second;
  return rate_per_s * double(w.osl) / double(g.prefill_gpus + g.decode_gpus) * (1 + 1e-9);
}

std::string why_none(const ServingScenario& s, const Solver& sv, bool any_fits, int gpus, bool fixed) {
  const std::string where = fixed ? fmt::format("{} GPUs", gpus) : fmt::format("up to {} GPUs", gpus);
  const double need = s.traffic.min_tokens_per_s_per_user();
  const double limit = s.traffic.ttft_limit_s;
  if (!any_fits)
    return fmt::format("the weights and one sequence's KV cache ({} + {} tokens) do not fit on {}", s.traffic.isl,
                       s.traffic.osl, where);
  if (need > 0 && sv.fastest < need * (1 - 1e-9))
    return fmt::format("the fastest deployment on {} gives {:.1f} tokens/s per user, below the {:g} asked", where,
                       sv.fastest, need);
  if (limit > 0 && sv.lowest_ttft > limit)
    return fmt::format("no deployment on {} keeps the TTFT within its {:.3g} s limit (the lowest is {:.3g} s)", where,
                       limit, sv.lowest_ttft);
  return fmt::format("no deployment on {} gives {:g} tokens/s per user within the {:.3g} s TTFT limit (the fastest "
                     "within it: {:.1f})",
                     where, need, limit, sv.fastest_within_ttft);
}

}  // namespace

std::size_t ServingEvalCache::KeyHash::operator()(const Key& k) const {
  std::size_t h = 0xcbf29ce484222325ULL;
  for (long long v : k) h = (h ^ std::hash<long long>{}(v)) * 0x100000001b3ULL;
  return h;
}

bool solve_load(const ServingScenario& s, const ServingDeployment& d, SweepPoint& out, std::size_t* evaluated) {
  Solver sv(s);
  bool ok = false;
  try {
    DeploymentPoints dp(d);
    const InferenceResult top = sv.eval(dp, 0);
    ok = sv.solve(dp, top, out);
  } catch (const InputError&) {
    ok = false;
  }
  if (evaluated) *evaluated += sv.evaluated;
  return ok;
}

ServingChoice choose_serving(const ServingScenario& s, const ChooserOptions& o) {
  if (s.traffic.isl < 1 || s.traffic.isl > 10000000)
    throw InputError("--isl", fmt::format("must be 1 to 10000000, got {}", s.traffic.isl));
  if (s.traffic.osl < 1 || s.traffic.osl > 10000000)
    throw InputError("--osl", fmt::format("must be 1 to 10000000, got {}", s.traffic.osl));
  ServingChoice ch;
  const bool fixed = o.gpus > 0;
  ch.unit_gpus = fixed ? o.gpus : std::max(1, s.unit_gpus);
  ch.target_tokens_per_s_per_user = s.traffic.min_tokens_per_s_per_user();
  ch.ttft_limit_s = s.traffic.ttft_limit_s;
  SweepOptions so;
  so.mtp = so.disaggregated = o.explore_moe && s.model.is_moe();
  const std::vector<int> mtps = sweep_mtp_drafts(s.model, s.workload, so);
  Solver sv(s, std::any_of(mtps.begin(), mtps.end(), [](int k) { return k > 0; }));
  sv.cache = o.cache;
  if (o.cache) sv.pools = &o.cache->pools;
  double best = -1;
  bool any_fits = false;
  int prev_gpus = 0;
  std::set<std::array<int, 6>> prev_pools;  // the previous size's disaggregated deployments
  PrefillRates prefill_rates;
  const int max_units = fixed ? 1 : std::max(1, o.max_units);
  // Deployments are compared by their tokens/s over the GPUs bought for them: the whole units they take
  // (the GPUs given with a fixed count). A disaggregated deployment whose pools leave part of a unit
  // idle pays for it (128 GPUs of pools on two 72-GPU racks: tokens/s over 144). Within a deployment the
  // GPUs are fixed, so its loads rank alike either way; tokens/s per GPU bought never exceeds the
  // per-GPU figures the pruning bounds, so their thresholds hold.
  auto per_gpu_bought = [&](const SweepPoint& p) {
    const int used = p.deployment().gpus;
    const int bought = fixed ? ch.unit_gpus : (used + ch.unit_gpus - 1) / ch.unit_gpus * ch.unit_gpus;
    return p.result.tokens_per_s_per_gpu * double(used) / double(std::max(used, bought));
  };
  for (int k = 1; k <= max_units; k *= 2) {
    const int gpus = ch.unit_gpus * k;
    so.max_pp = k == 1 ? o.max_pp : o.max_pp_beyond_one;
    // The candidates whose result at the most clients is evaluated, and the disaggregated ones whose
    // is evaluated only once their bound could put them next in the solving order (below).
    std::vector<Candidate> cands;
    std::vector<Pending> pending;
    std::size_t order = 0;
    std::set<std::array<int, 6>> pools;  // this size's disaggregated deployments
    std::vector<ServingDeployment> all;
    for (int mtp : mtps)
      for (ServingDeployment& d : serving_deployments(s.model, s.hw, gpus, so, mtp, k == 1 ? 0 : prev_gpus + 1))
        all.push_back(std::move(d));
    cands.reserve(all.size());  // the candidates stay where they are: the solving order holds their places
    // The disaggregated deployments generated more than once (see DeploymentPoints::repeated).
    // (Each deployment's count found once: its node stays where it is as the map grows.)
    std::unordered_map<ServingEvalCache::Key, int, ServingEvalCache::KeyHash> copies;
    copies.reserve(all.size());
    std::vector<const int*> copies_of(all.size(), nullptr);
    for (std::size_t i = 0; i < all.size(); ++i)
      if (all[i].disaggregated) {
        int& n = copies[point_key(all[i], 0)];
        ++n;
        copies_of[i] = &n;
      }
    {
      for (std::size_t i = 0; i < all.size(); ++i) {
        ServingDeployment& d = all[i];
        const bool repeated = d.disaggregated && *copies_of[i] > 1;
        if (d.disaggregated) {
          const auto& g = d.disagg;
          pools.insert(pool_key(g.prefill_gpus, g.decode_gpus, d));
          // Two copies of a deployment tried on half the GPUs give its figure per GPU: not tried again.
          if (g.prefill_gpus % 2 == 0 && g.decode_gpus % 2 == 0 &&
              prev_pools.count(pool_key(g.prefill_gpus / 2, g.decode_gpus / 2, d)))
            continue;
        }
        ++ch.deployments;
        try {
          // Beyond the first size, a disaggregated deployment whose prefill pool cannot take prompts
          // fast enough to beat the fewer units is not evaluated (every load's rate stays below the
          // pool's capacity: its tokens/s per GPU below that rate's).
          if (d.disaggregated && o.prune) {
            const double bound = disaggregated_bound(s, sv.serving_hw, d, prefill_rates);
            if (best >= 0 && bound <= best * (1 + o.more_units_margin)) continue;
            pending.push_back({DeploymentPoints(std::move(d), repeated), bound, order++});
            continue;
          }
          DeploymentPoints dp(std::move(d), repeated);
          InferenceResult top = sv.eval(dp, 0);
          if (!top.valid() || top.max_concurrency < 1) continue;
          cands.push_back({std::move(dp), std::move(top), order++});
        } catch (const InputError&) {
          // a width the model's shapes do not allow
        }
      }
    }
    ch.gpus = gpus;
    // Whether a deployment of this size fits (a pending one is left unevaluated only once one met the
    // target, when the answer no longer asks).
    bool fits = !cands.empty();
    // The most throughput first: a deployment whose throughput at its most clients is no better than
    // the best found cannot beat it at the target. The next in that order is the first of the evaluated
    // candidates once every pending bound is below its throughput; until then the pending deployment of
    // the highest bound is evaluated. So the deployments are solved in the order (and with the
    // thresholds) sorting them all would give, and a pending one whose bound is at most the threshold
    // is never evaluated.
    std::sort(pending.begin(), pending.end(), [](const Pending& a, const Pending& b) {
      return a.bound_tokens_per_s_per_gpu > b.bound_tokens_per_s_per_gpu;
    });
    std::size_t next_pending = 0;
    // The candidates not yet solved, by their places in `cands`, as a heap in the solving order.
    std::vector<std::size_t> unsolved(cands.size());
    for (std::size_t i = 0; i < unsolved.size(); ++i) unsolved[i] = i;
    auto later = [&cands](std::size_t a, std::size_t b) { return solved_before(cands[b], cands[a]); };
    std::make_heap(unsolved.begin(), unsolved.end(), later);
    const double to_beat = best < 0 ? -1 : best * (1 + o.more_units_margin);
    double level = -1;
    SweepPoint level_point;
    while (true) {
      const double threshold = std::max(level, to_beat);
      const bool any_pending = next_pending < pending.size();
      const double pending_bound = any_pending ? pending[next_pending].bound_tokens_per_s_per_gpu : -1;
      if (any_pending && (unsolved.empty() || pending_bound >= cands[unsolved.front()].top.tokens_per_s_per_gpu)) {
        if (pending_bound <= threshold) {  // no pending deployment can beat the level, nor come next
          next_pending = pending.size();
          continue;
        }
        Pending& u = pending[next_pending++];
        try {
          // Once a point is held, a deployment whose prefill pool cannot take prompts within the TTFT
          // limit fast enough to beat it is not evaluated (every met load's requests/s is below that
          // rate: disaggregated_ttft_bound).
          if (o.prune && threshold >= 0 && disaggregated_ttft_bound(s, u.dp.d, *sv.pools, prefill_rates) <= threshold)
            continue;
          InferenceResult top = sv.eval(u.dp, 0);
          if (!top.valid() || top.max_concurrency < 1) continue;
          cands.push_back({std::move(u.dp), std::move(top), u.order});
          unsolved.push_back(cands.size() - 1);
          std::push_heap(unsolved.begin(), unsolved.end(), later);
          fits = true;
        } catch (const InputError&) {
          // a width the model's shapes do not allow
        }
        continue;
      }
      if (unsolved.empty()) break;
      std::pop_heap(unsolved.begin(), unsolved.end(), later);
      Candidate& c = cands[unsolved.back()];
      unsolved.pop_back();
      if (o.prune && c.top.tokens_per_s_per_gpu <= threshold) break;
      SweepPoint p;
      if (sv.solve(c.dp, c.top, p, o.prune ? threshold : -1) && per_gpu_bought(p) > level) {
        level = per_gpu_bought(p);
        level_point = std::move(p);
      }
    }
    any_fits = any_fits || fits;
    if (level > to_beat) {
      if (best < 0 && !fixed) {
        ch.fewest_units = (level_point.deployment().gpus + ch.unit_gpus - 1) / ch.unit_gpus;
        ch.fewest_units_tokens_per_s_per_gpu = level;
      }
      best = level;
      ch.met = true;
      ch.by_size.push_back(level_point);
      ch.point = std::move(level_point);
      ch.units = fixed ? 0 : k;
    } else if (best >= 0) {
      break;  // more units give no more per GPU: the fewer stand
    }
    prev_gpus = gpus;
    prev_pools = std::move(pools);
  }
  if (ch.met) {
    // The GPUs the deployment runs on, and the whole units they take: the sizes are tried by doubling
    // (1, 2, 4 .. units), so the size a deployment was found at can be more than it needs (40 GPUs of
    // pools found among the deployments on 8 units of 8 take 5).
    ch.gpus = ch.point.deployment().gpus;
    ch.units = fixed ? 0 : (ch.gpus + ch.unit_gpus - 1) / ch.unit_gpus;
  }
  ch.evaluated = sv.evaluated;
  ch.fastest_tokens_per_s_per_user = sv.fastest;
  ch.lowest_ttft_s = sv.lowest_ttft;
  if (!ch.met) ch.why_not = why_none(s, sv, any_fits, ch.gpus, fixed);
  return ch;
}

}  // namespace gpuplan
