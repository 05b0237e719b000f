// Open-loop serving under Poisson arrivals (see open_loop.h).
#include "inference/open_loop.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <utility>
#include <limits>
#include <vector>

#include "inference/disaggregated.h"
#include "inference/queueing.h"

namespace gpuplan {

double OpenLoopCurve::tpot_at(double n) const {
  if (batch.empty()) return std::numeric_limits<double>::infinity();
  if (batch.size() == 1 || n <= batch[0]) return tpot_s[0];
  const auto it = std::upper_bound(batch.begin(), batch.end(), n);
  std::size_t i = it == batch.begin() ? 1 : std::min<std::size_t>(it - batch.begin(), batch.size() - 1);
  const double x0 = batch[i - 1], x1 = batch[i], y0 = tpot_s[i - 1], y1 = tpot_s[i];
  return y0 + (y1 - y0) * (n - x0) / (x1 - x0);
}

namespace {

// The engine's TTFT (ttft_engine_s) at `n` sequences of the whole deployment: linear between the
// tabulated batches, held at the ends; prefill_alone_s where none is tabulated.
double ttft_engine_at(const OpenLoopCurve& c, double n) {
  if (c.ttft_engine_s.size() != c.batch.size() || c.batch.empty()) return c.prefill_alone_s;
  const auto it = std::upper_bound(c.batch.begin(), c.batch.end(), n);
  const std::size_t i = it == c.batch.begin() ? 0 : std::size_t(it - c.batch.begin()) - 1;
  const std::size_t j = std::min(i + 1, c.batch.size() - 1);
  const double f = j == i ? 0.0 : std::clamp((n - c.batch[i]) / (c.batch[j] - c.batch[i]), 0.0, 1.0);
  return c.ttft_engine_s[i] + f * (c.ttft_engine_s[j] - c.ttft_engine_s[i]);
}

}  // namespace

void OpenLoopCurve::index_tpot() {
  tpot_per_instance.clear();
  tpot_indexed_instances = 0;
  ttft_engine_per_instance.clear();
  if (batch.empty() || decode_slots < 1) return;
  const int inst = std::max(1, decode_instances);
  const long long cap = std::max(1LL, decode_slots / inst);
  tpot_per_instance.resize(std::size_t(cap) + 1);
  for (long long n = 0; n <= cap; ++n) tpot_per_instance[std::size_t(n)] = tpot_at(double(std::max(1LL, n) * inst));
  tpot_indexed_instances = inst;
  if (ttft_engine_s.size() == batch.size()) {
    ttft_engine_per_instance.resize(std::size_t(cap) + 1);
    for (long long m = 0; m <= cap; ++m)
      ttft_engine_per_instance[std::size_t(m)] = ttft_engine_at(*this, double(m * inst));
  }
  log_tpot_per_seq_sum.assign(std::size_t(cap) + 1, 0.0);
  tpot_per_seq_falls = true;
  for (long long n = 1; n <= cap; ++n) {
    const double per_seq = tpot_per_instance[std::size_t(n)] / double(n);
    if (!(per_seq > 0 && std::isfinite(per_seq))) {  // no log ratios: evaluations walk the chain
      log_tpot_per_seq_sum.clear();
      tpot_per_seq_falls = false;
      return;
    }
    if (n > 1 && per_seq > tpot_per_instance[std::size_t(n - 1)] / double(n - 1)) tpot_per_seq_falls = false;
    log_tpot_per_seq_sum[std::size_t(n)] = log_tpot_per_seq_sum[std::size_t(n - 1)] + std::log(per_seq);
  }
}

OpenLoopCurve tabulate_open_loop(const ServingScenario& s, const ServingDeployment& d) {
  OpenLoopCurve c;
  c.deployment = d;
  c.osl = s.traffic.osl;
  c.isl = s.traffic.isl;
  InferenceResult first = evaluate_scenario(s, d, 0);  // as many as fit: the slots
  if (!first.valid() || first.max_concurrency < 1) return c;
  c.decode_slots = first.max_concurrency;
  const InferenceResult one = evaluate_scenario(s, d, first.instances);
  c.prefill_alone_s = one.prefill_s;
  c.decode_instances = std::max(1, one.instances);
  c.fixed_ttft_s = one.kv_transfer_s + one.receive_wait_s;
  // Prefill: the pool's capacity in full steps (prefill_capacity_per_s); its servers are the attention
  // ranks that each take a prompt (the workers' tp ranks under attention-DP, else each worker). An
  // aggregated engine's instances prefill between their decode steps: their capacity is that of the
  // same GPUs as a prefill pool, and the decode steps' share is in the tabulated TPOT (the staggered
  // steps mix prefill chunks in).
  DisaggregatedDeployment pool = d.disagg;
  if (!d.disaggregated) {
    pool.prefill = d.parallel;
    pool.prefill.pp = 1;
    pool.prefill_gpus = d.gpus;
    pool.decode = pool.prefill;
    pool.decode_gpus = d.gpus;
  }
  const int tp = std::max(1, pool.prefill.tp);
  const int workers = std::max(1, pool.prefill_gpus / tp);
  const int ranks = pool.prefill.attention_dp ? tp : 1;
  c.prefill_servers = workers * ranks;
  const double mu = prefill_capacity_per_s(s.model, s.hw, pool, scenario_workload(s, d, first.instances));
  c.prefill_service_s = mu > 0 ? double(c.prefill_servers) / mu : one.prefill_s;
  // Decode batches from one sequence per instance to the slots, geometric (16 points and the ends).
  const double lo = std::max(1, one.instances), hi = double(c.decode_slots);
  const int points = hi > lo ? 16 : 1;
  long long last = 0;
  for (int i = 0; i < points; ++i) {
    const long long n = i + 1 == points ? (long long)hi
                                         : std::llround(lo * std::pow(hi / lo, double(i) / std::max(1, points - 1)));
    if (n <= last) continue;
    const InferenceResult r = evaluate_scenario(s, d, n);
    if (!r.valid()) break;
    c.batch.push_back(double(n));
    c.tpot_s.push_back(r.tpot_s);
    if (!d.disaggregated)
      c.ttft_engine_s.push_back(std::max(r.ttft_s - r.queue_wait_s - r.prompt_queue_s, one.prefill_s));
    last = n;
  }
  if (!d.disaggregated) {
    const InferenceWorkload w = scenario_workload(s, d, first.instances);
    c.admit_interval_steps = std::max(1, w.scheduler_recv_interval);
    c.prefill_separate = w.prefill_separate;
  }
  if (!c.batch.empty()) c.decode_slots = std::min<long long>(c.decode_slots, (long long)c.batch.back());
  c.index_tpot();
  return c;
}

namespace {

// The smallest t with cdf(t) >= q, for a non-decreasing `cdf` with cdf(lo) < q <= cdf(hi), to the width
// of `bits` halvings of [lo, hi]; the bracket's upper end is returned, as bisection returns it. Regula
// falsi with the Illinois step (the end that stays twice in a row has its distance to q halved), and a
// halving wherever the bracket has not halved over three steps: a smooth distribution function takes
// about a dozen evaluations where bisection takes `bits`, a flat or kinked one no more than about
// twice as many.
template <typename Cdf>
double quantile_in(const Cdf& cdf, double q, double lo, double hi, int bits) {
  const double width = (hi - lo) * std::ldexp(1.0, -bits);
  double flo = cdf(lo) - q, fhi = cdf(hi) - q;
  if (!(flo < 0)) return lo;
  if (fhi < 0) return hi;
  int kept = 0;  // +1: lo kept in the last steps, -1: hi kept
  double before = hi - lo;
  for (int it = 1; hi - lo > width && it <= 3 * bits; ++it) {
    double m = lo - flo * (hi - lo) / (fhi - flo);
    const bool halve = it % 3 == 0 && hi - lo > 0.5 * before;
    if (it % 3 == 0) before = hi - lo;
    if (halve || !(m > lo && m < hi)) m = 0.5 * (lo + hi);
    const double fm = cdf(m) - q;
    if (fm < 0) {
      lo = m, flo = fm;
      if (kept < 0) fhi *= 0.5;
      kept = -1;
    } else {
      hi = m, fhi = fm;
      if (kept > 0) flo *= 0.5;
      kept = 1;
    }
  }
  return hi;
}

// The prompt law on [0, cut] with mean `mean`: the maximum-entropy density there, exponential in the
// length, f(x) ~ exp(-a x / cut) (a > 0: falling, a < 0: rising, 0: uniform), truncated at the cut
// (no mass piled at the dataset's longest prompt). Its mean over the cut is m(a) = 1/a - 1/(e^a - 1),
// falling in a; `a` solves m(a) = mean / cut by bisection (the mean at or beyond the cut: every prompt
// at the cut, a = -inf taken as -700).
double truncated_exponential_a(double mean, double cut) {
  const double m = mean / cut;
  if (m >= 1.0 - 1e-9) return -700;
  const auto mean_of = [](double a) {
    return std::abs(a) < 1e-4 ? 0.5 - a / 12.0 : 1.0 / a - 1.0 / std::expm1(a);
  };
  double lo = -700, hi = 700;  // mean_of(lo) ~ 1, mean_of(hi) ~ 1/700
  for (int it = 0; it < 60; ++it) {
    const double mid = 0.5 * (lo + hi);
    (mean_of(mid) > m ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

// The dataset law's `a` for the curve (truncated_exponential_a; 0 where the prompts do not vary so).
double prompt_law_a(const OpenLoopCurve& c) {
  if (!(c.lengths_vary() && c.prompt_isl_max > 0)) return 0;
  return truncated_exponential_a(double(std::max(1LL, c.isl)), double(std::max(c.prompt_isl_max, c.isl)));
}

// The prompt lengths' second moment E[x^2] (fixed prompts: ISL^2); `a`: prompt_law_a(c).
double prompt_second_moment(const OpenLoopCurve& c, double a) {
  const double isl = double(std::max(1LL, c.isl));
  if (!c.lengths_vary()) return isl * isl;
  if (c.prompt_isl_max > 0) {
    const double cut = double(std::max(c.prompt_isl_max, c.isl));
    if (a <= -700) return cut * cut;
    if (std::abs(a) < 1e-3) return cut * cut * (1.0 / 3.0 - a / 12.0);
    // E[(x/cut)^2] = 2/a^2 - (1 + 2/a) / (e^a - 1), for either sign of a.
    return cut * cut * (2.0 / (a * a) - (1.0 + 2.0 / a) / std::expm1(a));
  }
  const double lo = c.length_low, hi = 2 * isl / (1 + lo);  // uniform on [lo hi, hi], mean isl
  return hi * hi * (lo * lo + lo + 1) / 3;
}

// Varying lengths at quantile q of their law (OpenLoopCurve::lengths_vary): a prompt's tokens (the
// truncated exponential or the client's uniform, mean ISL) and a request's decode steps (geometric or the
// client's uniform, mean OSL - 1); `a`: prompt_law_a(c).
double prompt_at(const OpenLoopCurve& c, double a, double q) {
  const double isl = double(std::max(1LL, c.isl));
  if (c.prompt_isl_max > 0) {
    const double cut = double(std::max(c.prompt_isl_max, c.isl));
    if (a <= -700) return cut;
    if (std::abs(a) < 1e-4) return cut * q;
    // The inverse of F(x) = (1 - e^(-a x / cut)) / (1 - e^-a).
    return std::clamp(-cut / a * std::log1p(q * std::expm1(-a)), 0.0, cut);
  }
  const double lo = c.length_low;
  return 2 * isl / (1 + lo) * (lo + (1 - lo) * q);
}
double decode_steps_at(const OpenLoopCurve& c, double dec_tokens, double q) {
  if (c.prompt_isl_max > 0) return std::max(1.0, std::ceil(-dec_tokens * std::log(1.0 - q)));
  const double lo = c.length_low;
  return std::max(1.0, std::ceil(2 * dec_tokens / (1 + lo) * (lo + (1 - lo) * q)));
}

// open_loop's figures; with `limits`, each latency quantile is instead checked at its limit (the
// distribution there against the quantile's level) and the verdict left in *meets.
OpenLoopResult evaluate_open_loop(const OpenLoopCurve& c, double rate, const OpenLoopScale& scale,
                                  const OpenLoopLimits* limits, bool* meets) {
  if (meets) *meets = false;
  OpenLoopResult r;
  r.requests_per_s = rate;
  r.tokens_per_s = rate * double(c.osl);
  if (c.batch.empty() || c.decode_slots < 1) {
    r.why_not = "the deployment holds no sequence";
    return r;
  }
  const auto tpot = [&](double n) { return scale.tpot * c.tpot_at(n); };
  // Prefill: M/G/c of the prefill servers.
  const double service_s = scale.prefill * c.prefill_service_s;
  r.prefill_utilization = rate * service_s / c.prefill_servers;
  if (r.prefill_utilization >= 1) {
    r.why_not = "the prefill servers cannot keep up with the arrivals";
    return r;
  }
  // Decode: each instance's batch as a birth-death chain (open_loop.h), per instance: arrivals lam,
  // departures n / ((OSL - 1) TPOT(n)) at a batch of n, up to the slots; beyond them a queue served at
  // the slots' rate.
  const double dec_tokens = std::max(1.0, double(c.osl) - 1);
  const int inst = std::max(1, c.decode_instances);
  const double lam = rate / inst;
  const long long cap = std::max(1LL, c.decode_slots / inst);
  const bool indexed =
      c.tpot_indexed_instances == inst && (long long)c.tpot_per_instance.size() == cap + 1;
  const auto tpot_inst = [&](long long n) {
    return indexed && n >= 0 && n <= cap ? scale.tpot * c.tpot_per_instance[std::size_t(n)]
                                         : tpot(double(std::max(1LL, n) * inst));
  };
  const auto leave = [&](long long n) { return double(n) / (dec_tokens * tpot_inst(n)); };
  const double leave_cap = leave(cap);
  if (lam >= leave_cap) {
    r.slot_utilization = 1;
    r.why_not = "the decode slots cannot keep up with the arrivals";
    return r;
  }
  // log pi(n) up to the slots, or until the chain's tail past its mode is negligible; the states more
  // than e^40 below the top count 0. With the curve's kept sums, log pi(n) = n log(lam (OSL - 1) scale)
  // + sum of log(TPOT(k) / k), two operations a state; without them, the sum of log(lam / leave(k)).
  const bool sums = indexed && (long long)c.log_tpot_per_seq_sum.size() == cap + 1;
  const double log_rate = sums ? std::log(lam * dec_tokens * scale.tpot) : 0.0;
  const auto log_pi = [&](long long n) { return double(n) * log_rate + c.log_tpot_per_seq_sum[std::size_t(n)]; };
  std::vector<double> lp;
  double top = 0;
  bool reached_cap = true;
  long long first = 0;  // the states below carry no mass
  if (sums && c.tpot_per_seq_falls) {
    // One mode, the last n whose ratio lam / leave(n) is at least 1, and the tails on either side of it
    // found by bisection: only the states between them are visited.
    const auto rising = [&](long long n) { return lam >= leave(n); };
    long long mode = 0;
    if (rising(1)) {
      long long lo = 1, hi = cap + 1;  // rising at lo, not at hi (or past the slots)
      while (hi - lo > 1) {
        const long long mid = lo + (hi - lo) / 2;
        (rising(mid) ? lo : hi) = mid;
      }
      mode = lo;
    }
    top = log_pi(mode);
    // Past the mode, the first state more than e^40 below it ends the chain (the walk's stop below).
    long long last_n = cap;
    if (mode < cap && log_pi(cap) < top - 40) {
      long long lo = mode, hi = cap;  // log_pi(lo) >= top - 40 > log_pi(hi)
      while (hi - lo > 1) {
        const long long mid = lo + (hi - lo) / 2;
        (log_pi(mid) < top - 40 ? hi : lo) = mid;
      }
      last_n = hi;
      reached_cap = hi == cap;
    }
    // Below the mode, the first state within e^40 of it.
    if (log_pi(0) < top - 40) {
      long long lo = 0, hi = mode;  // log_pi(lo) < top - 40 <= log_pi(hi)
      while (hi - lo > 1) {
        const long long mid = lo + (hi - lo) / 2;
        (log_pi(mid) < top - 40 ? lo : hi) = mid;
      }
      first = hi;
    }
    lp.assign(std::size_t(last_n) + 1, -std::numeric_limits<double>::infinity());
    for (long long n = first; n <= last_n; ++n) lp[std::size_t(n)] = log_pi(n);
  } else {
    // The walk from n = 1 with its running top (a step time growing faster than its batch somewhere may
    // leave the chain more than one mode).
    lp.push_back(0.0);
    for (long long n = 1; n <= cap; ++n) {
      lp.push_back(sums ? log_pi(n) : lp.back() + std::log(lam / leave(n)));
      top = std::max(top, lp.back());
      if (lp.back() < top - 40 && lam < leave(n)) {
        reached_cap = n == cap;
        break;
      }
    }
    while (first + 1 < (long long)lp.size() && lp[std::size_t(first)] < top - 40) ++first;
  }
  std::vector<double> pi(lp.size());
  double norm = 0;
  for (std::size_t i = std::size_t(first); i < lp.size(); ++i)
    norm += pi[i] = lp[i] < top - 40 ? 0.0 : std::exp(lp[i] - top);
  const long long last = (long long)pi.size() - 1;
  // Past the slots: pi(cap + k) = pi(cap) rho^k with rho = lam / leave(cap).
  const double rho = lam / leave_cap;
  const double queue_mass = reached_cap ? pi.back() * rho / (1 - rho) : 0.0;  // states above cap
  norm += queue_mass;
  for (std::size_t i = std::size_t(first); i < pi.size(); ++i) pi[i] /= norm;
  const double p_queue = queue_mass / norm;
  // A request arriving to n joins a batch of min(n + 1, cap); arriving at cap or above, it waits for
  // the slot: from n = cap + k, k + 1 departures at leave(cap) each, which summed over the geometric
  // queue is exponential at leave(cap) - lam.
  const double p_wait = (reached_cap ? pi.back() : 0.0) + p_queue;
  const double wait_rate = leave_cap - lam;
  double mean_n = 0;
  for (long long n = first; n <= last; ++n) mean_n += pi[n] * double(n);
  mean_n += p_queue * double(cap);
  r.decode_batch = mean_n * inst;
  r.slot_utilization = mean_n / double(cap);
  // Quantile of the batch joined (n + 1 for n below cap, else cap).
  const auto joined_quantile = [&](double q) {
    double cum = 0;
    for (long long n = first; n < std::min(last + 1, cap); ++n) {
      cum += pi[n];
      if (cum >= q) return std::max(1LL, n);
    }
    return cap;
  };
  const long long j50 = joined_quantile(0.5), j99 = joined_quantile(0.99);
  r.decode_batch_p99 = double(std::min(cap, j99)) * inst;
  double tpot_mean = 0;
  for (long long n = first; n <= last; ++n) tpot_mean += pi[n] * tpot_inst(std::max(1LL, std::min(n, cap)));
  r.tpot_mean_s = tpot_mean + p_queue * tpot_inst(cap);
  r.tpot_p50_s = tpot_inst(j50);
  r.tpot_p99_s = tpot_inst(j99);
  // An aggregated engine's steps carry the prompts that arrived during the last one: a Poisson number
  // (lam x TPOT) of prompts, each x tokens at the mean prompt's prefill per token, so a step's time
  // varies about TPOT with variance (prefill per token)^2 lam TPOT E[x^2]. A request's TPOT averages
  // its m decode steps, geometric about OSL - 1 where the lengths vary as a dataset's: the short ones
  // set the p99 (its quantiles over the batch law and m by bisection). With fixed lengths the OSL - 1
  // steps average the variation down by sqrt(OSL - 1), left out.
  const bool mixed_steps = !c.ttft_engine_s.empty() && c.isl > 0 && c.prefill_alone_s > 0;
  double step_var_per_s = 0;  // a step's time variance per second of it: p^2 lam E[x^2]
  const double isl = double(std::max(1LL, c.isl));
  const double law_a = prompt_law_a(c);       // the dataset law's shape, solved once
  const double x2 = prompt_second_moment(c, law_a);  // E[x^2] of the prompt lengths
  if (mixed_steps) {
    // A prompt token's cost in the step: riding in the decodes' forward, its compute (the pool's time
    // per prompt at full steps, the weights shared); in a forward of its own, the prompt's prefill alone.
    const double per_token_s = (c.prefill_separate ? scale.prefill * c.prefill_alone_s : service_s) / isl;
    step_var_per_s = per_token_s * per_token_s * lam * x2;
  }
  const auto step_sd = [&](double step_s) { return std::sqrt(step_var_per_s * step_s); };
  bool tpot_checked = false, tpot_p50_ok = true, tpot_p99_ok = true;
  if (mixed_steps && c.lengths_vary()) {
    // The requests' decode steps as their law draws them (finer at the short end, which sets the tail).
    std::vector<std::pair<double, double>> steps;  // (mass, m)
    static const double edges[] = {0, 0.001, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 0.75, 1};
    for (int k = 0; k + 1 < int(std::size(edges)); ++k)
      steps.push_back({edges[k + 1] - edges[k], decode_steps_at(c, dec_tokens, 0.5 * (edges[k] + edges[k + 1]))});
    struct TBin {
      double mass = 0, tpot = 0, sd = 0;
    };
    std::vector<TBin> tb;
    long long lo_n = std::min(first, std::min(last, cap));
    const long long hi_n = std::min(last, cap);
    long long top_n = hi_n;
    while (lo_n < top_n && pi[lo_n] < 1e-10) ++lo_n;
    while (top_n > lo_n && pi[top_n] < 1e-10 && top_n < cap) --top_n;
    const long long per = std::max(1LL, (top_n - lo_n + 1 + 31) / 32);
    for (long long n0 = lo_n; n0 <= top_n; n0 += per) {
      TBin b;
      for (long long n = n0; n <= std::min(top_n, n0 + per - 1); ++n) {
        b.mass += pi[n];
        b.tpot += pi[n] * tpot_inst(std::max(1LL, n));
      }
      if (n0 + per > top_n) b.mass += p_queue, b.tpot += p_queue * tpot_inst(cap);
      if (b.mass < 1e-15) continue;
      b.tpot /= b.mass;
      b.sd = step_sd(b.tpot);
      tb.push_back(b);
    }
    const auto cdf = [&](double t) {
      double f = 0;
      for (const TBin& b : tb)
        for (const auto& [pm, m] : steps) {
          const double z = (t - b.tpot) * std::sqrt(m) / b.sd;  // beyond 8 sd: 0 or 1
          f += b.mass * pm * (z > 8 ? 1.0 : z < -8 ? 0.0 : 0.5 * std::erfc(-z / std::sqrt(2.0)));
        }
      return f;
    };
    const auto quantile = [&](double q) {
      double lo = 1e300, hi = 0;
      for (const TBin& b : tb) {
        lo = std::min(lo, std::max(0.0, b.tpot - 10 * b.sd));
        hi = std::max(hi, b.tpot + 10 * b.sd);
      }
      return quantile_in(cdf, q, lo, hi, 32);
    };
    if (!tb.empty() && tb.front().sd > 0) {
      if (limits) {
        // Within the limit: the distribution there reaches the level (the bisection's answer otherwise).
        tpot_p50_ok = limits->tpot_p50_s <= 0 || cdf(limits->tpot_p50_s) >= 0.5;
        tpot_p99_ok = limits->tpot_p99_s <= 0 || cdf(limits->tpot_p99_s) >= 0.99;
        tpot_checked = true;
      } else {
        r.tpot_p50_s = quantile(0.5);
        r.tpot_p99_s = quantile(0.99);
      }
    }
  }
  if (limits && !tpot_checked) {
    tpot_p50_ok = limits->tpot_p50_s <= 0 || r.tpot_p50_s <= limits->tpot_p50_s;
    tpot_p99_ok = limits->tpot_p99_s <= 0 || r.tpot_p99_s <= limits->tpot_p99_s;
  }
  if (limits && !(tpot_p50_ok && tpot_p99_ok)) return r;  // *meets stays false
  r.tokens_per_s_per_user_p50 = 1.0 / r.tpot_p50_s;
  // One prompt's own time to its first token: an aggregated engine's TTFT at the batch it joins (its
  // mixed steps), else the prefill alone; the queue of prompts is the M/G/c wait added below.
  const bool own_indexed = indexed && (long long)c.ttft_engine_per_instance.size() == cap + 1;
  const auto own_at = [&](long long m) {
    return own_indexed && m >= 0 && m <= cap ? c.ttft_engine_per_instance[std::size_t(m)]
                                             : ttft_engine_at(c, double(m * inst));
  };
  // The batch's part of TTFT: at a joined batch m, own(m) spread uniformly over the admission interval
  // (width N x TPOT(m) about own(m)), plus for the arrivals at the slots an exponential wait.
  const auto own_s = [&](long long m) { return scale.prefill * own_at(m) + c.fixed_ttft_s; };
  const auto spread_s = [&](long long m) {
    return std::max(1e-12, double(std::max(0, c.admit_interval_steps)) * tpot_inst(m));
  };
  long long n_hi = std::min(last, cap - 1), n_lo = std::min(first, n_hi);  // the states below the slots with mass
  while (n_lo < n_hi && pi[n_lo] < 1e-10) ++n_lo;
  while (n_hi > n_lo && pi[n_hi] < 1e-10) --n_hi;
  // The states grouped into at most 32 bins (mass, mean own time, spread) to keep a point fast.
  struct Bin {
    double mass = 0, own = 0, spread = 0, sd = 0;  // sd: the step carrying the prompt varies (above)
  };
  std::vector<Bin> bins;
  const long long per_bin = std::max(1LL, (n_hi - n_lo + 1 + 31) / 32);
  double below = 0, batch_part_mean = p_wait > 0 ? p_wait * (own_s(cap) + 1.0 / wait_rate) : 0.0;
  for (long long n0 = n_lo; n0 <= n_hi; n0 += per_bin) {
    Bin b;
    for (long long n = n0; n <= std::min(n_hi, n0 + per_bin - 1); ++n) {
      b.mass += pi[n];
      b.own += pi[n] * own_s(n + 1);
      b.spread += pi[n] * spread_s(n + 1);
    }
    if (b.mass <= 0) continue;
    below += b.mass;
    batch_part_mean += b.own;
    b.own /= b.mass;
    b.spread /= b.mass;
    b.sd = step_sd(tpot_inst(std::min(cap, n0 + per_bin / 2 + 1)));
    bins.push_back(b);
  }
  batch_part_mean /= std::max(1e-300, below + p_wait);
  // Varying prompt lengths: the prompt's prefill at x tokens less the mean's, over a few points of the
  // law's quantiles (finer in the tail).
  std::vector<std::pair<double, double>> prompt;  // (mass, extra seconds)
  if (c.lengths_vary()) {
    static const double edges[] = {0, 0.25, 0.5, 0.75, 0.9, 0.95, 0.98, 0.99, 0.995, 0.999, 1};
    const double alone = scale.prefill * c.prefill_alone_s;
    for (int k = 0; k + 1 < int(std::size(edges)); ++k) {
      const double x = prompt_at(c, law_a, 0.5 * (edges[k] + edges[k + 1]));
      prompt.push_back({edges[k + 1] - edges[k], alone * (x / isl - 1.0)});
    }
  } else {
    prompt.push_back({1.0, 0.0});
  }
  const auto batch_part_cdf = [&](double t) {
    double f = 0;
    for (const auto& [pm, extra] : prompt) {
      const double u = t - extra;
      double g = 0;
      for (const Bin& b : bins) {
        const double a = b.own - 0.5 * b.spread;
        if (b.sd <= 0) {
          g += b.mass * std::clamp((u - a) / b.spread, 0.0, 1.0);
          continue;
        }
        // The uniform phase over [a, a + w] plus the step's normal variation: (G(u - a) - G(u - a - w)) / w
        // with G(x) = x Phi(x / sd) + sd phi(x / sd).
        const auto G = [&](double x) {
          const double z = x / b.sd;
          if (z > 8) return x;
          if (z < -8) return 0.0;
          return x * 0.5 * std::erfc(-z / std::sqrt(2.0)) + b.sd * std::exp(-0.5 * z * z) / 2.5066282746310002;
        };
        g += b.mass * (G(u - a) - G(u - a - b.spread)) / b.spread;
      }
      if (p_wait > 0) {
        // A uniform phase over [a, a + w] plus an exponential wait at wait_rate.
        const double w = spread_s(cap), a = own_s(cap) - 0.5 * w, hi = std::min(a + w, u);
        if (hi > a)
          g += p_wait / w * ((hi - a) - (std::exp(-wait_rate * (u - hi)) - std::exp(-wait_rate * (u - a))) / wait_rate);
      }
      f += pm * g;
    }
    return f / (below + p_wait);
  };
  const auto batch_part_quantile = [&](double q) {
    double lo = -scale.prefill * c.prefill_alone_s, hi = 0;  // the shortest prompt saves at most its prefill
    for (const Bin& b : bins) {
      hi = std::max(hi, b.own + b.spread + 8 * b.sd);
      lo = std::min(lo, b.own - b.spread - 8 * b.sd - scale.prefill * c.prefill_alone_s);
    }
    if (p_wait > 0) hi = std::max(hi, own_s(cap) + spread_s(cap) + 40.0 / wait_rate);
    hi += prompt.back().second;
    return quantile_in(batch_part_cdf, q, lo, hi, 36);
  };
  // Varying prompts make the prefill service vary with them: cs^2 = E[x^2] / ISL^2 - 1.
  const double cv2 = c.lengths_vary() ? std::max(c.prefill_service_cv2, x2 / (isl * isl) - 1.0)
                                      : c.prefill_service_cv2;
  r.ttft_mean_s = batch_part_mean + mgc_wait_mean_s(c.prefill_servers, rate, service_s, cv2);
  const double wait_p99_s = mgc_wait_quantile_s(c.prefill_servers, rate, service_s, cv2, 0.99);
  if (limits) {
    r.stable = std::isfinite(wait_p99_s);
    *meets = r.stable && (limits->ttft_p99_s <= 0 || batch_part_cdf(limits->ttft_p99_s - wait_p99_s) >= 0.99);
    return r;
  }
  r.ttft_p50_s = batch_part_quantile(0.5) + mgc_wait_quantile_s(c.prefill_servers, rate, service_s, cv2, 0.5);
  r.ttft_p99_s = batch_part_quantile(0.99) + wait_p99_s;
  r.stable = std::isfinite(r.ttft_p99_s);
  if (!r.stable) r.why_not = "the queue grows without bound";
  return r;
}

}  // namespace

OpenLoopResult open_loop(const OpenLoopCurve& c, double rate, const OpenLoopScale& scale) {
  return evaluate_open_loop(c, rate, scale, nullptr, nullptr);
}

bool open_loop_meets(const OpenLoopCurve& c, double rate, const OpenLoopLimits& limits, const OpenLoopScale& scale) {
  bool meets = false;
  evaluate_open_loop(c, rate, scale, &limits, &meets);
  return meets;
}

double largest_rate_where(double from, const std::function<bool(double)>& ok) {
  const double tiny = 1e-6 * std::max(from, 1e-6);
  if (!ok(tiny)) return 0;
  double lo = tiny, hi = std::max(from, 2 * tiny);
  while (ok(hi) && hi < 1e9) {
    lo = hi;
    hi *= 2;
  }
  for (int it = 0; it < 50; ++it) {
    const double m = 0.5 * (lo + hi);
    (ok(m) ? lo : hi) = m;
  }
  return lo;
}

double open_loop_capacity_per_s(const OpenLoopCurve& c, double from) {
  return largest_rate_where(from, [&](double r) { return open_loop(c, r).stable; });
}

bool open_loop_within(const OpenLoopResult& r, const OpenLoopLimits& l) {
  return r.stable && (l.ttft_p99_s <= 0 || r.ttft_p99_s <= l.ttft_p99_s) &&
         (l.tpot_p50_s <= 0 || r.tpot_p50_s <= l.tpot_p50_s) && (l.tpot_p99_s <= 0 || r.tpot_p99_s <= l.tpot_p99_s);
}

double open_loop_max_rate_within(const OpenLoopCurve& c, const OpenLoopLimits& limits, double from) {
  return largest_rate_where(from, [&](double r) { return open_loop_within(open_loop(c, r), limits); });
}

}  // namespace gpuplan
