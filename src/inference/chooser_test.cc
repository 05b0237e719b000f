// The serving operating-point chooser: the chosen point meets its target within the TTFT limit, no
// load that does gives more, pruning changes no answer, it is never worse than reading the sweep's
// grid on the same GPUs, a target no deployment reaches says why; the default TTFT limit; one serving
// memory reserve; the disaggregated pools kept give the evaluator's results.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "catalog/catalog.h"
#include "core/error.h"
#include "inference/chooser.h"
#include "inference/result_testing.h"
#include "inference/speculative.h"
#include "model/model_registry.h"

namespace gpuplan {
namespace {

const Catalog& chooser_catalog() {
  static const Catalog c = Catalog::load({});
  return c;
}

ServingScenario chooser_scenario(const std::string& model, const std::string& system, long long isl, long long osl,
                         double tps_user, Precision p = Precision::fp8) {
  ServingScenario s;
  s.model = resolve_model(model);
  s.hw = resolve_hardware(chooser_catalog(), system);
  s.system = system;
  s.unit_gpus = chooser_catalog().system(system).gpus_per_unit();
  s.workload.weight_precision = p;
  s.workload.kv_bytes_per_element = default_kv_bytes(p);
  s.traffic.isl = isl;
  s.traffic.osl = osl;
  s.traffic.tokens_per_s_per_user = tps_user;
  s.traffic.ttft_limit_s = default_ttft_limit_s(isl);
  return s;
}

// Questions that differ only in their targets share the evaluated points (ServingEvalCache): the
// answers are those of the chooser without it, and the later questions evaluate fewer new points.
TEST(ServingChooser, SharedEvaluationsGiveTheSameAnswers) {
  for (const char* model : {"llama3.1-70b", "deepseek-r1"}) {
    ServingEvalCache cache;
    ChooserOptions shared;
    shared.cache = &cache;
    for (double tps : {50.0, 10.0, 100.0, 0.0}) {
      const ServingScenario s = chooser_scenario(model, "hgx-h200", 1024, 1024, tps);
      const ServingChoice alone = choose_serving(s);
      const std::size_t before = cache.points.size();
      const ServingChoice with = choose_serving(s, shared);
      ASSERT_EQ(alone.met, with.met) << model << " at " << tps;
      if (tps != 50.0) {
        EXPECT_LT(cache.points.size() - before, alone.evaluated) << model << " at " << tps;
      }
      if (!alone.met) continue;
      EXPECT_EQ(alone.gpus, with.gpus);
      EXPECT_EQ(alone.point.plan(), with.point.plan());
      EXPECT_EQ(alone.point.concurrency, with.point.concurrency);
      EXPECT_DOUBLE_EQ(alone.point.result.tokens_per_s_per_gpu, with.point.result.tokens_per_s_per_gpu);
      EXPECT_DOUBLE_EQ(alone.point.result.ttft_s, with.point.result.ttft_s);
    }
  }
}

// Pruning changes no answer: the chooser's deployment, units, load and figures are those of solving
// every deployment, on dense and MoE models, a node and a rack, short and long prompts, at targets
// from offline to fast.
TEST(ServingChooser, PruningGivesTheAnswerOfSolvingEveryDeployment) {
  ChooserOptions every;
  every.prune = false;
  for (const char* model : {"llama3.1-70b", "deepseek-r1", "mixtral-8x7b"}) {
    for (const char* system : {"hgx-h100", "hgx-h200", "gb300-nvl72"}) {
      struct Target {
        long long isl;
        double tps;
      };
      // 1K/1K from offline to fast; 8K/1K (fewer loads fit, the TTFT limit binds sooner) at two.
      for (const Target& t : {Target{1024, 0.0}, Target{1024, 10.0}, Target{1024, 30.0}, Target{1024, 50.0},
                              Target{1024, 150.0}, Target{8192, 10.0}, Target{8192, 50.0}}) {
        const long long isl = t.isl;
        const double tps = t.tps;
        if (isl == 8192 && std::string(model) == "mixtral-8x7b") continue;
        const ServingScenario s = chooser_scenario(model, system, isl, 1024, tps);
        const ServingChoice pruned = choose_serving(s);
        const ServingChoice all = choose_serving(s, every);
        const std::string what = fmt::format("{} on {}, ISL {}, at {} tokens/s per user", model, system, isl, tps);
        ASSERT_EQ(pruned.met, all.met) << what;
        EXPECT_EQ(pruned.why_not, all.why_not) << what;
        EXPECT_LE(pruned.evaluated, all.evaluated) << what;
        if (!pruned.met) continue;
        EXPECT_EQ(pruned.gpus, all.gpus) << what;
        EXPECT_EQ(pruned.units, all.units) << what;
        EXPECT_EQ(pruned.point.plan(), all.point.plan()) << what;
        EXPECT_EQ(pruned.point.concurrency, all.point.concurrency) << what;
        const InferenceResult &a = pruned.point.result, &b = all.point.result;
        EXPECT_NEAR(a.tokens_per_s_per_gpu, b.tokens_per_s_per_gpu, 1e-9 * b.tokens_per_s_per_gpu) << what;
        EXPECT_NEAR(a.tokens_per_s_per_user, b.tokens_per_s_per_user, 1e-9 * b.tokens_per_s_per_user) << what;
        EXPECT_NEAR(a.ttft_s, b.ttft_s, 1e-9 * b.ttft_s) << what;
      }
    }
  }
}

// The disaggregated pools kept for every pairing and load give the evaluator's own results: the same
// pools shared by the deployments of several sizes, MTP on and off, at loads from one client to the full
// cache and beyond.
TEST(ServingChooser, KeptPoolsGiveTheEvaluatorsResults) {
  const ServingScenario s = chooser_scenario("deepseek-r1", "hgx-h200", 1024, 1024, 50);
  SweepOptions so;
  so.mtp = so.disaggregated = true;
  DisaggregatedPools pools;
  int checked = 0;
  for (int gpus : {16, 32}) {
    for (int mtp : sweep_mtp_drafts(s.model, s.workload, so)) {
      for (const ServingDeployment& d : serving_deployments(s.model, s.hw, gpus, so, mtp)) {
        if (!d.disaggregated) continue;
        for (long long c : {0LL, 1LL, 64LL, 1000LL, 100000LL}) {
          const InferenceWorkload w = scenario_workload(s, d, c);
          const InferenceResult alone = evaluate_disaggregated(s.model, s.hw, d.disagg, w);
          const InferenceResult kept = evaluate_disaggregated(s.model, s.hw, d.disagg, w, &pools);
          const std::string what = d.plan() + fmt::format(" at {}", c);
          ASSERT_EQ(alone.valid(), kept.valid()) << what;
          EXPECT_EQ(alone.concurrency, kept.concurrency) << what;
          EXPECT_EQ(alone.max_concurrency, kept.max_concurrency) << what;
          EXPECT_DOUBLE_EQ(alone.tokens_per_s_per_gpu, kept.tokens_per_s_per_gpu) << what;
          EXPECT_DOUBLE_EQ(alone.tpot_s, kept.tpot_s) << what;
          EXPECT_DOUBLE_EQ(alone.ttft_s, kept.ttft_s) << what;
          EXPECT_DOUBLE_EQ(alone.prefill_utilization, kept.prefill_utilization) << what;
          EXPECT_EQ(alone.violations.size(), kept.violations.size()) << what;
          ++checked;
        }
      }
    }
  }
  EXPECT_GT(checked, 50);
}

TEST(ServingChooser, ChosenPointMeetsItsTargetWithinTheTtftLimit) {
  struct Case {
    const char* model;
    const char* system;
    long long isl, osl;
    double tps_user;
  };
  for (const Case& c : {Case{"llama3.1-70b", "hgx-h200", 8192, 1024, 50}, Case{"llama3.1-70b", "hgx-h100", 1024, 1024, 30},
                        Case{"llama3.1-8b", "hgx-b200", 1024, 1024, 150}, Case{"deepseek-r1", "hgx-h200", 8192, 1024, 50},
                        Case{"deepseek-r1", "gb200-nvl72", 1024, 1024, 100}, Case{"llama3.1-405b", "hgx-h100", 1024, 1024, 20}}) {
    const ServingScenario s = chooser_scenario(c.model, c.system, c.isl, c.osl, c.tps_user);
    const ServingChoice ch = choose_serving(s);
    ASSERT_TRUE(ch.met) << c.model << " on " << c.system << ": " << ch.why_not;
    const InferenceResult& r = ch.point.result;
    EXPECT_TRUE(r.valid()) << c.model;
    EXPECT_GE(r.tokens_per_s_per_user, c.tps_user * (1 - 1e-9)) << c.model << " on " << c.system;
    EXPECT_LE(r.ttft_s, s.traffic.ttft_limit_s) << c.model << " on " << c.system;
    EXPECT_EQ(ch.gpus, ch.units * s.unit_gpus);
    // The point is the scenario's own evaluation of that deployment at that load: one function.
    const InferenceResult again = evaluate_scenario(s, ch.point.deployment(), ch.point.concurrency);
    EXPECT_DOUBLE_EQ(again.tokens_per_s_per_gpu, r.tokens_per_s_per_gpu) << c.model;
    // One more client misses the target or gives no more throughput per GPU (or none fits).
    if (ch.point.concurrency < r.max_concurrency) {
      const InferenceResult more = evaluate_scenario(s, ch.point.deployment(), ch.point.concurrency + 1);
      if (meets_traffic(s.traffic, more)) {
        EXPECT_LE(more.tokens_per_s_per_gpu, r.tokens_per_s_per_gpu) << c.model << " on " << c.system;
      }
    }
  }
}

// Solving for the load is never worse than reading the sweep's grid of concurrencies on the same GPUs
// (the grid's points are loads the bisection also considers), and usually better.
TEST(ServingChooser, NeverBelowTheSweepsGridOnTheSameGpus) {
  for (const char* model : {"llama3.1-70b", "deepseek-r1"}) {
    const ServingScenario s = chooser_scenario(model, "hgx-h200", 8192, 1024, 50);
    ChooserOptions o;
    o.gpus = 8;
    const ServingChoice ch = choose_serving(s, o);
    ASSERT_TRUE(ch.met) << model << ": " << ch.why_not;
    InferenceWorkload w = s.workload;
    w.isl = 8192;
    w.osl = 1024;
    w.num_gpus = 8;
    SweepOptions so;
    so.ttft_limit_s = s.traffic.ttft_limit_s;
    so.mtp = so.disaggregated = s.model.is_moe();
    const SweepResult sweep = sweep_inference(s.model, s.hw, w, so);
    double grid = 0;
    for (const SweepPoint& p : sweep.frontier)
      if (p.result.tokens_per_s_per_user >= 50) grid = std::max(grid, p.result.tokens_per_s_per_gpu);
    ASSERT_GT(grid, 0) << model;
    EXPECT_GE(ch.point.result.tokens_per_s_per_gpu, grid * (1 - 1e-9)) << model;
  }
}

TEST(ServingChooser, ATargetNoDeploymentReachesSaysWhy) {
  const ServingChoice ch = choose_serving(chooser_scenario("llama3.1-70b", "hgx-h100", 1024, 1024, 5000));
  EXPECT_FALSE(ch.met);
  EXPECT_NE(ch.why_not.find("below the 5000 asked"), std::string::npos) << ch.why_not;
  EXPECT_GT(ch.fastest_tokens_per_s_per_user, 0);
  EXPECT_LT(ch.fastest_tokens_per_s_per_user, 5000);
  // A TTFT limit no prefill can meet.
  ServingScenario s = chooser_scenario("llama3.1-70b", "hgx-h100", 100000, 1024, 10);
  s.traffic.ttft_limit_s = 0.001;
  const ServingChoice t = choose_serving(s);
  EXPECT_FALSE(t.met);
  EXPECT_NE(t.why_not.find("TTFT"), std::string::npos) << t.why_not;
}

// Whole units by default: one 8-GPU node for Llama 3.1 70B (more nodes only replicate it), the same
// figure as on exactly 8 GPUs; more units only when the best deployment needs them.
TEST(ServingChooser, WholeUnitsAsManyAsTheBestDeploymentNeeds) {
  const ServingScenario s = chooser_scenario("llama3.1-70b", "hgx-h200", 8192, 1024, 50);
  const ServingChoice whole = choose_serving(s);
  ChooserOptions eight;
  eight.gpus = 8;
  const ServingChoice fixed = choose_serving(s, eight);
  ASSERT_TRUE(whole.met && fixed.met);
  EXPECT_EQ(whole.units, 1);
  EXPECT_EQ(whole.gpus, 8);
  EXPECT_GE(whole.point.result.tokens_per_s_per_gpu, 0.97 * fixed.point.result.tokens_per_s_per_gpu);
  // DeepSeek-R1 FP8 does not fit one 8 x 80 GB H100 node: served on more.
  const ServingChoice r1 = choose_serving(chooser_scenario("deepseek-r1", "hgx-h100", 1024, 1024, 30));
  ASSERT_TRUE(r1.met) << r1.why_not;
  EXPECT_GE(r1.units, 2);
}

// The fewest units that meet the target are reported beside the chosen ones: the same when the chosen
// size is the fewest; fewer, with the figure the chooser limited to them gives, when more units were
// chosen for more tokens/s per GPU.
TEST(ServingChooser, TheFewestUnitsThatMeetTheTargetAndTheirFigure) {
  const ServingChoice one = choose_serving(chooser_scenario("llama3.1-70b", "hgx-h200", 8192, 1024, 50));
  ASSERT_TRUE(one.met);
  EXPECT_EQ(one.fewest_units, one.units);
  EXPECT_EQ(one.fewest_units_tokens_per_s_per_gpu, one.point.result.tokens_per_s_per_gpu);
  const ServingScenario s = chooser_scenario("deepseek-r1", "hgx-h200", 1024, 1024, 50);
  const ServingChoice many = choose_serving(s);
  ASSERT_TRUE(many.met) << many.why_not;
  ASSERT_LT(many.fewest_units, many.units);
  EXPECT_GT(many.point.result.tokens_per_s_per_gpu, many.fewest_units_tokens_per_s_per_gpu);
  // The GPUs are the deployment's, the units the whole ones they take (not the size it was found at),
  // and the per-GPU figure is over those GPUs.
  EXPECT_EQ(many.gpus, many.point.deployment().gpus);
  EXPECT_EQ(many.units, (many.gpus + 7) / 8);
  EXPECT_NEAR(many.point.result.tokens_per_s_per_gpu * many.gpus, many.point.result.tokens_per_s_total,
              1e-6 * many.point.result.tokens_per_s_total);
  ChooserOptions at_most;
  at_most.max_units = many.fewest_units;
  const ServingChoice fewer = choose_serving(s, at_most);
  ASSERT_TRUE(fewer.met);
  EXPECT_EQ(fewer.units, many.fewest_units);
  EXPECT_EQ(fewer.point.result.tokens_per_s_per_gpu, many.fewest_units_tokens_per_s_per_gpu);
  ChooserOptions fixed;
  fixed.gpus = 8;
  EXPECT_EQ(choose_serving(s, fixed).fewest_units, 0);  // a fixed GPU count has no units to choose
}

TEST(ServingChooser, DefaultTtftLimitFollowsMlperfServerLimits) {
  EXPECT_DOUBLE_EQ(default_ttft_limit_s(1024), 2.0);
  EXPECT_DOUBLE_EQ(default_ttft_limit_s(2048), 2.0);
  EXPECT_NEAR(default_ttft_limit_s(20000), 6.0, 1e-12);
  EXPECT_GT(default_ttft_limit_s(8192), default_ttft_limit_s(4096));
  EXPECT_DOUBLE_EQ(resolve_ttft_limit_s(-1, 1024), 2.0);
  EXPECT_DOUBLE_EQ(resolve_ttft_limit_s(0, 1024), 0.0);
  EXPECT_DOUBLE_EQ(resolve_ttft_limit_s(0.5, 1024), 0.5);
  EXPECT_NE(default_ttft_basis(8192).find("MLPerf"), std::string::npos);
}

// One serving memory reserve: the evaluator's is the one `memory --inference` uses.
TEST(ServingChooser, OneServingMemoryReserve) {
  const auto r = evaluate_inference(resolve_model("llama3.1-8b"), resolve_hardware(chooser_catalog(), "hgx-h100"), {1, 1, 1, false},
                                    scenario_workload(chooser_scenario("llama3.1-8b", "hgx-h100", 1024, 1024, 0), {}, 0));
  ASSERT_TRUE(r.valid());
  EXPECT_DOUBLE_EQ(r.memory.reserve_bytes, kServingEngineReserveBytes);
}

}  // namespace
}  // namespace gpuplan

