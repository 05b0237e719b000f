// Plan search and scaling sweeps: properties that must hold whatever the fitted efficiencies are.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "catalog/catalog.h"
#include "model/model_registry.h"
#include "search/memory_savers.h"
#include "search/scaling.h"
#include "search/fits_from.h"
#include "search/search.h"

namespace gpuplan {
namespace {

const Catalog& catalog() {
  static const Catalog c = Catalog::builtin();
  return c;
}

TrainingWorkload workload(int gpus, long long batch, int seq) {
  TrainingWorkload w;
  w.num_gpus = gpus;
  w.global_batch = batch;
  w.seq_len = seq;
  w.precision = Precision::bf16;
  return w;
}

TEST(PlanSpace, Llama70bCandidates) {
  const ModelArch m = resolve_model("llama3.1-70b");
  const Hardware hw = resolve_hardware(catalog(), "hgx-h100");
  const PlanSpace s = build_plan_space(m, hw, workload(64, 128, 4096));
  EXPECT_EQ(s.tp, (std::vector<int>{1, 2, 4, 8}));  // gcd(64 heads, 8 KV heads)
  EXPECT_EQ(s.cp, (std::vector<int>{1}));           // 4096 tokens: no CP
  EXPECT_EQ(s.ep, (std::vector<int>{1}));           // dense
  // Every layer placed, the spare slots at most the embedding and loss or the first and last stages'
  // shortfall (each keeps at least one layer).
  for (int pp : s.pp) {
    const int per = (80 + pp - 1) / pp;
    EXPECT_LE(per * pp - 80, std::max(2, 2 * (per - 1))) << pp;
  }
  std::size_t visited = 0;
  for_each_plan(s, [&](const TrainingPlan& p) {
    ++visited;
    EXPECT_EQ(p.sequence_parallel, p.tp > 1);
    EXPECT_TRUE(p.vp == 1 || p.pp > 1);
  });
  EXPECT_EQ(visited, s.size());
}

TEST(PlanSpace, UnevenFirstAndLastStages) {
  // DeepSeek-V3's 61 layers over 16 stages (the Megatron-Bridge H100 recipe): 4 layers a stage, the
  // first and last holding fewer; 61 over 32 chunks leaves no room for uneven ends (2 a chunk, 3 spare).
  const ModelArch m = resolve_model("deepseek-v3");
  const Hardware hw = resolve_hardware(catalog(), "hgx-h100");
  const PlanSpace s = build_plan_space(m, hw, workload(1024, 1024, 4096));
  EXPECT_NE(std::find(s.pp.begin(), s.pp.end(), 16), s.pp.end());
  EXPECT_TRUE(s.vp_allowed(8, 2));
  EXPECT_FALSE(s.vp_allowed(16, 2));
}

TEST(PlanSpace, LongSequenceAndMoe) {
  const ModelArch m = resolve_model("mixtral-8x7b");
  const Hardware hw = resolve_hardware(catalog(), "hgx-h100");
  const PlanSpace s = build_plan_space(m, hw, workload(64, 128, 32768));
  EXPECT_GT(s.cp.size(), 1u);
  EXPECT_EQ(s.ep, (std::vector<int>{1, 2, 4, 8}));
}

class Llama70bSearch : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    model_ = new ModelArch(resolve_model("llama3.1-70b"));
    hw_ = new Hardware(resolve_hardware(catalog(), "hgx-h100"));
    SearchOptions o;
    o.top_k = 10;
    result_ = new SearchResult(search_plans(*model_, *hw_, workload(64, 128, 4096), o));
  }
  static void TearDownTestSuite() {
    delete result_;
    delete hw_;
    delete model_;
  }
  static ModelArch* model_;
  static Hardware* hw_;
  static SearchResult* result_;
};
ModelArch* Llama70bSearch::model_ = nullptr;
Hardware* Llama70bSearch::hw_ = nullptr;
SearchResult* Llama70bSearch::result_ = nullptr;

TEST_F(Llama70bSearch, CountsAddUp) {
  const SearchStats& s = result_->stats;
  EXPECT_GT(s.enumerated, 100u);
  EXPECT_EQ(s.enumerated, s.evaluated + s.dropped());
  EXPECT_GT(s.dropped_divisibility, 0u);
  EXPECT_GT(s.dropped_memory, 0u);  // tp=1,pp=1 cannot hold 70B with Adam
  EXPECT_GT(s.evaluated, 10u);
}

TEST_F(Llama70bSearch, TopIsValidFitsAndSorted) {
  const auto& top = result_->top;
  ASSERT_EQ(top.size(), 10u);
  for (std::size_t i = 0; i < top.size(); ++i) {
    const auto& c = top[i];
    EXPECT_TRUE(c.result.valid());
    EXPECT_TRUE(c.result.memory.fits);
    EXPECT_LE(c.result.memory.total_bytes, c.result.memory.capacity_bytes);
    EXPECT_EQ(c.plan.tp * c.plan.pp * c.plan.cp * c.plan.dp, 64);
    EXPECT_NEAR(c.result.parts.total_s(), c.result.step_time_s, 1e-9 * c.result.step_time_s);
    EXPECT_DOUBLE_EQ(c.score, c.result.tokens_per_s);
    if (i > 0) {
      EXPECT_GE(top[i - 1].score, c.score);
    }
  }
}

