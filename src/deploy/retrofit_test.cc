// What a site has to change: positions, CDUs, water, feed, switch racks, floor loading.
#include "deploy/retrofit.h"

#include <gtest/gtest.h>

#include <cmath>

namespace gpuplan::deploy {
namespace {

UnitPower rack(const std::string& name, double w) {
  UnitPower u;
  u.system = name;
  u.unit_is_rack = true;
  u.gpus = 72;
  u.cooling = Cooling::liquid;
  u.host_w = w;  // unit_w() = w
  return u;
}

TEST(Retrofit, LiquidPositionsCdusWaterAndFloor) {
  SiteSpec site = builtin_site_defaults();
  site.total_power_w = 3e6;
  site.positions = {{"liquid", 10, Cooling::liquid, 150e3, 1.0e6}, {"air", 100, Cooling::air, 20e3, 0}};
  const RetrofitDefaults d = builtin_retrofit_defaults();
  const Retrofit r = plan_retrofit({{rack("gb300-nvl72", 142e3), 16}}, site, {40, 50e3}, d);
  ASSERT_EQ(r.positions.size(), 1u);
  EXPECT_EQ(r.positions[0].needed, 16);
  EXPECT_EQ(r.positions[0].available, 10);
  EXPECT_EQ(r.positions[0].to_add(), 6);
  EXPECT_NEAR(r.liquid_heat_w, 16 * 142e3, 1e-6);
  EXPECT_NEAR(r.cdu_to_add_w, 16 * 142e3 - 1.0e6, 1e-6);
  // Q = m c dT: 2.272 MW at 10 K -> 54.3 kg/s.
  EXPECT_NEAR(r.water_flow_kg_per_s, 16 * 142e3 / (4186 * d.water_delta_t_k), 1e-9);
  EXPECT_EQ(r.switch_racks, 2);  // 40 U of switches in 36-U network racks
  ASSERT_EQ(r.floor.size(), 1u);
  EXPECT_DOUBLE_EQ(r.floor[0].rack_kg, 1360);
  EXPECT_NEAR(r.floor[0].kg_per_m2, 1360 / d.rack_footprint_m2, 1e-9);
  EXPECT_FALSE(r.floor[0].source.empty());
  // (2.272 MW IT + 50 kW network, which replaces the flat switch share, here 0) x PUE 1.3 / (1 - 25%
  // headroom) = 4.02 MW against a 3 MW feed.
  EXPECT_NEAR(r.feed_needed_w, (16 * 142e3 + 50e3) * site.pue / (1 - site.headroom), 1e-6);
  EXPECT_NEAR(r.feed_to_add_w, r.feed_needed_w - 3e6, 1e-6);
  EXPECT_GT(r.liquid_retrofit_usd, 0);
  // sqrt(3) x 415 V x 60 A x 0.8 = 34.5 kW per circuit: a 142 kW rack needs 5, 10 with 2N.
  EXPECT_NEAR(r.circuit_w, std::sqrt(3.0) * 415 * 60 * 0.8, 1e-6);
  EXPECT_EQ(r.positions[0].circuits_per_position, 10);
  EXPECT_EQ(r.circuits, 160);
}

TEST(Retrofit, PlannedNetworkReplacesTheFlatSwitchShare) {
  SiteSpec site = builtin_site_defaults();
  UnitPower u = rack("gb200-nvl72", 120e3);
  u.switch_w = 6e3;
  const Retrofit flat = plan_retrofit({{u, 10}}, site, {}, builtin_retrofit_defaults());
  const Retrofit planned = plan_retrofit({{u, 10}}, site, {4, 20e3}, builtin_retrofit_defaults());
  EXPECT_NEAR(flat.feed_needed_w, 10 * 126e3 * site.pue / (1 - site.headroom), 1e-6);
  EXPECT_NEAR(planned.feed_needed_w, (10 * 120e3 + 20e3) * site.pue / (1 - site.headroom), 1e-6);
}

TEST(Retrofit, NothingToChangeWhenItFits) {
  SiteSpec site = builtin_site_defaults();
  site.total_power_w = 100e6;
  site.positions = {{"liquid", 40, Cooling::liquid, 150e3, 10e6}};
  const Retrofit r = plan_retrofit({{rack("gb200-nvl72", 120e3), 8}}, site, {}, builtin_retrofit_defaults());
  EXPECT_EQ(r.positions[0].to_add(), 0);
  EXPECT_EQ(r.cdu_to_add_w, 0);
  EXPECT_EQ(r.feed_to_add_w, 0);
  EXPECT_EQ(r.switch_racks, 0);
  EXPECT_EQ(r.liquid_retrofit_usd, 0);
}

}  // namespace
}  // namespace gpuplan::deploy