namespace gpuplan {
namespace {

// The chosen load is the best, not merely the largest, that meets the target: throughput per GPU is
// not monotone in the load (a rank with one sequence more than the others sets the step of all), and no
// load below the chosen one that meets the target within the TTFT limit gives more tokens/s per GPU.
TEST(ServingChooser, NoLoadBelowTheChosenOneGivesMore) {
  struct Case {
    const char* model;
    const char* system;
    long long isl, osl;
    double tps_user;
  };
  const Case cases[] = {
      {"deepseek-r1", "hgx-h100", 8192, 1024, 10},
      {"deepseek-r1", "hgx-h200", 1024, 1024, 50},
      {"llama3.1-70b", "hgx-h100", 1024, 1024, 50},
      {"mixtral-8x7b", "hgx-h200", 1024, 1024, 50},
      // A loose target met at the KV cache's limit (201 sequences a rank): the loads that fill the GEMMs'
      // row tiles (192, 128 a rank) give more than the largest.
      {"llama3.1-70b", "hgx-h200", 1024, 1024, 10},
  };
  for (const Case& c : cases) {
    const ServingScenario s = chooser_scenario(c.model, c.system, c.isl, c.osl, c.tps_user);
    const ServingChoice ch = choose_serving(s);
    ASSERT_TRUE(ch.met) << c.model << " on " << c.system;
    const ServingDeployment d = ch.point.deployment();
    const double chosen = ch.point.result.tokens_per_s_per_gpu;
    for (long long load = 1; load < ch.point.concurrency; ++load) {
      const InferenceResult r = evaluate_scenario(s, d, load);
      if (!meets_traffic(s.traffic, r)) continue;
      EXPECT_LE(r.tokens_per_s_per_gpu, chosen * (1 + 1e-12))
          << c.model << " on " << c.system << ", " << ch.point.plan() << ": load " << load << " gives "
          << r.tokens_per_s_per_gpu << " tokens/s per GPU, the chosen " << ch.point.concurrency << " " << chosen;
    }
  }
}

}  // namespace
}  // namespace gpuplan