TEST_F(Llama70bSearch, BestBeatsEveryEnumeratedPlanThatFits) {
  const PlanSpace space = build_plan_space(*model_, *hw_, workload(64, 128, 4096));
  const TrainingWorkload w = workload(64, 128, 4096);
  const double best = result_->top.front().result.tokens_per_s;
  int checked = 0;
  for_each_plan(space, [&](const TrainingPlan& candidate) {
    TrainingPlan p = candidate;
    if (!plan_divides(*model_, p, w)) return;
    fit_memory_savers(*model_, *hw_, p, w, {}, space.savers);  // each candidate's fastest saver setting
    const TrainingResult r = evaluate_training(*model_, *hw_, p, w);
    if (!r.valid() || !r.memory.fits) return;
    ++checked;
    EXPECT_LE(r.tokens_per_s, best * (1 + 1e-12)) << to_string(p);
  });
  EXPECT_EQ(static_cast<std::size_t>(checked), result_->stats.evaluated);
}

TEST_F(Llama70bSearch, FixedTypicalPlanIsNoBetter) {
  TrainingPlan p = parse_training_plan("tp=8,pp=4,vp=5,mbs=1,recompute=selective");
  p.dp = 0;  // derived
  const TrainingResult r = evaluate_training(*model_, *hw_, p, workload(64, 128, 4096));
  ASSERT_TRUE(r.valid());
  EXPECT_LE(r.tokens_per_s, result_->top.front().result.tokens_per_s * (1 + 1e-12));
}

TEST(Search, Llama405bOnOneNodeDoesNotFit) {
  const ModelArch m = resolve_model("llama3.1-405b");
  const Hardware hw = resolve_hardware(catalog(), "hgx-h100");
  const SearchResult r = search_plans(m, hw, workload(8, 64, 8192));
  EXPECT_TRUE(r.top.empty());
  EXPECT_EQ(r.stats.evaluated, 0u);
  EXPECT_GT(r.stats.dropped_memory, 0u);
  EXPECT_EQ(r.stats.enumerated, r.stats.dropped());
  ASSERT_TRUE(r.has_closest);
  EXPECT_FALSE(r.closest_memory.fits);
  EXPECT_GT(r.closest_memory.total_bytes, r.closest_memory.capacity_bytes);
}

TEST(Search, LongContextPicksContextParallelAndFits) {
  // Llama 3.1 70B at 128K tokens on 64 H100: one sequence's activations outgrow a GPU without CP.
  const ModelArch m = resolve_model("llama3.1-70b");
  const Hardware hw = resolve_hardware(catalog(), "hgx-h100");
  SearchOptions o;
  o.top_k = 3;
  const SearchResult r = search_plans(m, hw, workload(64, 48, 131072), o);
  ASSERT_FALSE(r.top.empty());
  EXPECT_GT(r.top.front().plan.cp, 1);
  EXPECT_TRUE(r.top.front().result.memory.fits);
}

TEST(PlanSpace, BothContextParallelKindsOnlyWhereCpSplits) {
  const ModelArch m = resolve_model("llama3.1-8b");
  const Hardware hw = resolve_hardware(catalog(), "hgx-h100");
  const PlanSpace s = build_plan_space(m, hw, workload(64, 64, 65536));
  EXPECT_EQ(s.kinds_for(1), (std::vector<CpKind>{CpKind::ring}));
  EXPECT_EQ(s.kinds_for(8), (std::vector<CpKind>{CpKind::ring, CpKind::a2a}));
  std::size_t visited = 0, a2a_no_cp = 0;
  for_each_plan(s, [&](const TrainingPlan& p) {
    ++visited;
    a2a_no_cp += (p.cp == 1 && p.cp_kind == CpKind::a2a) ? 1 : 0;
  });
  EXPECT_EQ(visited, s.size());
  EXPECT_EQ(a2a_no_cp, 0u);
}

TEST(Search, MoeSearchFindsExpertParallelPlans) {
  const ModelArch m = resolve_model("mixtral-8x7b");
  const Hardware hw = resolve_hardware(catalog(), "hgx-h100");
  SearchOptions o;
  o.top_k = 3;
  const SearchResult r = search_plans(m, hw, workload(64, 256, 4096), o);
  ASSERT_FALSE(r.top.empty());
  EXPECT_EQ(r.stats.enumerated, r.stats.evaluated + r.stats.dropped());
  EXPECT_TRUE(r.top.front().result.memory.fits);
}

TEST(Search, SmallerCapacityDropsMore) {
  const ModelArch m = resolve_model("llama3.1-8b");
  const Hardware hw = resolve_hardware(catalog(), "hgx-h100");
  SearchOptions big, small;
  small.memory.capacity_bytes = 40e9;
  const auto a = search_plans(m, hw, workload(16, 64, 4096), big);
  const auto b = search_plans(m, hw, workload(16, 64, 4096), small);
  EXPECT_EQ(a.stats.enumerated, b.stats.enumerated);
  EXPECT_GE(b.stats.dropped_memory, a.stats.dropped_memory);
  ASSERT_FALSE(a.top.empty());
  ASSERT_FALSE(b.top.empty());
  EXPECT_GE(a.top.front().score, b.top.front().score);
}

// Llama 3 70B FP8, tp=1 pp=1 ZeRO-3 (Megatron-FSDP), mbs=2, 8k tokens on 64 GB200 (the
// Megatron-Bridge recipe): the activations do not fit without a memory saver.
PlanSpace fsdp_70b_space(const ModelArch& m, const Hardware& hw, const TrainingWorkload& w) {
  PlanSpace s = build_plan_space(m, hw, w);
  s.tp = s.pp = s.vp = s.cp = s.ep = {1};
  s.mbs = {2};
  s.zero = {3};
  return s;
}

TrainingWorkload fsdp_70b_workload() {
  TrainingWorkload w = workload(64, 256, 8192);
  w.precision = Precision::fp8;
  return w;
}

