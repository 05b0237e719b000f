// The odds of one deployment at one demand (sizing/odds.h): the bands bracket the central figures and
// close on them as the error bands do, the chance of keeping up falls with the load, and with the same
// draws the chance of meeting the SLA is size's for a purchase at that rate, in the core and through
// the commands.
#include <gtest/gtest.h>

#include "api/api.h"
#include "core/error.h"
#include "inference/open_loop.h"
#include "sizing/odds.h"
#include "sizing/sizing.h"

namespace gpuplan::sizing {
namespace {

// One prefill server of 1 s exponential service (M/M/1), a decode side far from its limits.
Candidate mm1_candidate(double band_half_width_log) {
  Candidate c;
  c.system = "a";
  c.generation = "g";
  c.curve.osl = 2;
  c.curve.prefill_servers = 1;
  c.curve.prefill_alone_s = 1.0;
  c.curve.prefill_service_s = 1.0;
  c.curve.prefill_service_cv2 = 1.0;
  c.curve.decode_slots = 1'000'000;
  c.curve.batch = {1, 1e6};
  c.curve.tpot_s = {0.01, 0.01};
  c.tpot_band.kind = "tpot";
  c.ttft_band.kind = "ttft";
  c.tpot_band.low_log = c.ttft_band.low_log = -band_half_width_log;
  c.tpot_band.high_log = c.ttft_band.high_log = band_half_width_log;
  return c;
}

TEST(Odds, ABandOfNoWidthIsTheCentralFigure) {
  const Candidate c = mm1_candidate(0);
  SizingOptions o;
  o.draws = 50;
  const OpenLoopOdds odds = open_loop_odds(c, 0.5, o);
  const OpenLoopResult r = open_loop(c.curve, 0.5);
  EXPECT_EQ(odds.p_stable, 1.0);
  ASSERT_TRUE(odds.ttft_p99_s.low);
  EXPECT_NEAR(*odds.ttft_p99_s.low, r.ttft_p99_s, 1e-9);
  ASSERT_TRUE(odds.ttft_mean_s.high);
  EXPECT_NEAR(*odds.ttft_mean_s.high, r.ttft_mean_s, 1e-9);
  ASSERT_TRUE(odds.ttft_p99_s.high);
  EXPECT_NEAR(*odds.ttft_p99_s.high, r.ttft_p99_s, 1e-9);
  ASSERT_TRUE(odds.tokens_per_s_per_user.low);
  EXPECT_NEAR(*odds.tokens_per_s_per_user.low, r.tokens_per_s_per_user_p50, 1e-6);
}

TEST(Odds, TheBandBracketsTheCentralFigureAndOpensNearCapacity) {
  const Candidate c = mm1_candidate(0.2);
  SizingOptions o;
  o.draws = 400;
  o.sla.ttft_p99_s = 20;
  const OpenLoopResult light = open_loop(c.curve, 0.2);
  const OpenLoopOdds at_light = open_loop_odds(c, 0.2, o);
  ASSERT_TRUE(at_light.ttft_p99_s.low);
  EXPECT_LT(*at_light.ttft_p99_s.low, light.ttft_p99_s);
  ASSERT_TRUE(at_light.ttft_p99_s.high);
  EXPECT_GT(*at_light.ttft_p99_s.high, light.ttft_p99_s);
  // The load raises the odds of falling behind: never a better chance of keeping up at a higher rate.
  double last = 1.0;
  for (double rate : {0.2, 0.5, 0.7, 0.8, 0.9, 0.95}) {
    const OpenLoopOdds x = open_loop_odds(c, rate, o);
    EXPECT_LE(x.p_stable, last + 1e-12) << rate;
    EXPECT_LE(x.p_meets_sla, x.p_stable) << rate;
    last = x.p_stable;
  }
  // At 0.95 of the central capacity, a prefill a tenth slower (well inside the band) cannot keep up; at
  // twice the capacity hardly a draw keeps up, and there is no band at all.
  EXPECT_FALSE(open_loop_odds(c, 0.95, o).ttft_p99_s.high);
  const OpenLoopOdds over = open_loop_odds(c, 2.0, o);
  EXPECT_LT(over.p_stable, 0.1);
  EXPECT_FALSE(over.ttft_p99_s.low);
  EXPECT_FALSE(over.tokens_per_s_per_user.low);
  EXPECT_THROW(open_loop_odds(c, 0, o), InputError);
  o.draws = 0;
  EXPECT_THROW(open_loop_odds(c, 0.5, o), InputError);
}

// With the same draws, one replica's chance of meeting the SLA at rate R is size's P(meets SLA) for
// the purchase that splits its demand over the replicas it buys.
TEST(Odds, AgreesWithSizeOnTheSameDraws) {
  const Candidate c = mm1_candidate(0.3);
  SizingOptions o;
  o.draws = 300;
  o.seed = 11;
  o.sla.ttft_p99_s = 12;
  o.same_generation_correlation = 0.9;
  o.cross_generation_correlation = 0.6;
  for (double demand : {0.3, 1.0, 3.0}) {
    o.requests_per_s = demand;
    const SizedOption s = size_candidates({c}, o).front();
    ASSERT_GT(s.replicas, 0) << demand;
    const OpenLoopOdds odds = open_loop_odds(c, demand / double(s.replicas), o);
    EXPECT_NEAR(odds.p_meets_sla, s.p_meets_sla, 1e-12) << demand;
    EXPECT_LT(s.p_meets_sla, 1.0) << demand;  // draws that miss: the agreement is not of two certainties
  }
}

const api::Session& odds_session() {
  static const api::Session s;
  return s;
}

TEST(OddsCommand, InferRequestsPerSecondCarriesSizesOdds) {
  const nlohmann::json demand = {{"model", "llama-3.1-70b"}, {"isl", 2048}, {"osl", 256}, {"ttft_ms", 3000},
                                 {"tokens_per_user_per_s", 20}, {"draws", 200}, {"seed", 3}};
  nlohmann::json sz = demand;
  sz.erase("ttft_ms");
  sz["ttft_p99_ms"] = 3000;
  sz["requests_per_s"] = 12;
  sz["systems"] = {"hgx-h200"};
  const auto doc = api::run(odds_session(), "size", sz);
  const auto& o = doc["options"][0];
  ASSERT_TRUE(o.contains("replicas")) << o.dump();
  nlohmann::json in = demand;
  in["system"] = "hgx-h200";
  in["requests_per_s"] = 12.0;  // the whole demand: infer buys size's replicas, one replica takes 12 / k
  const auto r = api::run(odds_session(), "infer", in);
  ASSERT_TRUE(r.contains("odds")) << r.dump();
  EXPECT_EQ(r["deployment"]["plan"], o["deployment"]);
  EXPECT_EQ(r["replicas"], o["replicas"]);
  EXPECT_NEAR(r["odds"]["p_meets_sla"].get<double>(), o["p_meets_sla"].get<double>(), 1e-12);
  const auto& b = r["odds"]["bands"]["ttft_p99_s"];
  ASSERT_FALSE(b["low"].is_null());
  EXPECT_LE(b["low"].get<double>(), r["ttft_p99_s"].get<double>());
  if (!b["high"].is_null()) {
    EXPECT_GE(b["high"].get<double>(), r["ttft_p99_s"].get<double>());
  }
  // The draws are an open-loop option: refused where they are not read, and out of range.
  nlohmann::json closed = demand;
  closed["system"] = "hgx-h200";
  EXPECT_THROW(api::run(odds_session(), "infer", closed), InputError);
  in["draws"] = 0;
  try {
    api::run(odds_session(), "infer", in);
    ADD_FAILURE() << "draws 0 accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "--draws");
  }
}

}  // namespace
}  // namespace gpuplan::sizing