namespace gpuplan {
namespace {

// The ceiling the chooser prunes by is a true bound: from one sequence per rank up to the KV cache's
// limit, per-user speed does not grow with the load, and tokens/s per GPU is at most the load times the
// per-user speed over the GPUs; so no load gives more than the load times the speed at any lower load
// over the GPUs; a disaggregated deployment's, at most its prefill pool's capacity times the OSL over
// the GPUs. Every deployment the chooser considers (aggregated and disaggregated, MTP on and off),
// dense and MoE, a node and a rack, at the loads it tries and a geometric grid up to the cache's limit.
TEST(ServingChooser, CeilingBoundsWhatEveryLoadGives) {
  struct Case {
    const char* model;
    const char* system;
    long long isl, osl;
    int units;
  };
  const Case cases[] = {
      {"deepseek-r1", "hgx-h200", 8192, 1024, 2}, {"deepseek-r1", "hgx-h100", 1024, 1024, 1},
      {"llama3.1-70b", "hgx-h200", 8192, 1024, 1}, {"mixtral-8x7b", "gb300-nvl72", 1024, 1024, 1},
      {"llama3.1-70b", "gb300-nvl72", 8192, 1024, 1},
  };
  int checked = 0;
  for (const Case& c : cases) {
    const ServingScenario s = chooser_scenario(c.model, c.system, c.isl, c.osl, 50);
    SweepOptions so;
    so.mtp = so.disaggregated = s.model.is_moe();
    so.max_pp = 2;
    for (int mtp : sweep_mtp_drafts(s.model, s.workload, so)) {
      for (const ServingDeployment& d : serving_deployments(s.model, s.hw, s.unit_gpus * c.units, so, mtp)) {
        InferenceResult top;
        try {
          top = evaluate_scenario(s, d, 0);
        } catch (const InputError&) {
          continue;  // a width the model's shapes do not allow
        }
        if (!top.valid() || top.max_concurrency < 1) continue;
        const long long lo0 =
            d.disaggregated ? std::max(1, d.disagg.decode_gpus / std::max(1, d.disagg.decode.tp))
                            : std::max(1LL, static_cast<long long>(top.instances) * (d.parallel.attention_dp ? d.parallel.tp : 1));
        std::vector<long long> loads;
        for (long long l = lo0; l <= std::min(top.max_concurrency, lo0 + 24); ++l) loads.push_back(l);
        for (double l = double(lo0 + 25); l <= double(top.max_concurrency); l *= 1.37) loads.push_back(std::llround(l));
        loads.push_back(top.max_concurrency);
        // A disaggregated deployment's requests/s stay below its prefill pool's capacity (the bound
        // the chooser skips deployments of more units by).
        const double prefill_bound =
            d.disaggregated ? prefill_capacity_per_s(s.model, s.hw, d.disagg, scenario_workload(s, d, 0)) *
                                  double(s.traffic.osl) / double(d.disagg.prefill_gpus + d.disagg.decode_gpus)
                            : 0.0;
        // Its clients hold its requests/s in both pools: rate x (the prefill side's least time + OSL
        // x TPOT) is at most the clients (the bound the chooser skips a disaggregated deployment's
        // loads by); and a rate whose prefill side alone passes the TTFT limit is never met (the bound
        // it skips deployments by).
        std::optional<PrefillTimeFloor> prefill_floor;
        double rate_within_ttft = INFINITY;
        if (d.disaggregated) {
          prefill_floor.emplace(s.model, s.hw, d.disagg, scenario_workload(s, d, 0));
          rate_within_ttft = disaggregated_rate_within_ttft_per_s(s.model, s.hw, d.disagg, scenario_workload(s, d, 0),
                                                                  s.traffic.ttft_limit_s);
        }
        double prev_speed = 0;
        long long prev = 0;
        for (long long l : loads) {
          const InferenceResult r = evaluate_scenario(s, d, l);
          if (!r.valid() || !(r.tokens_per_s_total > 0)) continue;
          const std::string what = fmt::format("{} on {}: {} at {} (previous {})", c.model, c.system, d.plan(), l, prev);
          const double gpus = r.tokens_per_s_total / r.tokens_per_s_per_gpu;
          EXPECT_LE(r.tokens_per_s_per_gpu, double(l) * r.tokens_per_s_per_user / gpus * (1 + 1e-9)) << what;
          if (d.disaggregated) {
            EXPECT_LE(r.tokens_per_s_per_gpu, prefill_bound * (1 + 1e-9)) << what;
            const double rate = r.requests_per_s;
            EXPECT_LE(rate * (prefill_floor->at(rate) + double(s.traffic.osl) / r.tokens_per_s_per_user),
                      double(l) * (1 + 1e-9))
                << what;
            if (r.ttft_s <= s.traffic.ttft_limit_s) {
              EXPECT_LT(rate, rate_within_ttft) << what;
            }
          }
          if (prev_speed > 0) {
            EXPECT_LE(r.tokens_per_s_per_user, prev_speed * (1 + 1e-9)) << what;
          }
          prev_speed = r.tokens_per_s_per_user;
          prev = l;
          ++checked;
        }
      }
    }
  }
  EXPECT_GT(checked, 1000);
}

}  // namespace
}  // namespace gpuplan