TEST(Search, OffersModuleRecompute) {
  const ModelArch m = resolve_model("llama3-70b");
  const Hardware hw = resolve_hardware(catalog(), "gb200-nvl72");
  const PlanSpace s = build_plan_space(m, hw, fsdp_70b_workload());
  EXPECT_NE(std::find(s.recompute.begin(), s.recompute.end(), Recompute::modules), s.recompute.end());
  SpaceOptions o;
  o.module_recompute = false;
  const PlanSpace t = build_plan_space(m, hw, fsdp_70b_workload(), o);
  EXPECT_EQ(t.recompute.size() + 1, s.recompute.size());
}

TEST(Search, Gb200FindsTheFewestOffloadedLayersThatFit) {
  const ModelArch m = resolve_model("llama3-70b");
  const Hardware hw = resolve_hardware(catalog(), "gb200-nvl72");
  const TrainingWorkload w = fsdp_70b_workload();
  PlanSpace space = fsdp_70b_space(m, hw, w);
  SearchOptions o;
  o.top_k = 10;
  const SearchResult r = search_plan_space(space, m, hw, w, o);
  ASSERT_FALSE(r.top.empty());
  EXPECT_EQ(r.stats.enumerated, r.stats.evaluated + r.stats.dropped());
  const SearchCandidate& best = r.top.front();
  ASSERT_GT(best.plan.offload_layers, 0) << to_string(best.plan);  // Grace's NVLink-C2C hides the transfer
  EXPECT_LT(best.plan.offload_layers, m.layers);
  EXPECT_NE(best.plan.recompute, Recompute::full);
  EXPECT_TRUE(best.result.memory.fits);
  // The fewest: one layer fewer does not fit.
  MemoryOptions mo = o.memory;
  mo.capacity_bytes = hw.accelerator.memory_bytes;
  TrainingPlan fewer = best.plan;
  fewer.offload_layers -= 1;
  EXPECT_TRUE(training_memory(m, best.plan, w, mo).fits);
  EXPECT_FALSE(training_memory(m, fewer, w, mo).fits);
  // Nothing fits without a saver counted in layers: with both off the search has less to offer.
  space.savers.offload = false;
  space.savers.partial_recompute = false;
  const SearchResult plain = search_plan_space(space, m, hw, w, o);
  for (const SearchCandidate& c : plain.top) {
    EXPECT_EQ(c.plan.offload_layers, 0);
    EXPECT_EQ(c.plan.recompute_layers, 0);
    EXPECT_LT(c.score, best.score) << to_string(c.plan);
  }
}

TEST(Search, WithoutAHostLinkFindsTheFewestRecomputedLayersThatFit) {
  const ModelArch m = resolve_model("llama3-70b");
  Hardware hw = resolve_hardware(catalog(), "gb200-nvl72");
  hw.accelerator.host_link_bytes_per_s = 0;  // nothing to offload over
  const TrainingWorkload w = fsdp_70b_workload();
  const SearchResult r = search_plan_space(fsdp_70b_space(m, hw, w), m, hw, w);
  ASSERT_FALSE(r.top.empty());
  const TrainingPlan& p = r.top.front().plan;
  EXPECT_EQ(p.offload_layers, 0);
  ASSERT_EQ(p.recompute, Recompute::full) << to_string(p);
  EXPECT_GT(p.recompute_layers, 0);
  EXPECT_LT(p.recompute_layers, m.layers);
  MemoryOptions mo;
  mo.capacity_bytes = hw.accelerator.memory_bytes;
  TrainingPlan fewer = p;
  fewer.recompute_layers -= 1;
  EXPECT_FALSE(training_memory(m, fewer, w, mo).fits);
  // Recomputing fewer layers is faster than recomputing all of them.
  TrainingPlan all = p;
  all.recompute_layers = 0;
  EXPECT_LT(r.top.front().result.step_time_s, evaluate_training(m, hw, all, w).step_time_s);
}

TEST(Search, FullSpaceOffersSaversAndCountsAddUp) {
  // The whole space on GB200: some plan that fits only with offload or partial recompute is ranked.
  const ModelArch m = resolve_model("llama3-70b");
  const Hardware hw = resolve_hardware(catalog(), "gb200-nvl72");
  SearchOptions o;
  o.top_k = 1000;
  const SearchResult r = search_plans(m, hw, fsdp_70b_workload(), o);
  EXPECT_EQ(r.stats.enumerated, r.stats.evaluated + r.stats.dropped());
  bool offload = false, partial = false;
  for (const SearchCandidate& c : r.top) {
    EXPECT_TRUE(c.result.memory.fits);
    offload |= c.plan.offload_layers > 0;
    partial |= c.plan.recompute == Recompute::full && c.plan.recompute_layers > 0;
  }
  EXPECT_TRUE(offload);
  EXPECT_TRUE(partial);
}

