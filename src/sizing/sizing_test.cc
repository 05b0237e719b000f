// Sizing: the queueing formulas against hand-solved cases, the open-loop model's properties, the Monte
// Carlo's (more demand never buys fewer units; P(cheapest) sums to 1; seeds repeat), the money (rent is
// GPUs x price x hours), and the size command end to end (the bought deployment meets the SLA).
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <set>
#include <stdexcept>

#include "api/api.h"
#include "core/error.h"
#include "cost/cost_profile.h"
#include "cost/tco.h"
#include "inference/open_loop.h"
#include "inference/queueing.h"
#include "sizing/money.h"
#include "sizing/rent_prices.h"
#include "sizing/sizing.h"

namespace gpuplan::sizing {
namespace {

// One M/M/1-like pool: one prefill server of 1 s exponential service, a decode side far from its limits.
OpenLoopCurve mm1_curve() {
  OpenLoopCurve c;
  c.osl = 2;
  c.prefill_servers = 1;
  c.prefill_alone_s = 1.0;
  c.prefill_service_s = 1.0;
  c.prefill_service_cv2 = 1.0;  // exponential: M/M/1
  c.decode_slots = 1'000'000;
  c.batch = {1, 1e6};
  c.tpot_s = {0.01, 0.01};
  return c;
}

TEST(Queueing, ErlangCMatchesHandCases) {
  EXPECT_NEAR(erlang_c(1, 0.5), 0.5, 1e-12);  // M/M/1: P(wait) = rho
  // M/M/2 at a = 1: C = (a^2/2 / (1 - a/2)) / (1 + a + a^2/2/(1 - a/2)) = 1 / 3.
  EXPECT_NEAR(erlang_c(2, 1.0), 1.0 / 3.0, 1e-12);
  EXPECT_EQ(erlang_c(4, 4.0), 1.0);
  // Halfin-Whitt beyond 256 servers stays close to the exact recursion at the boundary.
  EXPECT_NEAR(erlang_c(300, 280.0), erlang_c(256, 256.0 * 280.0 / 300.0), 0.15);
}

TEST(OpenLoop, GoldenMM1ByHand) {
  // lambda = 0.5/s, S = 1 s: mean wait rho S / (1 - rho) = 1 s; P(W > t) = 0.5 exp(-0.5 t): the 99th
  // percentile wait is ln(50) / 0.5 = 7.824 s, the median 0 (half the arrivals find the server idle).
  const OpenLoopResult r = open_loop(mm1_curve(), 0.5);
  ASSERT_TRUE(r.stable);
  EXPECT_NEAR(r.prefill_utilization, 0.5, 1e-12);
  EXPECT_NEAR(r.ttft_mean_s, 1.0 + 1.0, 1e-6);
  EXPECT_NEAR(r.ttft_p99_s, 1.0 + 2 * std::log(50.0), 1e-6);
  EXPECT_NEAR(r.ttft_p50_s, 1.0, 1e-6);
  // Decode: Little's law n = lambda x (OSL - 1) x TPOT = 0.5 x 1 x 0.01.
  EXPECT_NEAR(r.decode_batch, 0.005, 1e-6);
  EXPECT_FALSE(open_loop(mm1_curve(), 1.0).stable);
}

// The kept TPOT table gives an evaluation the values it computed at each use: the same to rounding (the
// chain's log ratios summed once, not state by state).
TEST(OpenLoop, TheKeptTpotTableChangesNoFigure) {
  OpenLoopCurve c = mm1_curve();
  c.decode_instances = 2;
  c.decode_slots = 256;
  c.osl = 200;
  c.batch = {2, 64, 256};
  c.tpot_s = {0.01, 0.02, 0.05};
  c.ttft_engine_s = {1.0, 1.1, 1.3};
  c.admit_interval_steps = 1;
  c.isl = 1000;
  c.prompt_isl_max = 4000;
  OpenLoopCurve kept = c;
  kept.index_tpot();
  ASSERT_EQ(kept.tpot_per_instance.size(), 129u);
  for (double rate : {0.05, 0.3, 0.6, 0.9})
    for (double scale : {0.8, 1.0, 1.3}) {
      const OpenLoopResult a = open_loop(c, rate, {scale, scale}), b = open_loop(kept, rate, {scale, scale});
      // The quantiles to their solver's width (2^-32 of the bracket), the rest to rounding.
      EXPECT_NEAR(a.tpot_p50_s, b.tpot_p50_s, 1e-8 * a.tpot_p50_s);
      EXPECT_NEAR(a.tpot_p99_s, b.tpot_p99_s, 1e-8 * a.tpot_p99_s);
      EXPECT_NEAR(a.tpot_mean_s, b.tpot_mean_s, 1e-12 * a.tpot_mean_s);
      EXPECT_NEAR(a.ttft_p99_s, b.ttft_p99_s, 1e-8 * a.ttft_p99_s);
      EXPECT_NEAR(a.decode_batch, b.decode_batch, 1e-12 * a.decode_batch);
    }
  EXPECT_TRUE(kept.tpot_per_seq_falls);  // the chain's mode found by bisection
  // A step time growing faster than its batch somewhere: the chain walked state by state, the same figures.
  OpenLoopCurve convex = c;
  convex.batch = {2, 128, 256};
  convex.tpot_s = {0.01, 0.012, 0.05};
  OpenLoopCurve convex_kept = convex;
  convex_kept.index_tpot();
  EXPECT_FALSE(convex_kept.tpot_per_seq_falls);
  for (double rate : {0.05, 0.3, 0.6, 0.9}) {
    const OpenLoopResult a = open_loop(convex, rate), b = open_loop(convex_kept, rate);
    EXPECT_EQ(a.stable, b.stable);
    EXPECT_NEAR(a.tpot_mean_s, b.tpot_mean_s, 1e-12 * a.tpot_mean_s);
    EXPECT_NEAR(a.ttft_p99_s, b.ttft_p99_s, 1e-12 * a.ttft_p99_s);
    EXPECT_NEAR(a.decode_batch, b.decode_batch, 1e-12 * a.decode_batch);
  }
  kept.decode_slots = 300;  // a table kept for other slots is not read
  EXPECT_EQ(open_loop(kept, 0.3).tpot_p99_s, open_loop([&] { OpenLoopCurve x = c; x.decode_slots = 300; return x; }(), 0.3).tpot_p99_s);
}

TEST(OpenLoop, TtftGrowsWithTheRate) {
  double last = 0;
  for (double rate : {0.1, 0.3, 0.5, 0.7, 0.9}) {
    const double t = open_loop(mm1_curve(), rate).ttft_p99_s;
    EXPECT_GE(t, last);
    last = t;
  }
}

// A decode-bound curve: one instance, step time a + b n (b n the batch's share), prefill negligible.
OpenLoopCurve decode_curve(double b_s) {
  OpenLoopCurve c;
  c.osl = 101;  // 100 decode tokens a request
  c.isl = 100;
  c.prefill_servers = 1;
  c.prefill_alone_s = 1e-3;
  c.prefill_service_s = 1e-6;
  c.decode_slots = 100'000;
  c.batch = {1, 100'000};
  c.tpot_s = {0.01 + b_s, 0.01 + b_s * 100'000};
  c.admit_interval_steps = 1;
  return c;
}

TEST(OpenLoop, DecodeBatchIsPoissonWhereTheStepIsFlat) {
  // Flat TPOT: the birth-death chain is the infinite-server queue's Poisson law, mean rate x 100 x TPOT.
  const OpenLoopResult r = open_loop(decode_curve(0), 100.0);
  ASSERT_TRUE(r.stable);
  EXPECT_NEAR(r.decode_batch, 100.0 * 100 * 0.01, 1e-6);
  EXPECT_NEAR(r.tpot_p50_s, 0.01, 1e-12);
}

TEST(OpenLoop, BatchSpreadWidensNearThePlateau) {
  // A step that grows with the batch: at the same mean batch the spread of TPOT is wider the larger
  // the batch's share of the step (the chain's variance n / (1 - u)).
  const double b = 1e-4;
  const OpenLoopCurve c = decode_curve(b);
  // The mean batch n solves n = rate x 100 x (0.01 + b n): rate = n / (100 (0.01 + b n)).
  const double n = 800, rate = n / (100 * (0.01 + b * n));
  const OpenLoopResult r = open_loop(c, rate);
  ASSERT_TRUE(r.stable);
  EXPECT_NEAR(r.decode_batch / n, 1.0, 0.05);
  const double u = b * n / (0.01 + b * n);
  const double sigma = std::sqrt(n / (1 - u));
  EXPECT_NEAR(r.tpot_p99_s, 0.01 + b * (n + 2.326 * sigma), 0.25 * b * 2.326 * sigma);
  EXPECT_GT(r.tpot_p99_s - r.tpot_p50_s, b * 2.326 * std::sqrt(n));  // wider than Poisson
}

TEST(OpenLoop, VaryingPromptsLengthenTheTtftTail) {
  OpenLoopCurve c = decode_curve(0);
  c.prefill_alone_s = 0.05;
  const OpenLoopResult fixed = open_loop(c, 50.0);
  c.prompt_isl_max = 1000;
  const OpenLoopResult varying = open_loop(c, 50.0);
  ASSERT_TRUE(fixed.stable && varying.stable);
  EXPECT_GT(varying.ttft_p99_s, fixed.ttft_p99_s + 0.05);
  EXPECT_NEAR(varying.ttft_mean_s, fixed.ttft_mean_s, 1e-9);  // the mean prompt is the same
  // Admission at step boundaries: the fixed prompt's TTFT spreads over one step about its mean.
  EXPECT_NEAR(fixed.ttft_p99_s - fixed.ttft_mean_s, 0.49 * 0.01, 2e-4);
}

TEST(OpenLoop, AClientsUniformLengthsSpreadTheTailLessThanADataset) {
  // Lengths uniform in [low, 1] x the longest, the ISL their mean: the longest prompt is 2 ISL / (1 + low),
  // so the TTFT tail rises by at most that prompt's extra prefill over the mean's, and more as low falls;
  // a dataset's capped exponential (to 10 x the ISL) spreads it most. The mean prompt, and so the mean
  // TTFT, is the same under every law.
  OpenLoopCurve c = decode_curve(0);
  c.prefill_alone_s = 0.05;
  const OpenLoopResult fixed = open_loop(c, 50.0);
  std::vector<OpenLoopResult> uniform;
  for (const double low : {0.8, 0.2}) {
    c.length_low = low;
    uniform.push_back(open_loop(c, 50.0));
    ASSERT_TRUE(uniform.back().stable);
    EXPECT_GT(uniform.back().ttft_p99_s, fixed.ttft_p99_s) << low;
    EXPECT_LE(uniform.back().ttft_p99_s - fixed.ttft_p99_s, 0.05 * (2 / (1 + low) - 1) + 1e-6) << low;
    EXPECT_NEAR(uniform.back().ttft_mean_s, fixed.ttft_mean_s, 1e-9) << low;
  }
  EXPECT_GT(uniform[1].ttft_p99_s, uniform[0].ttft_p99_s);
  c.length_low = 1;
  c.prompt_isl_max = 1000;
  EXPECT_GT(open_loop(c, 50.0).ttft_p99_s, uniform[1].ttft_p99_s);
}

TEST(OpenLoop, MixedStepsWidenTheTpotTailOfShortRequests) {
  // An aggregated engine (the TTFT tabulated) whose steps carry prompts: with a dataset's varying
  // lengths the short requests average few steps, so the p99 TPOT rises above the batch's own.
  OpenLoopCurve c = decode_curve(1e-5);
  c.prefill_alone_s = 0.02;
  c.prefill_service_s = 0.01;  // a prompt's compute riding in a step
  c.ttft_engine_s = {0.03, 0.03};
  const OpenLoopResult fixed = open_loop(c, 50.0);
  c.prompt_isl_max = 1000;
  const OpenLoopResult varying = open_loop(c, 50.0);
  ASSERT_TRUE(fixed.stable && varying.stable);
  EXPECT_GT(varying.tpot_p99_s, fixed.tpot_p99_s * 1.05);
  EXPECT_NEAR(varying.tpot_p50_s, fixed.tpot_p50_s, 0.05 * fixed.tpot_p50_s);
}

TEST(OpenLoop, MeetsAsksTheSameQuestionAsTheQuantiles) {
  // open_loop_meets checks each distribution at its limit; open_loop solves the quantiles: the verdicts
  // agree at limits on either side of the quantiles (1% off them), for prefill-bound, decode-bound and
  // mixed-step curves with fixed and varying prompts, scaled or not.
  std::vector<OpenLoopCurve> curves{mm1_curve(), decode_curve(0), decode_curve(1e-5)};
  curves[2].prefill_alone_s = 0.02;
  curves[2].prefill_service_s = 0.01;
  curves[2].ttft_engine_s = {0.03, 0.03};
  for (int varying = 0; varying < 2; ++varying) {
    for (OpenLoopCurve c : curves) {
      if (varying) c.prompt_isl_max = 1000;
      for (const OpenLoopScale scale : {OpenLoopScale{}, OpenLoopScale{1.3, 0.8}}) {
        for (double rate : {0.1, 0.4, 0.8, 5.0, 50.0, 90.0}) {
          const OpenLoopResult r = open_loop(c, rate, scale);
          if (!r.stable) {
            EXPECT_FALSE(open_loop_meets(c, rate, OpenLoopLimits{}, scale)) << rate;
            continue;
          }
          for (double f : {0.99, 1.01}) {
            const bool above = f > 1;  // the limits 1% above the figures: met
            OpenLoopLimits ttft, p50, p99;
            ttft.ttft_p99_s = f * r.ttft_p99_s;
            p50.tpot_p50_s = f * r.tpot_p50_s;
            p99.tpot_p99_s = f * r.tpot_p99_s;
            EXPECT_EQ(open_loop_meets(c, rate, ttft, scale), above) << "TTFT p99 at rate " << rate;
            EXPECT_EQ(open_loop_meets(c, rate, p50, scale), above) << "TPOT p50 at rate " << rate;
            EXPECT_EQ(open_loop_meets(c, rate, p99, scale), above) << "TPOT p99 at rate " << rate;
          }
        }
      }
    }
  }
}

Candidate candidate(const std::string& system, const std::string& generation, double usd_per_unit_year) {
  Candidate c;
  c.system = system;
  c.generation = generation;
  c.unit_gpus = 8;
  c.curve = mm1_curve();
  c.tpot_band.kind = c.ttft_band.kind = "k";
  c.tpot_band.low_log = c.ttft_band.low_log = -0.3;
  c.tpot_band.high_log = c.ttft_band.high_log = 0.3;
  c.usd_per_unit_year = usd_per_unit_year;
  return c;
}

TEST(Sizing, MoreDemandNeverBuysFewerUnits) {
  const std::vector<Candidate> cands = {candidate("a", "g1", 1.0), candidate("b", "g2", 1.1)};
  SizingOptions o;
  o.sla.ttft_p99_s = 6;
  o.draws = 400;
  long long last_a = 0, last_b = 0;
  for (double rate : {0.5, 1.0, 2.0, 4.0, 8.0, 16.0}) {
    o.requests_per_s = rate;
    const auto s = size_candidates(cands, o);
    ASSERT_GT(s[0].units, 0);
    EXPECT_GE(s[0].units, last_a);
    EXPECT_GE(s[1].units, last_b);
    EXPECT_GE(s[0].p_meets_sla, o.confidence);
    last_a = s[0].units;
    last_b = s[1].units;
  }
}

TEST(Sizing, PCheapestSumsToOneAndSeedsRepeat) {
  const std::vector<Candidate> cands = {candidate("a", "g1", 1.0), candidate("b", "g2", 1.0),
                                        candidate("c", "g1", 1.05), candidate("unpriced", "g3", 0)};
  SizingOptions o;
  o.requests_per_s = 5;
  o.sla.ttft_p99_s = 5;
  o.draws = 500;
  o.seed = 7;
  const auto s = size_candidates(cands, o);
  double sum = 0;
  for (const auto& x : s) sum += x.p_cheapest;
  EXPECT_NEAR(sum, 1.0, 1e-9);
  EXPECT_EQ(s[3].p_cheapest, 0.0);
  const auto again = size_candidates(cands, o);
  for (std::size_t i = 0; i < s.size(); ++i) {
    EXPECT_EQ(s[i].units, again[i].units);
    EXPECT_EQ(s[i].p_cheapest, again[i].p_cheapest);
  }
}

// Of a system's alternative deployments the one taking the fewest units is bought; the other takes no
// part in P(cheapest), which still sums to one over the systems.
TEST(Sizing, TheAlternativeOnTheFewestUnitsIsBought) {
  Candidate small = candidate("a", "g1", 1.0), wide = candidate("a", "g1", 1.0);
  small.group = wide.group = 0;
  wide.replica_units = 2;  // the same capacity on twice the units: never the fewer
  const std::vector<Candidate> cands = {small, wide, candidate("b", "g2", 1.1)};
  SizingOptions o;
  o.sla.ttft_p99_s = 6;
  o.draws = 300;
  for (double rate : {0.5, 4.0}) {
    o.requests_per_s = rate;
    const auto s = size_candidates(cands, o);
    EXPECT_TRUE(s[0].chosen);
    EXPECT_FALSE(s[1].chosen);
    EXPECT_TRUE(s[2].chosen);  // a group of its own
    EXPECT_LT(s[0].units, s[1].units);
    EXPECT_EQ(s[1].p_cheapest, 0.0);
    EXPECT_NEAR(s[0].p_cheapest + s[2].p_cheapest, 1.0, 1e-9);
  }
}

// Where two alternatives buy the same units, the smaller replica is bought: the same purchase in smaller
// failure domains (both reached the confidence), even where the larger pools its queue (one M/M/2 on
// two units against two M/M/1 replicas) and meets the SLA a little more often.
TEST(Sizing, OnATieOfUnitsTheSmallerReplicaIsBought) {
  Candidate small = candidate("a", "g1", 1.0), pooled = candidate("a", "g1", 1.0);
  small.group = pooled.group = 0;
  pooled.replica_units = 2;
  pooled.curve.prefill_servers = 2;  // two servers of the same speed: twice the capacity, one queue
  SizingOptions o;
  o.sla.ttft_p99_s = 6;
  o.draws = 200;
  int ties = 0;
  for (double rate = 0.1; rate < 3.0; rate += 0.05) {
    o.requests_per_s = rate;
    const auto s = size_candidates({small, pooled}, o);
    if (s[0].units == 0 || s[0].units != s[1].units) continue;
    ++ties;
    EXPECT_TRUE(s[0].chosen) << rate;
    EXPECT_FALSE(s[1].chosen) << rate;
  }
  EXPECT_GT(ties, 0);
}

// A system's draws do not depend on which other candidates are drawn beside it (size over the catalog,
// infer on the one system): each shared draw is a stream of its own, named.
TEST(Sizing, ASystemsDrawsDoNotDependOnItsNeighbours) {
  SizingOptions o;
  o.draws = 200;
  o.same_generation_correlation = 0.89;
  o.cross_generation_correlation = 0.7;
  const auto alone = draw_scales({candidate("a", "g1", 1.0)}, o);
  const auto beside = draw_scales({candidate("b", "g2", 1.0), candidate("c", "g1", 1.0), candidate("a", "g1", 1.0)}, o);
  for (std::size_t d = 0; d < alone[0].size(); ++d) {
    EXPECT_DOUBLE_EQ(alone[0][d].tpot, beside[2][d].tpot);
    EXPECT_DOUBLE_EQ(alone[0][d].prefill, beside[2][d].prefill);
  }
  // Systems of one generation differ by their own draws only; a seed changes every draw.
  EXPECT_NE(beside[1][0].tpot, beside[2][0].tpot);
  o.seed = 2;
  EXPECT_NE(draw_scales({candidate("a", "g1", 1.0)}, o)[0][0].tpot, alone[0][0].tpot);
}

// Errors that move together keep the nominally cheaper system cheapest; independent ones let the other win
// some draws. The generations' draws alone (the defaults) are what two generations' systems had.
TEST(Sizing, CorrelatedErrorsKeepTheCheaperSystemCheapest) {
  const std::vector<Candidate> cands = {candidate("a", "g1", 1.0), candidate("b", "g2", 1.02)};
  SizingOptions o;
  o.requests_per_s = 20;
  o.sla.ttft_p99_s = 5;
  o.draws = 400;
  const auto indep = size_candidates(cands, o);
  EXPECT_GT(indep[1].p_cheapest, 0.0);
  o.cross_generation_correlation = 1;
  const auto together = size_candidates(cands, o);
  EXPECT_NEAR(together[0].p_cheapest, 1.0, 1e-12);
  EXPECT_NEAR(together[0].p_meets_sla, indep[0].p_meets_sla, 0.1);  // each system's own odds barely move
  o.same_generation_correlation = 0.5;  // cross above same: refused
  EXPECT_THROW(size_candidates(cands, o), InputError);
}

// Where the TTFT limit sits at the deployment's unloaded latency, a slow draw meets it only with the
// replicas nearly idle: no purchase is more than kMaxOverNominal times the central figures' count, and
// one out of reach says why.
TEST(Sizing, ALimitAtTheUnloadedLatencyBuysNoIdleFleet) {
  const std::vector<Candidate> cands = {candidate("a", "g1", 1.0)};
  SizingOptions o;
  o.requests_per_s = 1;
  o.draws = 300;
  int out_of_reach = 0;
  for (double limit = 1.30; limit <= 1.42; limit += 0.004) {
    o.sla.ttft_p99_s = limit;
    const auto s = size_candidates(cands, o);
    ASSERT_TRUE(s[0].feasible);
    EXPECT_LE(s[0].replicas, kMaxOverNominal * s[0].replicas_nominal) << limit;
    if (s[0].replicas == 0) {
      ++out_of_reach;
      EXPECT_NE(s[0].why_not.find("within 16x"), std::string::npos) << s[0].why_not;
    }
  }
  EXPECT_GT(out_of_reach, 0);
}

// A hint only shortens the search: from any starting count, above or below the answer or past the
// most allowed, the fewest replicas are the same as from one.
TEST(Sizing, AHintNeverChangesTheFewestReplicas) {
  const Candidate c = candidate("a", "g1", 1.0);
  Sla sla;
  sla.ttft_p99_s = 1.5;
  std::set<long long> distinct;
  for (double rate : {0.5, 3.0, 40.0})
    for (double scale : {0.8, 1.0, 1.3})
      for (long long max_replicas : {1LL, 7LL, 1000LL}) {
        const long long plain = fewest_replicas(c.curve, rate, sla, {scale, scale}, max_replicas);
        distinct.insert(plain);
        for (long long hint : {1LL, 2LL, 3LL, 9LL, 50LL, 2000LL})
          EXPECT_EQ(fewest_replicas(c.curve, rate, sla, {scale, scale}, max_replicas, hint), plain)
              << rate << " " << scale << " " << max_replicas << " " << hint;
      }
  EXPECT_GE(distinct.size(), 4u);  // out of reach (0), one, and counts a search must find
}

// The draws searched in order of their scale from their neighbours' counts, and those slower than one
// out of reach skipped, buy what searching every draw from one buys, with the same P(meets SLA).
TEST(Sizing, TheOrderedSearchBuysWhatSearchingEveryDrawBuys) {
  const Candidate c = candidate("a", "g1", 1.0);
  SizingOptions o;
  o.requests_per_s = 3;
  o.draws = 400;
  int out_of_reach = 0, bought_cases = 0;
  for (double limit = 1.30; limit <= 2.5; limit += 0.1) {
    o.sla.ttft_p99_s = limit;
    const SizedOption s = size_candidates({c}, o)[0];
    const long long nominal = fewest_replicas(c.curve, o.requests_per_s, o.sla, {}, o.max_replicas);
    std::vector<long long> met;
    const std::vector<std::vector<OpenLoopScale>> scales = draw_scales({c}, o);
    for (const OpenLoopScale& x : scales[0]) {
      const long long k = fewest_replicas(c.curve, o.requests_per_s, o.sla, x, kMaxOverNominal * nominal);
      if (k > 0) met.push_back(k);
    }
    EXPECT_EQ(s.replicas_nominal, nominal) << limit;
    if (met.size() < std::size_t(std::ceil(o.confidence * o.draws - 1e-9))) {
      ++out_of_reach;
      EXPECT_EQ(s.replicas, 0) << limit;
      continue;
    }
    std::sort(met.begin(), met.end());
    const long long bought = std::max(nominal, met[std::size_t(std::ceil(o.confidence * o.draws - 1e-9)) - 1]);
    EXPECT_EQ(s.replicas, bought) << limit;
    ++bought_cases;
    const auto covered = std::count_if(met.begin(), met.end(), [&](long long k) { return k <= bought; });
    EXPECT_DOUBLE_EQ(s.p_meets_sla, double(covered) / o.draws) << limit;
  }
  EXPECT_GT(out_of_reach, 0);
  EXPECT_GT(bought_cases, 0);
}

// The error at a confidence is the band's quantile there (at least 1: never faster than the central
// figures), growing with the confidence; a candidate whose draws all meet the SLA at that error within the
// replicas sizing draws meets it at every lesser error, and sizing then buys it.
TEST(Sizing, TheErrorAtAConfidenceIsTheBandsQuantile) {
  const Candidate c = candidate("a", "g1", 1.0);
  const OpenLoopScale at_90 = error_at_confidence(c, 0.9), at_95 = error_at_confidence(c, 0.95);
  EXPECT_NEAR(at_90.tpot, std::exp(0.3), 1e-9);  // the band's upper edge is its 90% quantile
  EXPECT_NEAR(at_90.prefill, std::exp(0.3), 1e-9);
  EXPECT_GT(at_95.tpot, at_90.tpot);
  EXPECT_DOUBLE_EQ(error_at_confidence(c, 0.2).tpot, 1.0);
  SizingOptions o;
  o.requests_per_s = 1;
  o.draws = 300;
  int reached = 0, not_reached = 0;
  for (double limit = 1.2; limit <= 2.0; limit += 0.05) {
    o.sla.ttft_p99_s = limit;
    const bool reach = meets_within_reach(c, o, error_at_confidence(c, 0.95));
    ++(reach ? reached : not_reached);
    if (reach) {
      EXPECT_TRUE(meets_within_reach(c, o, {}));
      EXPECT_TRUE(meets_within_reach(c, o, at_90));
      EXPECT_GT(size_candidates({c}, o)[0].replicas, 0) << limit;
    }
  }
  EXPECT_GT(reached, 0);
  EXPECT_GT(not_reached, 0);
}

// A band's draws put its edges at the 10% and 90% quantiles and its recorded median at the 50%, however
// skewed the rows lie within it; a band without a median is the symmetric normal about its midpoint.
TEST(Sizing, DrawsMatchTheBandsThreeQuantiles) {
  ErrorBand b;
  b.set_edges(-0.2, 1.0);
  b.median_log = 0.2;
  const double z90 = 1.2815515655446004;
  const LogNormalError e = band_error(b);
  EXPECT_NEAR(e.at(0.0), 0.2, 1e-12);
  EXPECT_NEAR(e.at(-z90), -0.2, 1e-12);
  EXPECT_NEAR(e.at(z90), 1.0, 1e-12);
  b.median_log.reset();
  const LogNormalError m = band_error(b);
  EXPECT_NEAR(m.at(0.0), 0.4, 1e-12);
  EXPECT_NEAR(m.at(-z90), -0.2, 1e-12);
  EXPECT_NEAR(m.at(z90), 1.0, 1e-12);
  EXPECT_NEAR(m.sd_low, m.sd_high, 1e-12);
}

TEST(Sizing, ConfidenceOutOfRangeIsAnInputError) {
  SizingOptions o;
  o.requests_per_s = 1;
  o.confidence = 1.0;
  EXPECT_THROW(size_candidates({}, o), InputError);
}

TEST(Money, RentIsGpusTimesPriceTimesHours) {
  EXPECT_NEAR(rent_usd_per_year(72, 4.54), 72 * 4.54 * 8766.0, 1e-6);
  // $/M tokens: a year's cost over a year's tokens.
  EXPECT_NEAR(usd_per_million_tokens(8766.0 * 3600.0, 1e6), 1.0, 1e-12);
  const Catalog catalog = Catalog::load({});
  const auto prices = rent_prices(catalog, {"hgx-h100=3.25"}, "--rent-usd-per-gpu-hour");
  EXPECT_EQ(prices.at("hgx-h100").usd_per_gpu_hour, 3.25);
  EXPECT_GT(prices.at("hgx-b200").usd_per_gpu_hour, 0);
  EXPECT_FALSE(prices.at("hgx-b200").source.empty());
  EXPECT_THROW(rent_prices(catalog, {"hgx-h100"}, "--rent-usd-per-gpu-hour"), InputError);
  EXPECT_THROW(rent_prices(catalog, {"hgx-h100=-1"}, "--rent-usd-per-gpu-hour"), InputError);
}

// A price for a system the catalog does not have is refused, as every other list of systems refuses it.
TEST(Money, RentOfAnUnknownSystemIsRefused) {
  try {
    rent_prices(Catalog::load({}), {"nosuch=2"}, "--rent-usd-per-gpu-hour");
    ADD_FAILURE() << "nosuch=2 accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "--rent-usd-per-gpu-hour");
    EXPECT_NE(std::string(e.what()).find("unknown system 'nosuch'"), std::string::npos) << e.what();
  }
  // A system's other spelling prices the system.
  const auto other = rent_prices(Catalog::load({}), {"HGX-H100=3.25"}, "--rent-usd-per-gpu-hour");
  EXPECT_EQ(other.at("hgx-h100").usd_per_gpu_hour, 3.25);
}

const api::Session& session() {
  static const api::Session s;
  return s;
}

// The option an API call refuses (InputError::field), or "accepted" where it runs.
std::string refused_field(const std::string& command, const nlohmann::json& request) {
  try {
    api::run(session(), command, request);
  } catch (const InputError& e) {
    return e.field();
  }
  return "accepted";
}

nlohmann::json buyer(double rps, const std::string& mode = "own") {
  return api::run(session(), "size",
                  {{"model", "deepseek-r1"}, {"isl", 8192}, {"osl", 1024}, {"requests_per_s", rps},
                   {"ttft_p99_ms", 5000}, {"tokens_per_user_per_s", 30}, {"draws", 300}, {"price_mode", mode},
                   {"systems", {"gb200-nvl72", "hgx-b200", "hgx-h200"}}, {"sensitivity", true}});
}

TEST(SizeCommand, TheBoughtDeploymentMeetsTheSla) {
  const auto doc = buyer(20);
  EXPECT_EQ(doc["schema"], "gpuplan.size/v1");
  double sum = 0;
  for (const auto& o : doc["options"]) {
    sum += o.value("p_cheapest", 0.0);
    if (!o.contains("units")) continue;
    for (const char* k : {"system", "units", "gpus", "deployment", "capex_usd", "usd_per_year", "usd_per_million_tokens",
                          "it_kw", "facility_mw", "p_meets_sla", "p_cheapest", "ttft_p99_s", "tokens_per_s_per_user"})
      EXPECT_TRUE(o.contains(k)) << k;
    EXPECT_LE(o["ttft_p99_s"].get<double>(), 5.0);
    EXPECT_GE(o["tokens_per_s_per_user"].get<double>(), 30.0);
    EXPECT_GE(o["p_meets_sla"].get<double>(), 0.9);
    EXPECT_FALSE(o["sensitivity"].empty());
  }
  EXPECT_NEAR(sum, 1.0, 1e-9);
}

// One demand, one answer: infer --requests-per-s on one system buys what size buys there (the same
// deployment among the alternatives, the same replicas, the same draws: P(meets SLA) equal), and one
// replica at its share of the rate meets the SLA with size's figures.
TEST(SizeCommand, InferOpenLoopBuysWhatSizeBuys) {
  const auto doc = buyer(20);
  int checked = 0;
  for (const auto& o : doc["options"]) {
    if (!o.contains("units")) continue;
    const auto r = api::run(session(), "infer",
                            {{"model", "deepseek-r1"}, {"system", o["system"]}, {"isl", 8192}, {"osl", 1024},
                             {"tokens_per_user_per_s", 30}, {"ttft_ms", 5000}, {"draws", 300},
                             {"requests_per_s", 20.0}});
    EXPECT_EQ(r["mode"], "open_loop");
    EXPECT_EQ(r["deployment"]["plan"], o["deployment"]);
    EXPECT_EQ(r["replicas"], o["replicas"]) << o["system"];
    EXPECT_EQ(r["units"], o["units"]) << o["system"];
    EXPECT_EQ(r["gpus"], o["gpus"]) << o["system"];
    EXPECT_DOUBLE_EQ(r["odds"]["p_meets_sla"].get<double>(), o["p_meets_sla"].get<double>()) << o["system"];
    EXPECT_DOUBLE_EQ(r["rate_per_replica_per_s"].get<double>(), 20.0 / o["replicas"].get<double>());
    EXPECT_TRUE(r["met"].get<bool>()) << o["system"];
    EXPECT_DOUBLE_EQ(r["ttft_p99_s"].get<double>(), o["ttft_p99_s"].get<double>());
    EXPECT_LE(r["ttft_p99_s"].get<double>(), 5.0);
    ++checked;
  }
  EXPECT_GT(checked, 0);
}

// A small demand is bought on the fewest units: where the chooser's most efficient deployment spans two
// units (pipeline stages over 16 GPUs) but one unit's best serves the demand, size buys one unit, and
// the two-unit deployment is listed among the alternatives (not drawn: its central figures alone need
// more units than the one-unit deployment buys).
TEST(SizeCommand, ASmallDemandIsBoughtOnTheFewestUnits) {
  const nlohmann::json q = {{"model", "llama3.1-70b"}, {"isl", 2000}, {"osl", 500}, {"ttft_ms", 3000},
                            {"tokens_per_user_per_s", 20}, {"system", "hgx-h100"}};
  const auto chosen = api::run(session(), "infer", q);  // the closed-loop chooser: the most tokens/s per GPU
  ASSERT_GT(chosen["units"].get<int>(), 1) << chosen.dump();
  const auto doc = api::run(session(), "size",
                            {{"model", "llama3.1-70b"}, {"isl", 2000}, {"osl", 500}, {"ttft_p99_ms", 3000},
                             {"tokens_per_user_per_s", 20}, {"requests_per_s", 2}, {"draws", 300},
                             {"systems", nlohmann::json::array({"hgx-h100"})}});
  ASSERT_EQ(doc["options"].size(), 1u);
  const auto& o = doc["options"][0];
  EXPECT_EQ(o["units"], 1) << o.dump();
  EXPECT_EQ(o["replica_units"], 1);
  bool listed = false;
  for (const auto& a : o["alternatives"])
    listed = listed || (a["replica_units"].get<int>() == chosen["units"].get<int>() &&
                        a["why_not"].get<std::string>().find("not sized") != std::string::npos);
  EXPECT_TRUE(listed) << o.dump();
}

// Lengths that vary as a dataset's (--isl-max) reach both commands the same way: size's purchase under
// them meets the SLA in infer --requests-per-s with the same lengths, and the p99 TTFT there is no shorter
// than with every request at the mean (a prompt 3x the mean prefills 3x as long).
TEST(SizeCommand, VaryingLengthsReachInferAndSizeAlike) {
  const nlohmann::json base = {{"model", "llama3.1-70b"}, {"isl", 300}, {"osl", 294}, {"ttft_ms", 2000}};
  const auto doc = api::run(session(), "size",
                            {{"model", "llama3.1-70b"}, {"systems", nlohmann::json::array({"hgx-h100"})}, {"isl", 300},
                             {"osl", 294}, {"isl_max", 1024}, {"requests_per_s", 40}, {"ttft_p99_ms", 2000},
                             {"draws", 200}});
  EXPECT_EQ(doc["lengths"]["law"], "dataset");
  EXPECT_EQ(doc["lengths"]["isl_max"], 1024);
  ASSERT_EQ(doc["options"].size(), 1u);
  const auto& o = doc["options"][0];
  ASSERT_TRUE(o.contains("units")) << o.dump();
  nlohmann::json varying = base, fixed = base;
  varying["system"] = fixed["system"] = "hgx-h100";
  varying["requests_per_s"] = fixed["requests_per_s"] = 40.0 / o["replicas"].get<double>();
  varying["isl_max"] = 1024;
  const auto rv = api::run(session(), "infer", varying), rf = api::run(session(), "infer", fixed);
  EXPECT_EQ(rv["lengths"]["law"], "dataset");
  EXPECT_EQ(rf["lengths"]["law"], "fixed");
  EXPECT_EQ(rv["deployment"]["plan"], o["deployment"]);
  EXPECT_TRUE(rv["met"].get<bool>());
  EXPECT_GT(rv["ttft_p99_s"].get<double>(), rf["ttft_p99_s"].get<double>());
  EXPECT_GE(rv["tpot_p99_s"].get<double>(), rf["tpot_p99_s"].get<double>());
  // The longest prompt below the mean is refused naming the option, in both commands; without
  // --requests-per-s infer does not read it, so it is refused there too.
  for (const char* command : {"size", "infer"}) {
    nlohmann::json bad =
        command == std::string("size") ? nlohmann::json{{"model", "llama3.1-70b"}, {"requests_per_s", 1}} : varying;
    bad["isl"] = 300;
    bad["isl_max"] = 200;
    EXPECT_EQ(refused_field(command, bad), "--isl-max") << command;
  }
  EXPECT_EQ(refused_field("infer", {{"model", "llama3.1-70b"}, {"system", "hgx-h100"}, {"isl_max", 2048}}),
            "--isl-max");
  // A benchmark client's uniform lengths (--length-low) the same way; with --isl-max, refused.
  nlohmann::json client = fixed;
  client["length_low"] = 0.8;
  const auto rc = api::run(session(), "infer", client);
  EXPECT_EQ(rc["lengths"]["law"], "client_uniform");
  EXPECT_GT(rc["ttft_p99_s"].get<double>(), rf["ttft_p99_s"].get<double>());
  EXPECT_LT(rc["ttft_p99_s"].get<double>(), rv["ttft_p99_s"].get<double>());
  const auto sc = api::run(session(), "size",
                           {{"model", "llama3.1-70b"}, {"systems", nlohmann::json::array({"hgx-h100"})}, {"isl", 300},
                            {"osl", 294}, {"length_low", 0.8}, {"requests_per_s", 40}, {"draws", 50}});
  EXPECT_EQ(sc["lengths"]["law"], "client_uniform");
  for (const char* command : {"size", "infer"}) {
    nlohmann::json both = command == std::string("size")
                              ? nlohmann::json{{"model", "llama3.1-70b"}, {"requests_per_s", 1}, {"isl_max", 2048}}
                              : varying;
    both["length_low"] = 0.8;
    EXPECT_EQ(refused_field(command, both), "--length-low") << command;
  }
}

// --engine reaches size as infer reads it: the same deployment as infer's point mode and its open loop
// pick with that engine, and a system the engine does not run on is listed with the reason (refused by
// infer, naming --engine).
TEST(SizeCommand, AnEngineReachesSizeAndInferAlike) {
  const auto systems = nlohmann::json::array({"hgx-h100", "mi300x-platform"});
  const auto doc = api::run(session(), "size",
                            {{"model", "llama3.1-70b"}, {"systems", systems}, {"engine", "sglang"},
                             {"requests_per_s", 10}, {"tokens_per_user_per_s", 30}, {"draws", 100}});
  EXPECT_EQ(doc["engine"], "sglang");
  int sized = 0;
  for (const auto& o : doc["options"]) {
    ASSERT_TRUE(o.contains("units")) << o.dump();
    const auto point = api::run(session(), "infer",
                                {{"model", "llama3.1-70b"}, {"system", o["system"]}, {"engine", "sglang"},
                                 {"tokens_per_user_per_s", 30}});
    EXPECT_EQ(point["plan"], o["deployment"]) << o["system"];
    const auto open = api::run(session(), "infer",
                               {{"model", "llama3.1-70b"}, {"system", o["system"]}, {"engine", "sglang"},
                                {"tokens_per_user_per_s", 30}, {"requests_per_s", 10.0 / o["replicas"].get<double>()}});
    EXPECT_EQ(open["engine"], "sglang");
    EXPECT_EQ(open["deployment"]["plan"], o["deployment"]);
    EXPECT_TRUE(open["met"].get<bool>()) << o["system"];
    ++sized;
  }
  EXPECT_EQ(sized, 2);
  const auto trt = api::run(session(), "size",
                            {{"model", "llama3.1-70b"}, {"systems", nlohmann::json::array({"mi300x-platform"})},
                             {"engine", "tensorrt-llm"}, {"requests_per_s", 10}, {"draws", 50}});
  ASSERT_EQ(trt["options"].size(), 1u);
  EXPECT_FALSE(trt["options"][0].contains("units"));
  EXPECT_NE(trt["options"][0]["why_not"].get<std::string>().find("NVIDIA"), std::string::npos);
  for (const bool open_loop : {false, true}) {
    nlohmann::json r = {{"model", "llama3.1-70b"}, {"system", "mi300x-platform"}, {"engine", "tensorrt-llm"}};
    if (open_loop) r["requests_per_s"] = 1;
    EXPECT_EQ(refused_field("infer", r), "--engine") << open_loop;
  }
}

TEST(SizeCommand, DoublingDemandNeverBuysFewerUnitsAndRentIsPriceTimesHours) {
  const auto one = buyer(10, "rent"), two = buyer(20, "rent");
  for (std::size_t i = 0; i < one["options"].size(); ++i)
    for (const auto& o2 : two["options"])
      if (o2["system"] == one["options"][i]["system"] && o2.contains("units") && one["options"][i].contains("units")) {
        EXPECT_GE(o2["units"].get<long long>(), one["options"][i]["units"].get<long long>());
        const double price = o2["rent"]["usd_per_gpu_hour"].get<double>();
        EXPECT_NEAR(o2["usd_per_year"].get<double>(), o2["gpus"].get<double>() * price * 8766.0, 1e-6);
      }
}

// The crossover: at the price it names, the runner-up's purchase costs what the first's does a year (and
// the first's what the runner-up's does), whether owned or rented; and a unit's own price gives back its
// own cost.
TEST(SizeCommand, TheCrossoverPriceEqualsTheOtherPurchasesCost) {
  const Catalog catalog = Catalog::load({});
  const cost::CostProfile profile = cost::builtin_cost_profile();
  for (const char* mode : {"own", "rent"}) {
    const auto doc = buyer(20, mode);
    ASSERT_TRUE(doc.contains("crossover")) << mode;
    const auto& x = doc["crossover"];
    const auto option = [&](const nlohmann::json& system) -> const nlohmann::json& {
      for (const auto& o : doc["options"])
        if (o["system"] == system) return o;
      throw std::runtime_error("no option");
    };
    const auto& a = option(x["first"]);
    const auto& b = option(x["runner_up"]);
    EXPECT_LE(a["usd_per_year"].get<double>(), b["usd_per_year"].get<double>());
    const auto cost_at = [&](const nlohmann::json& o, double price) {
      if (std::string(mode) == "rent") return rent_usd_per_year(o["gpus"].get<double>(), price);
      // The price moves; an all-in capex's network, storage and installation stay as they were.
      const auto unit = cost::unit_cost_input(catalog, catalog.system(o["system"].get<std::string>(), "--systems"));
      cost::CostProfile p = profile;
      auto& s = p.systems[unit.system];
      if (s.allin_capex_usd) s.allin_capex_usd = price + cost::compute_tco(unit, profile).network_storage_usd;
      s.price_usd = price;
      return o["units"].get<double>() * cost::compute_tco(unit, p).total_usd_per_year();
    };
    ASSERT_FALSE(x["runner_up_overtakes_below_usd"].is_null()) << mode;
    EXPECT_NEAR(cost_at(b, x["runner_up_overtakes_below_usd"].get<double>()) / a["usd_per_year"].get<double>(), 1.0, 1e-5);
    ASSERT_FALSE(x["first_loses_above_usd"].is_null()) << mode;
    EXPECT_NEAR(cost_at(a, x["first_loses_above_usd"].get<double>()) / b["usd_per_year"].get<double>(), 1.0, 1e-5);
    EXPECT_NEAR(cost_at(a, x["first_price_usd"].get<double>()) / a["usd_per_year"].get<double>(), 1.0, 1e-9);
  }
  // A target below what the unit costs with no price at all is out of reach.
  const auto unit = cost::unit_cost_input(catalog, catalog.system("hgx-h100", "--systems"));
  EXPECT_FALSE(unit_price_for_usd_per_year(unit, profile, 1, 1.0));
}

// A precision the chip has no tensor cores for is sized as infer serves it (weights narrow, math wider),
// with the note infer prints, not refused.
TEST(SizeCommand, APrecisionWithoutTensorCoresIsServedAsInferServesIt) {
  const auto doc = api::run(session(), "size",
                            {{"model", "llama3.1-8b"}, {"systems", nlohmann::json::array({"hgx-h100"})},
                             {"precision", "fp4"}, {"requests_per_s", 2}});
  ASSERT_EQ(doc["options"].size(), 1u);
  const auto& o = doc["options"][0];
  ASSERT_TRUE(o.contains("units")) << o.dump();
  EXPECT_NE(o["note"].get<std::string>().find("no fp4 tensor cores"), std::string::npos) << o.dump();
  const auto r = api::run(session(), "infer", {{"model", "llama3.1-8b"}, {"system", "hgx-h100"}, {"precision", "fp4"}});
  EXPECT_FALSE(r.contains("why_not") && !r["why_not"].is_null()) << r.dump();
}

TEST(SizeCommand, ReportPage) {
  const std::string html = api::report_html(
      session(), "size",
      {{"model", "deepseek-r1"}, {"isl", 8192}, {"osl", 1024}, {"requests_per_s", 20}, {"ttft_p99_ms", 5000},
       {"tokens_per_user_per_s", 30}, {"draws", 100}, {"systems", {"gb200-nvl72", "hgx-b200"}}});
  EXPECT_NE(html.find("Sizing: deepseek-r1"), std::string::npos);
  EXPECT_NE(html.find("usd-per-million-tokens"), std::string::npos);
}

TEST(SizeCommand, BadInputNamesTheOption) {
  EXPECT_EQ(refused_field("size", {{"model", "deepseek-r1"}}), "--requests-per-s");
  EXPECT_EQ(refused_field("size", {{"model", "deepseek-r1"}, {"requests_per_s", 1}, {"price_mode", "lease"}}),
            "--price-mode");
  // A rental price of a system the catalog does not have, in size and in recommend (their shared parser).
  EXPECT_EQ(refused_field("size", {{"model", "llama3.1-8b"}, {"system", {"hgx-h100"}}, {"requests_per_s", 10},
                                   {"rent_usd_per_gpu_hour", {"nosuch=2"}}}),
            "--rent-usd-per-gpu-hour");
  EXPECT_EQ(refused_field("recommend", {{"model", "llama3.1-8b"}, {"task", "train"}, {"price_mode", "rent"},
                                        {"rent_usd_per_gpu_hour", {"nosuch=2"}}}),
            "--rent-usd-per-gpu-hour");
}

TEST(InferOpenLoop, OptionsItDoesNotReadAreRefused) {
  // The purchase reads the model, system, lengths, precision and targets only: anything else given (an
  // engine setting of a stated deployment, a benchmark-run rate, prefix hits) is an error naming it.
  for (const auto& [name, value] : std::vector<std::pair<std::string, nlohmann::json>>{
           {"request_rate", "5"}, {"max_num_tokens", 4096}, {"prefix_hit", 0.5}, {"mtp", 1}}) {
    const std::string option = name == "request_rate"     ? "request-rate"
                               : name == "prefix_hit"     ? "prefix-hit"
                               : name == "max_num_tokens" ? "max-num-tokens"
                                                          : name;
    EXPECT_EQ(refused_field("infer", {{"model", "llama3.1-70b"}, {"system", "hgx-h200"}, {"requests_per_s", 2},
                                      {name, value}}),
              "--" + option)
        << name;
  }
  // On a stated deployment, what belongs to a purchase or a closed loop.
  EXPECT_EQ(refused_field("infer", {{"model", "llama3.1-70b"}, {"system", "hgx-h200"}, {"requests_per_s", 2},
                                    {"tp", 2}, {"request_rate", "5"}}),
            "--request-rate");
  EXPECT_EQ(refused_field("infer", {{"model", "llama3.1-70b"}, {"system", "hgx-h200"}, {"requests_per_s", 2},
                                    {"tp", 2}, {"confidence", 0.9}}),
            "--confidence");
}

}  // namespace
}  // namespace gpuplan::sizing
