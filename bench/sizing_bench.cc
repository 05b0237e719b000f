// Sizing's core: the whole catalog's candidates (DeepSeek-R1, 8K in / 1K out, TTFT p99 5 s, 30 tokens/s
// per user) sized with 1,000 Monte Carlo draws (target: under a second), and one open-loop point.
// The candidates (each system's alternative deployments) are prepared once, outside the timed loop, as
// `gpuplan size` prepares them.
#include <benchmark/benchmark.h>

#include "api/open_loop_alternatives.h"
#include "api/serving_engine.h"
#include "catalog/catalog.h"
#include "compare/compare.h"
#include "compare/operating_point.h"
#include "cost/cost_profile.h"
#include "inference/chooser.h"
#include "inference/open_loop.h"
#include "model/model_registry.h"
#include "sizing/odds.h"
#include "sizing/sizing.h"

namespace {

using namespace gpuplan;

const std::vector<sizing::Candidate>& catalog_candidates() {
  static const std::vector<sizing::Candidate> cands = [] {
    static const Catalog catalog = Catalog::builtin();
    const ModelArch model = resolve_model("deepseek-r1");
    std::vector<sizing::Candidate> out;
    for (const auto& sys : catalog.systems()) {
      const auto side = compare::make_side(catalog, sys.name, cost::builtin_cost_profile());
      if (side.hw.accelerator.peak(gemm_format(Precision::fp8)) <= 0) continue;
      const ServingScenario sc = compare::serving_scenario(model, side.hw, side.gpus_per_unit, Precision::fp8, 8192,
                                                           1024, 30, 0, 5.0, api::catalog_mtp_accept(catalog));
      const ServingChoice ch = choose_serving(sc);
      if (!ch.met) continue;
      for (api::OpenLoopAlternative& alt :
           api::open_loop_alternatives(catalog, sc, side.system, ch, api::OpenLoopLengths{}, int(out.size()))) {
        alt.candidate.usd_per_unit_year = side.tco.priced ? side.tco.total_usd_per_year() : 0;
        out.push_back(std::move(alt.candidate));
      }
    }
    return out;
  }();
  return cands;
}

void BM_SizeCatalog(benchmark::State& state) {
  const auto& cands = catalog_candidates();
  sizing::SizingOptions o;
  o.requests_per_s = 20;
  o.sla.ttft_p99_s = 5;
  o.sla.tokens_per_s_per_user = 30;
  o.draws = int(state.range(0));
  for (auto _ : state) benchmark::DoNotOptimize(sizing::size_candidates(cands, o));
  state.counters["candidates"] = double(cands.size());  // systems x their alternative deployments
}
BENCHMARK(BM_SizeCatalog)->ArgName("draws")->Arg(1000)->Unit(benchmark::kMillisecond);

void BM_OpenLoopPoint(benchmark::State& state) {
  const auto& c = catalog_candidates().front().curve;
  double rate = 1;
  for (auto _ : state) {
    benchmark::DoNotOptimize(open_loop(c, rate));
    rate = rate < 5 ? rate + 1e-3 : 1;
  }
}
BENCHMARK(BM_OpenLoopPoint);

// The same point with prompts varying as a dataset's (--isl-max: the truncated exponential on [0, 16,384]
// about the 8,192-token mean): TTFT's quantiles then solve a mixture over ten points of the prompt law.
void BM_OpenLoopPointDatasetPrompts(benchmark::State& state) {
  OpenLoopCurve c = catalog_candidates().front().curve;
  c.prompt_isl_max = 16384;
  double rate = 1;
  for (auto _ : state) {
    benchmark::DoNotOptimize(open_loop(c, rate));
    rate = rate < 5 ? rate + 1e-3 : 1;
  }
}
BENCHMARK(BM_OpenLoopPointDatasetPrompts);

// The odds of one deployment at one rate (infer --requests-per-s): the draws and an open loop each.
void BM_OpenLoopOdds(benchmark::State& state) {
  const auto& c = catalog_candidates().front();
  sizing::SizingOptions o;
  o.sla.ttft_p99_s = 5;
  o.sla.tokens_per_s_per_user = 30;
  o.draws = int(state.range(0));
  for (auto _ : state) benchmark::DoNotOptimize(sizing::open_loop_odds(c, 2.0, o));
}
BENCHMARK(BM_OpenLoopOdds)->ArgName("draws")->Arg(1000)->Unit(benchmark::kMillisecond);

}  // namespace