// fit_memory_savers as it was first written: every probe of the bisection a whole training_memory
// estimate. The search's version (TrainingMemoryModel's totals, ranks that cannot be the most loaded
// left out) must agree with it plan for plan and figure for figure.
TrainingMemory bisect_whole_estimates(const ModelArch& m, const Hardware& hw, TrainingPlan& p,
                                      const TrainingWorkload& w, const MemorySavers& savers) {
  const MemoryOptions mo = with_capacities({}, hw);
  auto fewest_layers = [](int n, auto fits) {
    int lo = 1, hi = n;
    while (lo < hi) {
      const int mid = lo + (hi - lo) / 2;
      if (fits(mid)) hi = mid;
      else lo = mid + 1;
    }
    return hi;
  };
  TrainingMemory mem = training_memory(m, p, w, mo);
  const int chunk_layers = (m.layers + p.pp * p.vp - 1) / (p.pp * p.vp);
  if (p.recompute == Recompute::full) {
    if (!savers.partial_recompute || p.recompute_layers != 0 || !mem.fits) return mem;
    TrainingPlan q = p;
    const int layers = fewest_layers(chunk_layers, [&](int n) {
      q.recompute_layers = n;
      return training_memory(m, q, w, mo).fits;
    });
    if (layers >= chunk_layers) return mem;
    p.recompute_layers = layers;
    return training_memory(m, p, w, mo);
  }
  if (!savers.offload || mem.fits || p.offload_layers != 0 || hw.accelerator.host_link_bytes_per_s <= 0) return mem;
  auto hbm_fits = [&](const TrainingMemory& x) { return mo.capacity_bytes <= 0 || x.total_bytes <= mo.capacity_bytes; };
  TrainingPlan q = p;
  q.offload_layers = chunk_layers;
  if (!hbm_fits(training_memory(m, q, w, mo))) return mem;
  p.offload_layers = fewest_layers(chunk_layers, [&](int n) {
    q.offload_layers = n;
    return hbm_fits(training_memory(m, q, w, mo));
  });
  return training_memory(m, p, w, mo);
}

void expect_same_memory(const TrainingMemory& a, const TrainingMemory& b, const std::string& where) {
  EXPECT_EQ(a.total_bytes, b.total_bytes) << where;
  EXPECT_EQ(a.headroom_bytes, b.headroom_bytes) << where;
  EXPECT_EQ(a.fits, b.fits) << where;
  EXPECT_EQ(a.fits_host, b.fits_host) << where;
  EXPECT_EQ(a.host_bytes_per_gpu, b.host_bytes_per_gpu) << where;
  EXPECT_EQ(a.stage, b.stage) << where;
  EXPECT_EQ(a.stage_role, b.stage_role) << where;
  EXPECT_EQ(a.weights_bytes, b.weights_bytes) << where;
  EXPECT_EQ(a.activations_bytes, b.activations_bytes) << where;
  EXPECT_EQ(a.activation_bytes_per_layer, b.activation_bytes_per_layer) << where;
  ASSERT_EQ(a.stages.size(), b.stages.size()) << where;
  for (std::size_t i = 0; i < a.stages.size(); ++i) {
    EXPECT_EQ(a.stages[i].total_bytes, b.stages[i].total_bytes) << where << " stage " << i;
    EXPECT_EQ(a.stages[i].host_bytes, b.stages[i].host_bytes) << where << " stage " << i;
  }
  ASSERT_EQ(a.violations.size(), b.violations.size()) << where;
  for (std::size_t i = 0; i < a.violations.size(); ++i) EXPECT_EQ(a.violations[i].message, b.violations[i].message) << where;
}

void expect_same_totals(const TrainingMemory& a, const TrainingMemoryTotals& t, const std::string& where) {
  EXPECT_EQ(a.total_bytes, t.total_bytes) << where;
  EXPECT_EQ(a.headroom_bytes, t.headroom_bytes) << where;
  EXPECT_EQ(a.fits, t.fits) << where;
  EXPECT_EQ(a.fits_host, t.fits_host) << where;
  EXPECT_EQ(a.host_bytes_per_gpu, t.host_bytes_per_gpu) << where;
  double offloaded = 0;
  int layers = 0;
  for (const StageMemory& s : a.stages) {
    offloaded = std::max(offloaded, s.offloaded_bytes_per_microbatch);
    layers = std::max(layers, s.layers);
  }
  EXPECT_EQ(offloaded, t.offloaded_bytes_per_microbatch) << where;
  EXPECT_EQ(layers, t.most_layers) << where;
}

struct SaverCase {
  const char* model;
  const char* system;
  TrainingWorkload workload;
};

std::vector<SaverCase> saver_cases() {
  TrainingWorkload lora = workload(16, 64, 4096);
  lora.finetune.method = FinetuneMethod::qlora;
  TrainingWorkload long_seq = workload(64, 64, 32768);
  return {{"llama3-70b", "gb200-nvl72", fsdp_70b_workload()},
          {"llama3.1-70b", "hgx-h100", workload(64, 128, 4096)},
          {"llama3.1-405b", "gb200-nvl72", workload(256, 512, 8192)},
          {"deepseek-v3", "gb200-nvl72", workload(256, 1024, 4096)},
          {"llama3.1-8b", "hgx-h100", long_seq},
          {"llama3.1-70b", "hgx-h100", lora}};
}

// Calls f(case, model, hardware, space, plan) for every nth plan of each case's space that divides and
// that `keep` admits.
template <class Keep, class F>
void each_case_plan(int nth, Keep keep, F f) {
  for (const SaverCase& c : saver_cases()) {
    const ModelArch m = resolve_model(c.model);
    const Hardware hw = resolve_hardware(catalog(), c.system);
    const PlanSpace space = build_plan_space(m, hw, c.workload);
    int divides = 0;
    for_each_plan(space, [&](const TrainingPlan& candidate) {
      TrainingPlan p = candidate;
      if (!keep(p) || !plan_divides(m, p, c.workload) || divides++ % nth != 0) return;
      f(c, m, hw, space, p);
    });
  }
}
const auto every_plan = [](const TrainingPlan&) { return true; };