namespace gpuplan {
namespace {

// One DisaggregatedPools kept while every disaggregated deployment of DeepSeek-R1 on one and two GB300
// NVL72 racks is asked at loads up to its decode slots and beyond, in a scattered order (as the chooser
// asks them): each answer is the one a fresh evaluation gives, bit for bit (the decode steps kept by
// worker and batch serve every pool of that worker).
TEST(ServingChooser, KeptPoolsGiveFreshResultsAtEveryLoad) {
  const ServingScenario s = chooser_scenario("deepseek-r1", "gb300-nvl72", 8192, 1024, 75);
  SweepOptions so;
  so.mtp = so.disaggregated = true;
  DisaggregatedPools pools;
  long long checked = 0;
  for (int gpus : {72, 144}) {
    for (int mtp : sweep_mtp_drafts(s.model, s.workload, so)) {
      for (const ServingDeployment& d : serving_deployments(s.model, s.hw, gpus, so, mtp)) {
        if (!d.disaggregated) continue;
        long long slots = 0;
        try {
          slots = evaluate_disaggregated(s.model, s.hw, d.disagg, scenario_workload(s, d, 0), &pools).max_concurrency;
        } catch (const InputError&) {
          continue;
        }
        const long long n = std::min(slots + 8, 3000LL);
        for (long long i = 0; i < n; i += 17) {
          const long long c = 1 + (i * 7919) % n;
          const InferenceWorkload w = scenario_workload(s, d, c);
          const InferenceResult kept = evaluate_disaggregated(s.model, s.hw, d.disagg, w, &pools);
          const InferenceResult alone = evaluate_disaggregated(s.model, s.hw, d.disagg, w);
          result_testing::expect_same_result(kept, alone, d.plan() + fmt::format(" at {}", c));
          ++checked;
        }
      }
    }
  }
  EXPECT_GT(checked, 1000);
}

}  // namespace
}  // namespace gpuplan
