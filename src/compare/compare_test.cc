#include <gtest/gtest.h>

#include <cmath>

#include "catalog/catalog.h"
#include "compare/claims.h"
#include "compare/compare.h"
#include "compare/recommend.h"
#include "core/error.h"
#include "model/model_registry.h"

namespace gpuplan::compare {
namespace {

const Catalog& cat() {
  static const Catalog c = Catalog::builtin();
  return c;
}
SystemSide side(const std::string& s) { return make_side(cat(), s, cost::builtin_cost_profile()); }

const Yardstick& find(const Comparison& c, const std::string& key) {
  for (const auto& y : c.yardsticks)
    if (y.key == key) return y;
  throw std::runtime_error("no yardstick " + key);
}

TEST(Compare, PeakYardsticksAreTheDatasheet) {
  CompareSpec spec;
  spec.train = spec.infer = false;
  const Comparison c = compare_systems(side("gb300-nvl72"), side("hgx-h200"), {}, spec);
  const Yardstick& fp8 = find(c, "peak_fp8");
  EXPECT_NEAR(fp8.a, 5000, 1);
  EXPECT_NEAR(fp8.b, 1979, 1);
  // H200 has no FP4: the FP4 ratio is undefined, and the mixed yardstick takes FP4 against FP8.
  EXPECT_TRUE(std::isnan(find(c, "peak_fp4").ratio(Per::gpu, c.a, c.b)));
  const Yardstick& mixed = find(c, "peak_best_format");
  EXPECT_NEAR(mixed.ratio(Per::gpu, c.a, c.b), 15000.0 / 1979, 0.01);
  EXPECT_FALSE(mixed.headline.empty());
  // Per system: one 72-GPU rack against one 8-GPU node.
  EXPECT_NEAR(fp8.ratio(Per::system, c.a, c.b), fp8.ratio(Per::gpu, c.a, c.b) * 9, 1e-9);
  // Per $ and per W divide by each side's TCO per GPU-hour and power per GPU.
  EXPECT_NEAR(fp8.ratio(Per::usd, c.a, c.b),
              fp8.ratio(Per::gpu, c.a, c.b) / (c.a.tco.usd_per_gpu_hour() / c.b.tco.usd_per_gpu_hour()), 1e-9);
  EXPECT_NEAR(fp8.ratio(Per::watt, c.a, c.b),
              fp8.ratio(Per::gpu, c.a, c.b) / (c.a.tco.it_w_full_per_gpu() / c.b.tco.it_w_full_per_gpu()), 1e-9);
  // Not scalable: the NVLink domain is shown as it is.
  const Yardstick& dom = find(c, "scaleup_domain");
  EXPECT_EQ(dom.value(Per::system, c.a, true), 72);
}

TEST(Compare, TrainingAndServingOnADenseModel) {
  CompareSpec spec;
  spec.train_gpus = 72;
  spec.isl = 1024;
  spec.osl = 1024;
  const ModelArch m = resolve_model("llama3.1-8b");
  const Comparison c = compare_systems(side("gb200-nvl72"), side("hgx-h100"), {m}, spec);
  ASSERT_EQ(c.models.size(), 1u);
  const ModelComparison& mc = c.models[0];
  ASSERT_TRUE(mc.train_a.found);
  ASSERT_TRUE(mc.train_b.found);
  EXPECT_EQ(mc.train_a.workload.num_gpus, 72);
  EXPECT_EQ(mc.train_a.workload.global_batch, mc.train_b.workload.global_batch);  // the same job
  // Blackwell trains faster per GPU than Hopper, by less than its peak ratio.
  const double r = mc.train_a.result.tokens_per_s_per_gpu / mc.train_b.result.tokens_per_s_per_gpu;
  EXPECT_GT(r, 1.2);
  EXPECT_LT(r, 5000.0 / 1979 * 1.05);
  // The curve rows are the chooser's answers (the load solved for, not read off the sweep's grid): at the
  // stated interactivity the figure compare quotes, elsewhere never below what the frontier gives there,
  // and a row only where the chooser meets it.
  ASSERT_FALSE(mc.curve_a.frontier.empty());
  ASSERT_FALSE(mc.curve_b.frontier.empty());
  ASSERT_TRUE(mc.at_a.has_value());
  for (const auto& row : mc.curve) {
    const SweepPoint* p = at_interactivity(mc.curve_a, row.tokens_per_s_per_user);
    if (row.tokens_per_s_per_user == spec.tokens_per_s_per_user) {
      EXPECT_DOUBLE_EQ(row.a, mc.at_a->result.tokens_per_s_per_gpu);
      EXPECT_EQ(row.gpus_a, mc.at_gpus_a);
    }
    if (p) {
      EXPECT_GE(row.a, p->result.tokens_per_s_per_gpu * (1 - 1e-9)) << row.tokens_per_s_per_user;
    }
    if (std::isfinite(row.a)) {
      EXPECT_GE(row.ttft_a, 0);
      EXPECT_GT(row.gpus_a, 0);
      EXPECT_FALSE(row.kind_a.empty());
    }
  }
  // Throughput per GPU never rises as interactivity is asked to rise.
  for (std::size_t i = 1; i < mc.curve.size(); ++i)
    if (std::isfinite(mc.curve[i].b)) {
      EXPECT_LE(mc.curve[i].b, mc.curve[i - 1].b + 1e-9);
    }
  // Best-format serving on Blackwell (FP4) is never slower than FP8.
  const double fp8 = at_interactivity(mc.curve_a, 20)->result.tokens_per_s_per_gpu;
  const double fp4 = at_interactivity(mc.best_curve_a, 20)->result.tokens_per_s_per_gpu;
  EXPECT_EQ(mc.best_precision_a, Precision::nvfp4);
  EXPECT_GE(fp4, fp8 * 0.999);
}

TEST(Claims, BuiltinClaimsParseAndReplay) {
  const auto& claims = builtin_claims();
  ASSERT_GE(claims.size(), 5u);
  const Claim* h200 = nullptr;
  for (const auto& k : claims) {
    EXPECT_FALSE(k.source.empty()) << k.id;
    EXPECT_GT(k.claimed_ratio, 1) << k.id;
    if (k.id == "h200-1.9x-llama70b") h200 = &k;
  }
  ASSERT_NE(h200, nullptr);
  const ClaimResult r = evaluate_claim(*h200, resolve_model(h200->model), side(h200->system_a), side(h200->system_b));
  ASSERT_TRUE(r.evaluated) << r.why_not;
  // H200 and H100 share the compute die: the gain comes from memory (capacity for batch, bandwidth), and with
  // 2,048-token prompts prefill's compute bounds it; more memory never makes it slower.
  EXPECT_GT(r.ratio, 1.05);
  EXPECT_LT(r.ratio, 2.5);
  EXPECT_GT(r.ratio_per_watt, 0);
}

// A side whose figure is more than 2x from the vendor's stated absolute one is flagged; within 2x
// it is not; without a stated figure there is nothing to flag. The builtin B200 claim states both
// sides (58 against 3.5 tokens/s per GPU) and the replay carries them.
TEST(Claims, SidesOffByMoreThan2xAreFlagged) {
  EXPECT_TRUE(off_by_more_than_2x(7.1, 3.5));
  EXPECT_TRUE(off_by_more_than_2x(1.7, 3.5));
  EXPECT_FALSE(off_by_more_than_2x(6.9, 3.5));
  EXPECT_FALSE(off_by_more_than_2x(1.8, 3.5));
  EXPECT_FALSE(off_by_more_than_2x(100, 0));
  EXPECT_TRUE(off_by_more_than_2x(0, 3.5));  // stated, but the side could not serve it
  const Claim* b200 = nullptr;
  for (const auto& k : builtin_claims())
    if (k.id == "b200-15x-realtime") b200 = &k;
  ASSERT_NE(b200, nullptr);
  EXPECT_DOUBLE_EQ(b200->stated_a, 58);
  EXPECT_DOUBLE_EQ(b200->stated_b, 3.5);
  const ClaimResult r = evaluate_claim(*b200, resolve_model(b200->model), side(b200->system_a), side(b200->system_b));
  ASSERT_TRUE(r.evaluated) << r.why_not;
  EXPECT_EQ(r.off_a, off_by_more_than_2x(r.a, 58));
  EXPECT_EQ(r.off_b, off_by_more_than_2x(r.b, 3.5));
  const Claim parsed = parse_claims("claims:\n  - {id: x, system_a: a, system_b: b, claimed_ratio: 2, statement: s, "
                                    "source: s, model: m, metric: max_throughput, precision_a: fp8, precision_b: fp8, "
                                    "stated_a: 12.5}\n",
                                    "c.yaml")
                           .front();
  EXPECT_DOUBLE_EQ(parsed.stated_a, 12.5);
  EXPECT_DOUBLE_EQ(parsed.stated_b, 0);
}

TEST(Claims, BadClaimFilesNameTheField) {
  EXPECT_THROW(parse_claims("claims:\n  - {id: x}\n", "c.yaml"), InputError);
  try {
    parse_claims("claims:\n  - {id: x, system_a: a, system_b: b, claimed_ratio: 2, statement: s, source: s, model: m, "
                 "metric: speed, precision_a: fp8, precision_b: fp8}\n",
                 "c.yaml");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("metric"), std::string::npos) << e.what();
  }
}

// A demand of few users is served on the fewest whole units: DeepSeek-R1's most efficient deployment
// per GPU on H200 nodes spans 5 nodes, but one node serves 64 users at 50 tokens/s each; many users buy
// copies of the efficient one. Either way the users' tokens/s are their share of the deployment's.
TEST(Recommend, FewUsersOnTheFewestUnitsManyOnTheMostEfficient) {
  RecommendSpec spec;
  spec.task = Task::infer;
  spec.systems = {"hgx-h200"};
  spec.users = 64;
  const ModelArch m = resolve_model("deepseek-r1");
  const RecommendResult few = recommend(cat(), m, spec, cost::builtin_cost_profile());
  ASSERT_EQ(few.ranked.size(), 1u);
  ASSERT_TRUE(few.ranked[0].feasible) << few.ranked[0].why_not;
  EXPECT_EQ(few.ranked[0].units, 1);
  EXPECT_LE(few.ranked[0].tokens_per_s, 64 * few.ranked[0].tokens_per_s_per_user * (1 + 1e-12));  // equal up to rounding
  spec.users = 5000;
  const RecommendResult many = recommend(cat(), m, spec, cost::builtin_cost_profile());
  ASSERT_TRUE(many.ranked[0].feasible) << many.ranked[0].why_not;
  // Fewer GPUs per user than copies of the one-node deployment would take.
  EXPECT_LT(double(many.ranked[0].gpus) / 5000, double(few.ranked[0].gpus) / 64);
}

TEST(Recommend, SmallModelServingDoesNotGetARack) {
  RecommendSpec spec;
  spec.task = Task::infer;
  spec.users = 32;
  spec.isl = 1024;
  spec.osl = 256;
  const RecommendResult r = recommend(cat(), resolve_model("llama3.1-8b"), spec, cost::builtin_cost_profile());
  ASSERT_FALSE(r.ranked.empty());
  const Recommendation& best = r.ranked[0];
  EXPECT_TRUE(best.feasible);
  EXPECT_TRUE(best.priced);
  EXPECT_LT(best.gpus_per_unit, 72) << best.name;
  EXPECT_FALSE(best.reasons.empty());
  // The racks, if feasible, say how little of the rack the job uses.
  for (const auto& x : r.ranked)
    if (x.name == "gb200-nvl72" && x.feasible) {
      bool said = false;
      for (const auto& why : x.reasons) said |= why.find("smallest purchase") != std::string::npos;
      EXPECT_TRUE(said);
    }
}

TEST(Recommend, A405BTrainingRunDoesNotGetL4s) {
  RecommendSpec spec;
  spec.task = Task::train;
  spec.tokens = 15e12;
  spec.deadline_days = 120;
  spec.systems = {"l4", "hgx-h100", "gb200-nvl72"};
  const RecommendResult r = recommend(cat(), resolve_model("llama3.1-405b"), spec, cost::builtin_cost_profile());
  ASSERT_EQ(r.ranked.size(), 3u);
  EXPECT_NE(r.ranked[0].name, "l4");
  EXPECT_TRUE(r.ranked[0].feasible);
  for (const auto& x : r.ranked)
    if (x.name == "l4") {
      EXPECT_FALSE(x.feasible);
      EXPECT_FALSE(x.why_not.empty());
    }
  // It finishes within the deadline on the GPUs it names.
  EXPECT_LE(r.ranked[0].wall_s, 120 * 86400.0);
  EXPECT_GE(r.ranked[0].gpus, 1024);
}


TEST(Compare, LongContextYardsticksServeAndTrainAt128K) {
  CompareSpec spec;
  spec.train_gpus = 64;
  spec.long_context_tokens = 131072;
  spec.curve_grid = {50};
  const ModelArch m = resolve_model("llama3.1-70b");
  const Comparison c = compare_systems(side("hgx-h200"), side("hgx-b200"), {m}, spec);
  ASSERT_EQ(c.models.size(), 1u);
  const ModelComparison& mc = c.models[0];
  for (const LongContextSide* s : {&mc.long_context_a, &mc.long_context_b}) {
    ASSERT_TRUE(s->serving.met) << s->serving.why_not;
    const InferenceResult& r = s->serving.point.result;
    // Each user reserves its whole 131,072 + 1,024 tokens: 80 layers x 8 KV heads x 128 x (K, V), FP8, over
    // the deployment's tensor-parallel GPUs.
    EXPECT_NEAR(r.memory.kv_bytes_per_sequence * s->serving.point.parallel.tp, 80.0 * 8 * 128 * 2 * 132096, 0.05e9);
    EXPECT_GE(r.tokens_per_s_per_user, 50 * 0.999);
    EXPECT_LE(r.ttft_s, mc.long_context_ttft_limit_s);
    // Training at 128K: a plan that fits splits the sequence (context parallelism).
    ASSERT_TRUE(s->training.found) << s->training.why_not;
    EXPECT_GT(s->training.plan.cp, 1);
    EXPECT_EQ(s->training.workload.seq_len, 131072);
  }
  EXPECT_NEAR(mc.long_context_ttft_limit_s, resolve_ttft_limit_s(-1, 131072), 1e-9);
  const Yardstick& kv = find(c, "long_context_kv_per_user:llama3.1-70b");
  EXPECT_FALSE(kv.higher_is_better);
  EXPECT_NEAR(kv.a, mc.long_context_a.serving.point.result.memory.kv_bytes_per_sequence / 1e9, 1e-9);
  const Yardstick& held = find(c, "long_context_users_held:llama3.1-70b");
  EXPECT_NEAR(held.b, double(mc.long_context_b.serving.point.result.max_concurrency) / mc.long_context_b.serving.gpus,
              1e-9);
  EXPECT_GT(find(c, "long_context_infer:llama3.1-70b").a, 0);
  EXPECT_GT(find(c, "long_context_train:llama3.1-70b").b, 0);
  // B200's larger memory holds more 128K users per GPU than H200's.
  EXPECT_GT(held.b, held.a);
  // Without the option: no long-context rows.
  spec.long_context_tokens = 0;
  spec.train = false;
  const Comparison none = compare_systems(side("hgx-h200"), side("hgx-b200"), {m}, spec);
  for (const auto& y : none.yardsticks) EXPECT_NE(y.group, "long context") << y.key;
}

TEST(Compare, PrefixHitsReachEveryServingFigure) {
  CompareSpec spec;
  spec.train = false;
  spec.isl = 8192;
  spec.curve_grid = {50};
  const ModelArch m = resolve_model("llama3.1-8b");
  const Comparison plain = compare_systems(side("hgx-h200"), side("hgx-b200"), {m}, spec);
  spec.prefix_hit = 0.5;
  const Comparison hits = compare_systems(side("hgx-h200"), side("hgx-b200"), {m}, spec);
  ASSERT_TRUE(plain.models[0].at_a && hits.models[0].at_a);
  // Half of each prompt found in the cache: less prefill work, so more throughput at the same speed per user.
  EXPECT_GT(hits.models[0].at_a->result.tokens_per_s_per_gpu, plain.models[0].at_a->result.tokens_per_s_per_gpu);
}

TEST(Recommend, OneOffJobRankedByItsCost) {
  RecommendSpec spec;
  spec.task = Task::finetune;
  spec.systems = {"hgx-h100", "hgx-h200", "gb200-nvl72"};
  RecommendResult own = recommend(cat(), resolve_model("llama3.1-8b"), spec, cost::builtin_cost_profile());
  EXPECT_EQ(rank_basis(own.spec), "job_usd_owned");
  double last = 0;
  for (const auto& r : own.ranked) {
    if (!r.feasible || rank_figure(own.spec, r) <= 0) continue;
    EXPECT_NEAR(rank_figure(own.spec, r), r.usd, 1e-9);  // the run's share of owning the units bought
    EXPECT_GE(r.usd, last) << r.name;
    last = r.usd;
  }
  // The fine-tuning default batch says what it is and where it comes from.
  EXPECT_NE(own.spec.global_batch_basis.find("2^20"), std::string::npos) << own.spec.global_batch_basis;
  EXPECT_EQ(own.spec.global_batch, 256);  // 1,048,576 / 4,096-token sequences
  // Rented: the GPUs used for the wall time at the rental price; a system without one is unpriced.
  spec.rank_by_rent = true;
  spec.rent_usd_per_gpu_hour = {{"hgx-h100", 2.0}, {"hgx-h200", 100.0}};
  const RecommendResult rent = recommend(cat(), resolve_model("llama3.1-8b"), spec, cost::builtin_cost_profile());
  EXPECT_EQ(rank_basis(rent.spec), "job_usd_rented");
  ASSERT_TRUE(rent.ranked[0].feasible);
  EXPECT_EQ(rent.ranked[0].name, "hgx-h100");
  EXPECT_NEAR(rent.ranked[0].rent_usd, rent.ranked[0].gpus * rent.ranked[0].wall_s / 3600.0 * 2.0, 1e-6);
  EXPECT_EQ(rent.ranked[1].name, "hgx-h200");
  for (const auto& r : rent.ranked)
    if (r.name == "gb200-nvl72") {
      EXPECT_EQ(rank_figure(rent.spec, r), 0.0);
    }
}

}  // namespace
}  // namespace gpuplan::compare