TEST(MemorySavers, SameLayersAndFiguresAsBisectingWholeEstimates) {
  int checked = 0, offloaded = 0, partial = 0;
  each_case_plan(3, every_plan, [&](const SaverCase& c, const ModelArch& m, const Hardware& hw,
                                    const PlanSpace& space, const TrainingPlan& p) {
    TrainingPlan expected = p, got = p, got_totals = p;
    const TrainingMemory want = bisect_whole_estimates(m, hw, expected, c.workload, space.savers);
    const TrainingMemory mem = fit_memory_savers(m, hw, got, c.workload, {}, space.savers);
    const TrainingMemoryTotals totals = fit_memory_saver_totals(m, hw, got_totals, c.workload, {}, space.savers);
    const std::string where = std::string(c.model) + " " + to_string(p);
    EXPECT_EQ(to_string(got), to_string(expected)) << where;
    EXPECT_EQ(to_string(got_totals), to_string(expected)) << where;
    expect_same_memory(want, mem, where);
    expect_same_totals(want, totals, where);
    ++checked;
    offloaded += expected.offload_layers > 0;
    partial += expected.recompute == Recompute::full && expected.recompute_layers > 0;
  });
  EXPECT_GT(checked, 3000);
  EXPECT_GT(offloaded, 10);  // both savers' bisections were exercised
  EXPECT_GT(partial, 10);
}

TEST(MemorySavers, ModelAgreesWithTrainingMemoryAtEverySetting) {
  // Every recompute_layers / offload_layers setting of plans with several middle pipeline ranks (the
  // ones totals may leave out), on a capacity some settings fit and others do not.
  int checked = 0, fit = 0;
  const auto several_ranks = [](const TrainingPlan& p) { return p.pp >= 3; };
  each_case_plan(7, several_ranks, [&](const SaverCase& c, const ModelArch& m, const Hardware& hw, const PlanSpace&,
                                       const TrainingPlan& p) {
    const MemoryOptions mo = with_capacities({}, hw);
    const TrainingMemoryModel model(m, p, c.workload, mo);
    const int chunk_layers = (m.layers + p.pp * p.vp - 1) / (p.pp * p.vp);
    for (int r : {0, 1, chunk_layers / 2, chunk_layers}) {
      for (int o : {0, 1, chunk_layers / 3, chunk_layers}) {
        TrainingPlan q = p;
        q.recompute_layers = r;
        q.offload_layers = o;
        const TrainingMemory want = training_memory(m, q, c.workload, mo);
        const std::string where = std::string(c.model) + " " + to_string(q);
        expect_same_memory(want, model.memory(r, o), where);
        expect_same_totals(want, model.totals(r, o), where);
        EXPECT_EQ(model.fits(r, o), want.fits) << where;
        EXPECT_EQ(model.fits_hbm(r, o), want.total_bytes <= want.capacity_bytes) << where;
        ++checked;
        fit += want.fits;
      }
    }
  });
  EXPECT_GT(checked, 3000);
  EXPECT_GT(fit, 100);
  EXPECT_LT(fit, checked);
}

TEST(LayerCostCache, EvaluationsAgreeWithAndWithoutTheCache) {
  // One cache across models, hardware and workloads: it starts over for each.
  LayerCostCache cache;
  TrainingOptions cached;
  cached.layer_costs = &cache;
  int checked = 0;
  each_case_plan(2, every_plan, [&](const SaverCase& c, const ModelArch& m, const Hardware& hw,
                                    const PlanSpace& space, TrainingPlan p) {
    fit_memory_savers(m, hw, p, c.workload, {}, space.savers);
    const TrainingResult want = evaluate_training(m, hw, p, c.workload);
    const TrainingResult got = evaluate_training(m, hw, p, c.workload, cached);
    const std::string where = std::string(c.model) + " " + to_string(p);
    ASSERT_EQ(want.valid(), got.valid()) << where;
    EXPECT_EQ(want.step_time_s, got.step_time_s) << where;
    EXPECT_EQ(want.parts.gemm_s, got.parts.gemm_s) << where;
    EXPECT_EQ(want.parts.tp_comm_s, got.parts.tp_comm_s) << where;
    EXPECT_EQ(want.parts.ep_comm_s, got.parts.ep_comm_s) << where;
    EXPECT_EQ(want.parts.cp_comm_s, got.parts.cp_comm_s) << where;
    EXPECT_EQ(want.parts.recompute_s, got.parts.recompute_s) << where;
    EXPECT_EQ(want.mfu_attn, got.mfu_attn) << where;
    EXPECT_EQ(want.memory.total_bytes, got.memory.total_bytes) << where;
    ++checked;
  });
  EXPECT_GT(checked, 3000);
}

// The floor a search bounds with sits under the step of the plan with its memory savers fitted, and
// under the step of the same plan with every other recompute mode and ZeRO stage.
TEST(StepFloor, NeverAboveTheStepOfAnyRecomputeOrZeroStage) {
  int checked = 0;
  each_case_plan(2, every_plan, [&](const SaverCase& c, const ModelArch& m, const Hardware& hw,
                                    const PlanSpace& space, TrainingPlan p) {
    const TrainingResult floor = training_step_floor(m, hw, p, c.workload);
    for (Recompute rc : space.recompute)
      for (int zero : space.zero) {
        TrainingPlan q = p;
        q.recompute = rc;
        q.zero = zero;
        fit_memory_savers(m, hw, q, c.workload, {}, space.savers);
        const TrainingResult step = evaluate_training(m, hw, q, c.workload);
        ASSERT_EQ(floor.valid(), step.valid()) << c.model << " " << to_string(q);
        if (step.valid()) {
          EXPECT_LE(floor.step_time_s, step.step_time_s) << c.model << " " << to_string(q);
        }
        ++checked;
      }
  });
  EXPECT_GT(checked, 3000);
}

