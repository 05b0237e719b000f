#include "compare/smallest_purchase.h"

#include <gtest/gtest.h>

namespace gpuplan::compare {
namespace {

Recommendation system(const char* name, double capex_usd, double it_kw, bool feasible = true, bool calibrated = true) {
  Recommendation r;
  r.name = name;
  r.feasible = feasible;
  r.priced = true;
  r.capex_usd = capex_usd;
  r.it_kw = it_kw;
  r.calibrated = calibrated;
  return r;
}

TEST(SmallestPurchase, LeastCapitalAmongTheFeasiblePricedSystems) {
  RecommendResult res;
  res.ranked = {system("rack", 4.6e6, 153), system("node", 4.5e5, 15), system("too-slow", 1e5, 10, false),
                system("two-nodes", 6e5, 22)};
  Recommendation bare = system("bare-gpu", 3e4, 1);
  bare.is_system = false;  // a bare accelerator is not a purchase the catalog prices
  res.ranked.push_back(bare);
  Recommendation unpriced = system("unpriced", 0, 15);
  unpriced.priced = false;
  res.ranked.push_back(unpriced);
  EXPECT_EQ(smallest_purchase(res), std::optional<std::size_t>(1));
}

TEST(SmallestPurchase, TiesGoToTheLeastPowerThenTheRank) {
  RecommendResult res;
  res.ranked = {system("a", 5e5, 20), system("b", 5e5, 15), system("c", 5e5, 15)};
  EXPECT_EQ(smallest_purchase(res), std::optional<std::size_t>(1));
}

TEST(SmallestPurchase, UnfittedGenerationsOnlyWhenRankedTogetherOrAlone) {
  RecommendResult res;
  res.ranked = {system("fitted", 5e5, 15), system("unfitted", 3e5, 20, true, false)};
  EXPECT_EQ(smallest_purchase(res), std::optional<std::size_t>(0));
  res.spec.unfitted_last = false;
  EXPECT_EQ(smallest_purchase(res), std::optional<std::size_t>(1));
  res.spec.unfitted_last = true;
  res.ranked[0].feasible = false;
  EXPECT_EQ(smallest_purchase(res), std::optional<std::size_t>(1));
  res.ranked[1].feasible = false;
  EXPECT_EQ(smallest_purchase(res), std::nullopt);
}

}  // namespace
}  // namespace gpuplan::compare
