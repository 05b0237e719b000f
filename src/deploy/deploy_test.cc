#include <gtest/gtest.h>

#include <cmath>

#include "core/error.h"
#include "deploy/failures.h"
#include "deploy/goodput.h"
#include "deploy/site.h"

namespace gpuplan::deploy {
namespace {

TEST(Interval, YoungGolden) {
  // delta = 60 s, M = 3600 s: sqrt(2 * 60 * 3600) = sqrt(432000) = 657.27 s.
  EXPECT_NEAR(young_interval_s(60, 3600), 657.267, 1e-3);
  // Daly: 657.267 * (1 + sqrt(60/7200)/3 + 60/64800) - 60 = 657.267 * 1.031354 - 60 = 617.88 s.
  EXPECT_NEAR(daly_interval_s(60, 3600), 617.88, 0.05);
  EXPECT_DOUBLE_EQ(daly_interval_s(8000, 3600), 3600);  // delta >= 2M: checkpoint every M
}

TEST(Interval, GoodputGolden) {
  // tau 600, delta 60, R 600, M 36000: 600 / (36600 x (e^(660/36000) - 1)) = 600 / 677.18859 = 0.886016;
  // to first order 600/660 x (1 - (600 + 330)/36000) = 0.885606.
  EXPECT_NEAR(goodput_fraction(600, 60, 600, 36000), 0.886016, 1e-6);
  EXPECT_NEAR(goodput_fraction(600, 60, 600, 36000), 0.885606, 1e-3);
  // Restart longer than the MTBF: the job waits, but makes progress: M / (M + R) bounds it.
  // tau 300, delta 10, R 7200, M 3600: 300 / (10800 x (e^(310/3600) - 1)) = 300 / 971.22 = 0.308891.
  EXPECT_NEAR(goodput_fraction(300, 10, 7200, 3600), 0.308891, 1e-6);
  EXPECT_LT(goodput_fraction(300, 10, 7200, 3600), 3600.0 / 10800);
  // Free checkpoints: only the restarts are lost.
  EXPECT_DOUBLE_EQ(goodput_fraction(0, 0, 600, 3000), 3000.0 / 3600);
}

TEST(Interval, TimeSharesAddUp) {
  for (double r : {0.0, 600.0, 20000.0}) {
    const TimeShares t = time_shares(900, 30, r, 10000);
    EXPECT_NEAR(t.useful + t.checkpoint + t.down + t.rework, 1.0, 1e-12) << r;
    EXPECT_NEAR(t.down, r / (10000 + r), 1e-12);
    EXPECT_NEAR(t.checkpoint, t.useful * 30 / 900, 1e-12);
    EXPECT_GT(t.rework, 0);
  }
}

TEST(Interval, DalyIsBestWithAndWithoutSpares) {
  // The best interval does not depend on the restart time: Daly's estimate is within 0.1% of the
  // best goodput on a fine grid for a short restart and for a repair wait longer than the MTBF.
  const double d = 60, m = 11135;
  for (double r : {600.0, 13814.0}) {
    const double at_daly = goodput_fraction(daly_interval_s(d, m), d, r, m);
    double best = 0;
    for (double tau = 10; tau < 20000; tau += 1) best = std::max(best, goodput_fraction(tau, d, r, m));
    EXPECT_GT(at_daly, best * 0.999) << r;
  }
}

TEST(Failures, BuiltinMatchesLlama3) {
  const FailureModel& f = builtin_failure_model();
  // All classes but the NVL72-only one: 419 interruptions on 16,384 GPUs in 54 days.
  const double per_gpu_h = f.reference_rate_per_gpu_hour();
  EXPECT_NEAR(per_gpu_h, 419.0 / (16384.0 * 54 * 24), 1e-12);
  // A 16,384-GPU HGX job: 419 / 1296 h = one interruption every 3.09 h (the paper: "every three hours").
  JobShape s{16384, 8, 8, 8, 8};
  GoodputInputs in;
  in.shape = s;
  in.params = 405e9;
  auto r = evaluate_goodput(f, in);
  EXPECT_NEAR(r.failures_per_hour, 419.0 / 1296.0, 1e-9);
  EXPECT_NEAR(r.mtbf_s / 3600, 3.093, 1e-3);
  // 405e9 params * 14 B over 16,384 x 122.07 MB/s = 2 TB/s: 2.835 s.
  EXPECT_NEAR(r.checkpoint_s, 405e9 * 14 / 2e12, 0.01);
}

TEST(Goodput, Llama3ScaleWithAndWithoutSpares) {
  // 16,384 GPUs on 8-GPU nodes, Llama 3 rates, a 60 s checkpoint.
  // M = 1296 h / 419 = 11,135.08 s. Failure-weighted repair: (196 x 4 + 72 x 4 + 35 x 2 + 7 x 4 + 46 x 8
  // + 63 x 0) / 419 = 1538 / 419 h = 13,214.3 s; R without spares = 600 + 13,214.3 = 13,814.3 s.
  // Daly interval 1,116.29 s. Goodput = tau / ((M + R)(e^((tau + 60)/M) - 1)):
  // with spares 0.853747, without 0.401564 (availability M / (M + R) = 0.4463 times the checkpoint losses).
  GoodputInputs in;
  in.shape = {16384, 8, 8, 8, 8};
  in.checkpoint_s = 60;
  const auto r = evaluate_goodput(builtin_failure_model(), in);
  EXPECT_NEAR(r.mean_repair_s, 1538.0 / 419 * 3600, 1e-6);
  EXPECT_NEAR(r.without_spares.restart_s, 13814.32, 0.01);
  EXPECT_NEAR(r.daly_interval_s, 1116.29, 0.01);
  EXPECT_NEAR(r.with_spares.goodput, 0.853747, 1e-5);
  EXPECT_NEAR(r.without_spares.goodput, 0.401564, 1e-5);
  EXPECT_NEAR(r.without_spares.shares.down, 13814.32 / (11135.08 + 13814.32), 1e-5);
  // The paper's run kept over 90% effective training time with spares (a 24K-GPU cluster for a 16K
  // job) and a checkpoint of seconds (2 TB/s Tectonic): the model agrees.
  in.checkpoint_s = 0;
  in.params = 405e9;
  const auto meta = evaluate_goodput(builtin_failure_model(), in);
  EXPECT_GT(meta.with_spares.goodput, 0.90);
  EXPECT_LT(meta.with_spares.goodput, 0.99);
  EXPECT_GT(meta.without_spares.goodput, 0.3);
  EXPECT_LT(meta.without_spares.goodput, meta.with_spares.goodput);
}

TEST(Failures, MtbfOverrideGolden) {
  // Per-GPU MTBF 50,000 h on 16,384 GPUs: 16384 / 50000 = 0.32768 failures per hour.
  FailureModel f = builtin_failure_model().with_gpu_mtbf_hours(50000);
  GoodputInputs in;
  in.shape = {16384, 8, 8, 8, 8};
  auto r = evaluate_goodput(f, in);
  EXPECT_NEAR(r.failures_per_hour, 0.32768, 1e-9);
}

TEST(Blast, NodeAndDomain) {
  JobShape hgx{1024, 8, 8, 8, 8};
  EXPECT_EQ(blast_gpus(Blast::node, hgx), 8);
  EXPECT_EQ(blast_gpus(Blast::none, hgx), 0);
  JobShape nvl{1008, 4, 72, 72, 8};
  EXPECT_EQ(blast_gpus(Blast::node, nvl), 8);    // 68 GPUs left hold 8 groups of 8
  nvl.group_gpus = 4;
  EXPECT_EQ(blast_gpus(Blast::node, nvl), 4);    // just the tray
  nvl.group_gpus = 72;
  EXPECT_EQ(blast_gpus(Blast::node, nvl), 72);   // groups span the domain: the rack
  EXPECT_EQ(blast_gpus(Blast::domain, nvl), 72);
}

TEST(Goodput, FallsWithGpusAndCheckpointTime) {
  const FailureModel& f = builtin_failure_model();
  double last = 2, last_none = 2;
  for (int gpus : {1024, 4096, 16384, 65536, 131072}) {
    GoodputInputs in;
    in.shape = {gpus, 8, 8, 8, 8};
    in.checkpoint_s = 60;
    in.tokens_per_s = 1e6;
    in.tokens = 1e12;
    const auto r = evaluate_goodput(f, in);
    EXPECT_LT(r.with_spares.goodput, last) << gpus;
    EXPECT_GT(r.without_spares.goodput, 0) << gpus;  // waits for repairs, never stalls for good
    EXPECT_LT(r.without_spares.goodput, r.with_spares.goodput) << gpus;
    if (gpus > 1024) {
      EXPECT_LT(r.without_spares.goodput, last_none) << gpus;
    }
    last = r.with_spares.goodput;
    last_none = r.without_spares.goodput;
  }
  last = 2;
  last_none = 2;
  for (double ckpt : {5.0, 30.0, 120.0, 600.0}) {
    GoodputInputs in;
    in.shape = {16384, 8, 8, 8, 8};
    in.checkpoint_s = ckpt;
    const auto r = evaluate_goodput(f, in);
    EXPECT_LT(r.with_spares.goodput, last) << ckpt;
    EXPECT_LT(r.without_spares.goodput, last_none) << ckpt;
    EXPECT_LT(r.without_spares.goodput, r.with_spares.goodput);
    last_none = r.without_spares.goodput;
    last = r.with_spares.goodput;
  }
}

TEST(Goodput, SparesFollowBlastRadius) {
  const FailureModel& f = builtin_failure_model();
  GoodputInputs small, whole;
  small.shape = {16128, 4, 72, 72, 8};
  whole.shape = {16128, 4, 72, 72, 72};
  const auto a = evaluate_goodput(f, small), b = evaluate_goodput(f, whole);
  EXPECT_LT(a.spare_gpus_needed, b.spare_gpus_needed);
  EXPECT_LE(a.with_spares.spare_units, b.with_spares.spare_units);
  EXPECT_GE(a.with_spares.spare_units, 1);
}

TEST(Goodput, Nvl72AddsDomainFailures) {
  const FailureModel& f = builtin_failure_model();
  GoodputInputs hgx, nvl;
  hgx.shape = {1152, 8, 8, 8, 8};
  nvl.shape = {1152, 4, 72, 72, 8};
  const auto a = evaluate_goodput(f, hgx), b = evaluate_goodput(f, nvl);
  EXPECT_GT(b.failures_per_hour, a.failures_per_hour);
  bool has_nvlink = false;
  for (const auto& c : b.classes) has_nvlink |= c.name == "nvlink" && c.blast_gpus == 72;
  EXPECT_TRUE(has_nvlink);
  for (const auto& c : a.classes) EXPECT_NE(c.name, "nvlink");
}

SystemPowerInput gb300() { return {"gb300-nvl72", "GB300 NVL72", 4, 18, 142e3, 1400, Cooling::liquid, 42}; }
SystemPowerInput h200() { return {"hgx-h200", "HGX H200", 8, 1, 10.2e3, 700, Cooling::air, 8}; }

const char* kSite = R"(
schema: gpuplan.site/v1
name: test
total_power_mw: 10
pue: 1.25
headroom_pct: 20
positions:
  - name: air
    count: 100
    cooling: air
    max_kw: 20
  - name: liquid
    count: 20
    cooling: liquid
    max_kw: 150
    cdu_capacity_kw: 2000
)";

TEST(Site, PowerParts) {
  const SiteSpec site = parse_site_yaml(kSite, "t.yaml", builtin_site_defaults());
  const UnitPower u = unit_power(gb300(), site);
  EXPECT_TRUE(u.unit_is_rack);
  EXPECT_DOUBLE_EQ(u.gpu_w, 72 * 1400.0);
  EXPECT_DOUBLE_EQ(u.nic_w, 72 * 25.0);
  EXPECT_NEAR(u.unit_w(), 142e3, 1e-6);
  const UnitPower h = unit_power(h200(), site);
  EXPECT_EQ(h.units_per_rack, 4);  // 36U / 8U
  EXPECT_EQ(units_per_position(h, site.positions[0], site), 1);  // 20 kW / 10.2 kW
}

TEST(Site, CapacityAndWhy) {
  SiteSpec site = parse_site_yaml(kSite, "t.yaml", builtin_site_defaults());
  const UnitPower u = unit_power(gb300(), site);
  auto c = system_capacity(u, site);
  EXPECT_EQ(c.by_positions, 14);  // CDU: 2000 / 142 = 14 of 20 positions
  site.positions.pop_back();
  c = system_capacity(u, site);
  EXPECT_EQ(c.units, 0);
  EXPECT_NE(c.why_not.find("needs liquid cooling; your air positions take 20 kW"), std::string::npos) << c.why_not;
}

TEST(Site, MorePowerNeverFitsFewer) {
  SiteSpec site = parse_site_yaml(kSite, "t.yaml", builtin_site_defaults());
  for (const auto& sys : {gb300(), h200()}) {
    int last = -1, last_placed = -1, last_budget = -1;
    for (double mw = 0.1; mw < 40; mw *= 1.3) {
      site.total_power_w = mw * 1e6;
      const int n = system_capacity(unit_power(sys, site), site).units;
      EXPECT_GE(n, last) << sys.name << " " << mw;
      last = n;
      const auto fit = fit_site({{unit_power(sys, site), 1000}}, site);
      EXPECT_GE(fit.groups[0].placed, last_placed) << sys.name << " " << mw;
      last_placed = fit.groups[0].placed;
      const int b = units_for_budget(unit_power(sys, site), mw * 1e6, site);
      EXPECT_GE(b, last_budget) << sys.name << " " << mw;
      last_budget = b;
    }
    EXPECT_GT(last, 0) << sys.name;  // the sweep reached the positions' limit, not just zeros
  }
  // More positions never fit fewer racks either.
  for (const auto& sys : {gb300(), h200()}) {
    SiteSpec s = parse_site_yaml(kSite, "t.yaml", builtin_site_defaults());
    int last = -1;
    for (int extra = 0; extra < 200; extra += 7) {
      for (auto& g : s.positions) g.count += 7;
      const int n = system_capacity(unit_power(sys, s), s).units;
      EXPECT_GE(n, last) << sys.name << " " << extra;
      last = n;
    }
  }
}

TEST(Site, FitReportsWhatDoesNotFit) {
  SiteSpec site = parse_site_yaml(kSite, "t.yaml", builtin_site_defaults());
  site.positions.pop_back();
  const auto fit = fit_site({{unit_power(gb300(), site), 16}, {unit_power(h200(), site), 64}}, site);
  ASSERT_FALSE(fit.fits());
  EXPECT_EQ(fit.violations[0].code, "site.cooling");
  EXPECT_EQ(fit.groups[1].placed, 64);
  EXPECT_EQ(fit.groups[1].racks, 64);
}

TEST(Site, BadFilesNameTheField) {
  const SiteSpec d = builtin_site_defaults();
  auto expect_field = [&](const std::string& text, const std::string& field) {
    try {
      parse_site_yaml(text, "s.yaml", d);
      ADD_FAILURE() << "no error for " << field;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(field), std::string::npos) << e.what();
    }
  };
  expect_field("positions:\n  - count: 2\n    cooling: water\n    max_kw: 20\n", "cooling");
  expect_field("positions:\n  - count: 2\n    cooling: air\n    max_kw: -5\n", "max_kw");
  expect_field("positions:\n  - count: 2\n    cooling: air\n    max_kw: 20\n    max_kwh: 3\n", "max_kwh");
  expect_field("total_power: 3\npositions:\n  - count: 2\n    cooling: air\n    max_kw: 20\n", "total_power");
  expect_field("positions:\n  - count: 2\n    cooling: air\n    max_kw: 20\n    cdu_capacity_kw: 100\n", "cdu_capacity_kw");
  expect_field("pue: 0.5\npositions:\n  - count: 2\n    cooling: air\n    max_kw: 20\n", "pue");
  expect_field("headroom_pct: 95\npositions:\n  - count: 2\n    cooling: air\n    max_kw: 20\n", "headroom_pct");
  expect_field("positions:\n  - count: 0\n    cooling: air\n    max_kw: 20\n", "positions[0].count");
  expect_field("positions:\n  - count: 2\n    cooling: air\n", "max_kw");
  expect_field("positions: []\n", "positions");
  expect_field("schema: gpuplan.site/v2\npositions:\n  - count: 2\n    cooling: air\n    max_kw: 20\n", "schema");
}

}  // namespace
}  // namespace gpuplan::deploy