TEST(Scaling, WeakScalingKeepsTotalThroughputGrowing) {
  const ModelArch m = resolve_model("llama3.1-8b");
  const Hardware hw = resolve_hardware(catalog(), "hgx-h100");
  ScalingOptions o;
  o.mode = ScalingMode::weak;
  o.gpus = {8, 16, 32, 64, 128};
  o.batch_per_gpu = 2;
  o.seq_len = 4096;
  std::size_t calls = 0;
  const auto pts = scaling_sweep(m, hw, o, [&](std::size_t done, std::size_t total) {
    ++calls;
    EXPECT_EQ(total, 5u);
    EXPECT_EQ(done, calls);
  });
  ASSERT_EQ(pts.size(), 5u);
  EXPECT_EQ(calls, 5u);
  for (std::size_t i = 0; i < pts.size(); ++i) {
    ASSERT_TRUE(pts[i].found) << pts[i].gpus << ": " << pts[i].reason;
    EXPECT_EQ(pts[i].global_batch, 2LL * pts[i].gpus);
    EXPECT_GT(pts[i].result.mfu_6n, 0.0);
    EXPECT_LT(pts[i].result.mfu_6n, 1.0);
    // Doubling GPUs and batch: total throughput grows by more than half of the ideal 2x.
    if (i > 0) {
      EXPECT_GT(pts[i].result.tokens_per_s, 1.5 * pts[i - 1].result.tokens_per_s) << pts[i].gpus;
    }
  }
}

TEST(Scaling, StrongScalingPerGpuThroughputDoesNotRise) {
  const ModelArch m = resolve_model("llama3.1-70b");
  const Hardware hw = resolve_hardware(catalog(), "hgx-h100");
  ScalingOptions o;
  o.mode = ScalingMode::strong;
  o.gpus = {64, 128, 256, 512};
  o.global_batch = 512;
  o.seq_len = 4096;
  o.fixed_plan = parse_training_plan("tp=8,pp=4,mbs=1,recompute=selective");
  const auto pts = scaling_sweep(m, hw, o);
  ASSERT_EQ(pts.size(), 4u);
  for (std::size_t i = 0; i < pts.size(); ++i) {
    ASSERT_TRUE(pts[i].found) << pts[i].gpus << ": " << pts[i].reason;
    EXPECT_EQ(pts[i].global_batch, 512);
    EXPECT_EQ(pts[i].plan.dp, pts[i].gpus / 32);
    if (i > 0) {
      EXPECT_LE(pts[i].result.tokens_per_s_per_gpu, pts[i - 1].result.tokens_per_s_per_gpu * 1.001);
    }
  }
}

TEST(Scaling, FixedPlanThatDoesNotDivideSaysWhy) {
  const ModelArch m = resolve_model("llama3.1-70b");
  const Hardware hw = resolve_hardware(catalog(), "hgx-h100");
  ScalingOptions o;
  o.gpus = {24};
  o.global_batch = 512;
  o.fixed_plan = parse_training_plan("tp=8,pp=4");
  const auto pts = scaling_sweep(m, hw, o);
  ASSERT_EQ(pts.size(), 1u);
  EXPECT_FALSE(pts[0].found);
  EXPECT_EQ(pts[0].reason.rfind("divisibility", 0), 0u) << pts[0].reason;
}

}  // namespace
}  // namespace gpuplan

namespace gpuplan {
namespace {

// The case: 405B on 2,304 H100 with the model's default batch. Every plan chosen must fit the
// node's host DRAM (2 TB per 8 GPUs) as well as HBM.
TEST(SearchHost, ChosenPlansFitHostMemory) {
  const ModelArch m = resolve_model("llama3.1-405b");
  const Hardware hw = resolve_hardware(catalog(), "hgx-h100");
  ASSERT_NEAR(hw.host.memory_bytes_per_gpu, 250e9, 1e9);
  const TrainingWorkload w = workload(2304, 2048, 8192);
  SearchOptions o;
  o.top_k = 10;
  const SearchResult r = search_plans(m, hw, w, o);
  ASSERT_FALSE(r.top.empty());
  for (const SearchCandidate& c : r.top) {
    EXPECT_TRUE(c.result.memory.fits_host) << to_string(c.plan);
    EXPECT_LE(c.result.memory.host_bytes_per_gpu, hw.host.memory_bytes_per_gpu) << to_string(c.plan);
  }
}

// Property: more host DRAM never makes a plan infeasible (memory fits stays true as it grows).
TEST(SearchHost, MoreHostMemoryNeverMakesAPlanInfeasible) {
  const ModelArch m = resolve_model("llama3-70b");
  TrainingWorkload w = workload(64, 64, 8192);
  TrainingPlan p = parse_training_plan("tp=1,pp=1,mbs=1,zero=3,offload_layers=80");
  p.dp = 0;
  bool was_fit = false;
  for (double host_gb : {10.0, 50.0, 100.0, 200.0, 400.0, 1000.0, 4000.0}) {
    MemoryOptions mo;
    mo.capacity_bytes = 1e15;  // HBM never binds here
    mo.host_capacity_bytes = host_gb * 1e9;
    const TrainingMemory mem = training_memory(m, p, w, mo);
    if (was_fit) {
      EXPECT_TRUE(mem.fits) << host_gb;
    }
    was_fit = was_fit || mem.fits;
    EXPECT_EQ(mem.host_capacity_bytes_per_gpu, host_gb * 1e9);
  }
  EXPECT_TRUE(was_fit);
}

TEST(SearchHost, OverHostCapacityIsAViolationTheFilterDrops) {
  const ModelArch m = resolve_model("llama3-70b");
  const Hardware hw = resolve_hardware(catalog(), "hgx-h100");
  const TrainingWorkload w = workload(64, 64, 8192);
  TrainingPlan p = parse_training_plan("tp=1,pp=1,mbs=1,zero=3,offload_layers=80");
  p.dp = 0;
  MemoryOptions mo;
  mo.capacity_bytes = 1e15;
  mo.host_capacity_bytes = 1e9;
  TrainingMemory mem = training_memory(m, p, w, mo);
  EXPECT_FALSE(mem.fits);
  EXPECT_FALSE(mem.fits_host);
  ASSERT_FALSE(mem.violations.empty());
  EXPECT_EQ(mem.violations.back().code, "memory.exceeds_host_capacity");
  EXPECT_EQ(filter_plan(m, hw, p, w, mo, mem), DropReason::memory);
}

// Offload runs at the GPU's share of the node's host bandwidth: a node whose DRAM bandwidth is below
// its GPUs' links together offloads slower than the links alone.
TEST(SearchHost, OffloadSharesTheNodesHostBandwidth) {
  const ModelArch m = resolve_model("llama3-70b");
  Hardware hw = resolve_hardware(catalog(), "hgx-h100");
  const TrainingWorkload w = workload(64, 64, 8192);
  TrainingPlan p = parse_training_plan("tp=8,pp=1,mbs=1,offload_layers=80");
  p.dp = 0;
  TrainingOptions to;
  to.with_memory = false;
  const double wide = evaluate_training(m, hw, p, w, to).parts.offload_s;
  hw.host.bandwidth_bytes_per_s_per_gpu /= 8;
  const double narrow = evaluate_training(m, hw, p, w, to).parts.offload_s;
  EXPECT_GT(narrow, wide);
}

// TP stays inside the NVLink domain: the search never spreads it over the scale-out network.
TEST(SearchHost, TensorParallelStaysInsideTheNvlinkDomain) {
  const ModelArch m = resolve_model("llama3.1-405b");
  const Hardware hw = resolve_hardware(catalog(), "hgx-b200");
  const PlanSpace s = build_plan_space(m, hw, workload(16384, 2048, 8192));
  for (int tp : s.tp) EXPECT_LE(tp, hw.fabric.domain_gpus);
}

// An a2a plan's memory-saver fit is taken from its ring twin: the same as fitting it afresh.
TEST(Search, AnA2aPlansFitIsItsOwn) {
  const ModelArch m = resolve_model("llama3.1-70b");
  const Hardware hw = resolve_hardware(catalog(), "gb200-nvl72");
  TrainingWorkload w;
  w.num_gpus = 288;
  w.seq_len = 65536;
  w.global_batch = 72;
  SearchOptions o;
  o.top_k = 2000;
  const SearchResult r = search_plans(m, hw, w, o);
  const MemoryOptions mo = with_capacities({}, hw);
  int checked = 0;
  for (const SearchCandidate& c : r.top) {
    if (c.plan.cp_kind != CpKind::a2a || c.plan.cp < 2) continue;
    TrainingPlan fresh = c.plan;
    fresh.recompute_layers = fresh.offload_layers = 0;
    fresh.dp = 0;
    const TrainingMemoryTotals t = fit_memory_saver_totals(m, hw, fresh, w, mo, MemorySavers{});
    EXPECT_TRUE(t.fits) << to_string(c.plan);
    EXPECT_EQ(fresh.recompute_layers, c.plan.recompute_layers) << to_string(c.plan);
    EXPECT_EQ(fresh.offload_layers, c.plan.offload_layers) << to_string(c.plan);
    EXPECT_EQ(t.total_bytes, c.result.memory.total_bytes) << to_string(c.plan);
    ++checked;
  }
  EXPECT_GT(checked, 20);
}

// Branch and bound changes what is examined, never what is found: the same top, plan for plan and
// figure for figure, as the exhaustive search (dense and MoE models, with and without a host link,
// long sequences with both context-parallel exchanges, LoRA).
// A search question of the tests below: a model on a system, its job, and (fine-tuning) LoRA.
struct SearchCase {
  const char* model;
  const char* system;
  int gpus, seq;
  long long batch;
  bool lora = false;
};

TEST(Search, PrunedSearchKeepsTheSameTop) {
  const SearchCase cases[] = {{"llama3.1-70b", "hgx-h100", 64, 4096, 128, false},
                        {"llama3.1-70b", "gb200-nvl72", 288, 65536, 72, false},
                        {"deepseek-v3", "hgx-h800", 256, 4096, 1024, false},
                        {"mixtral-8x7b", "mi300x-platform", 32, 8192, 256, false},
                        {"llama3.1-405b", "hgx-a100", 128, 8192, 256, false},
                        {"llama3.1-8b", "hgx-h100", 8, 4096, 64, true}};
  for (const SearchCase& c : cases) {
    const ModelArch m = resolve_model(c.model);
    const Hardware hw = resolve_hardware(catalog(), c.system);
    TrainingWorkload w = workload(c.gpus, c.batch, c.seq);
    if (c.lora) w.finetune.method = FinetuneMethod::lora;
    for (std::size_t k : {std::size_t{1}, std::size_t{5}}) {
      SearchOptions o;
      o.top_k = k;
      const SearchResult all = search_plans(m, hw, w, o);
      o.prune = true;
      const SearchResult pruned = search_plans(m, hw, w, o);
      ASSERT_EQ(all.top.size(), pruned.top.size()) << c.model << " " << c.system;
      EXPECT_LE(pruned.stats.evaluated, all.stats.evaluated);
      for (std::size_t i = 0; i < all.top.size(); ++i) {
        EXPECT_EQ(to_string(all.top[i].plan), to_string(pruned.top[i].plan)) << c.model << " " << c.system;
        EXPECT_EQ(all.top[i].score, pruned.top[i].score);
        EXPECT_EQ(all.top[i].result.step_time_s, pruned.top[i].result.step_time_s);
        EXPECT_EQ(all.top[i].result.memory.total_bytes, pruned.top[i].result.memory.total_bytes);
      }
      EXPECT_EQ(all.has_closest, pruned.has_closest);
    }
  }
}

// A least score keeps out what falls below it and nothing else: the top is the exhaustive top's plans
// that reach it, pruned or not, and empty when even the best falls short.
TEST(Search, LeastScoreKeepsTheTopPlansThatReachIt) {
  const SearchCase cases[] = {{"llama3.1-70b", "hgx-h100", 64, 4096, 128},
                              {"deepseek-v3", "hgx-h800", 256, 4096, 1024}};
  for (const SearchCase& c : cases) {
    const ModelArch m = resolve_model(c.model);
    const Hardware hw = resolve_hardware(catalog(), c.system);
    const TrainingWorkload w = workload(c.gpus, c.batch, c.seq);
    SearchOptions o;
    o.top_k = 5;
    const SearchResult all = search_plans(m, hw, w, o);
    ASSERT_EQ(all.top.size(), 5u) << c.model;
    for (bool prune : {false, true}) {
      o.prune = prune;
      o.least_score = all.top[2].score;
      const SearchResult some = search_plans(m, hw, w, o);
      std::vector<std::string> want, got;
      for (const SearchCandidate& x : all.top)
        if (x.score >= o.least_score) want.push_back(to_string(x.plan));
      for (const SearchCandidate& x : some.top) got.push_back(to_string(x.plan));
      EXPECT_EQ(want, got) << c.model << " prune " << prune;
      o.least_score = std::nextafter(all.top[0].score, std::numeric_limits<double>::infinity());
      EXPECT_TRUE(search_plans(m, hw, w, o).top.empty()) << c.model << " prune " << prune;
    }
  }
}

TEST(FitsFrom, TheFirstDoublingWhoseSearchFindsAPlan) {
  std::vector<int> asked;
  auto fits_from = [&asked](int fits_at) {
    return [&asked, fits_at](int gpus) {
      asked.push_back(gpus);
      SearchResult r;
      if (gpus >= fits_at) r.top.push_back(SearchCandidate{parse_training_plan("tp=2,pp=4"), {}, 1.0});
      return r;
    };
  };
  FitsFrom f = fits_from_doubling(64, 1 << 17, fits_from(300));
  EXPECT_EQ(f.gpus, 512);
  EXPECT_EQ(f.plan.pp, 4);
  EXPECT_EQ(asked, (std::vector<int>{128, 256, 512}));
  asked.clear();
  f = fits_from_doubling(64, 1024, fits_from(5000));  // none up to the limit
  EXPECT_EQ(f.gpus, 0);
  EXPECT_EQ(asked, (std::vector<int>{128, 256, 512, 1024}));
  asked.clear();
  EXPECT_EQ(fits_from_doubling(0, 1024, fits_from(1)).gpus, 0);
  EXPECT_TRUE(asked.empty());
}

TEST(FitsFrom, HalvingStopsAtTheFirstCountThatFitsAndAtOddOrMinimumCounts) {
  std::vector<int> asked;
  auto fits_below = [&asked](int most) {
    return [&asked, most](int gpus) {
      asked.push_back(gpus);
      SearchResult r;
      if (gpus <= most) r.top.push_back(SearchCandidate{parse_training_plan("tp=2"), {}, 1.0});
      return r;
    };
  };
  EXPECT_EQ(fits_from_halving(16384, 8, fits_below(3000)).gpus, 2048);
  EXPECT_EQ(asked, (std::vector<int>{8192, 4096, 2048}));
  asked.clear();
  EXPECT_EQ(fits_from_halving(64, 8, fits_below(1)).gpus, 0);  // not below the minimum
  EXPECT_EQ(asked, (std::vector<int>{32, 16, 8}));
  asked.clear();
  EXPECT_EQ(fits_from_halving(24, 1, fits_below(1)).gpus, 0);  // 24, 12, 6, 3: an odd count is not halved
  EXPECT_EQ(asked, (std::vector<int>{12, 6, 3}));
}

TEST(FitsFrom, ARealSearchFitsAtTheCountItNames) {
  // Llama 3.1 405B does not fit 8 H100 at 8K; the count named fits and half of it does not.
  const ModelArch m = resolve_model("llama3.1-405b");
  const Hardware hw = resolve_hardware(catalog(), "hgx-h100");
  TrainingWorkload w;
  w.num_gpus = 8;
  w.seq_len = 8192;
  w.global_batch = 64;
  auto search = [&](int gpus) {
    TrainingWorkload at = w;
    at.num_gpus = gpus;
    return search_plans(m, hw, at);
  };
  ASSERT_TRUE(search(8).top.empty());
  const FitsFrom f = fits_from_doubling(8, 1 << 17, search);
  ASSERT_GT(f.gpus, 8);
  EXPECT_FALSE(search(f.gpus).top.empty());
  EXPECT_TRUE(search(f.gpus / 2).top.empty());
  EXPECT_TRUE(search(f.gpus).top.front().result.memory.fits);
}

}  // namespace
}  // namespace gpuplan
