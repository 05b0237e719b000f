// One fabric plan per catalog system at 1 to 100,000 GPUs (issue 14: "well under a second"; a plan is
// microseconds).
#include <benchmark/benchmark.h>

#include "catalog/catalog.h"
#include "fabric/system_fabric.h"

namespace {

using namespace gpuplan;

void BM_FabricPlan(benchmark::State& state) {
  const Catalog& catalog = Catalog::builtin();
  const fabric::FabricCatalog& fc = fabric::FabricCatalog::builtin();
  const System& sys = catalog.systems()[static_cast<size_t>(state.range(0)) % catalog.systems().size()];
  const fabric::FabricKind& kind = fabric::kind_for_system(fc, sys);
  const fabric::FabricSpec spec = fabric::spec_for_system(catalog, sys, kind, state.range(1));
  for (auto _ : state) benchmark::DoNotOptimize(fabric::plan_fabric(fc, kind, spec));
  state.SetLabel(sys.name);
}
BENCHMARK(BM_FabricPlan)->ArgsProduct({{1, 5, 6}, {8, 1024, 16384, 100000}})->Unit(benchmark::kMicrosecond);

// Every catalog system at every power of two from 1 to 100,000 GPUs, in one iteration.
void BM_FabricEveryCatalogSystem(benchmark::State& state) {
  const Catalog& catalog = Catalog::builtin();
  const fabric::FabricCatalog& fc = fabric::FabricCatalog::builtin();
  for (auto _ : state) {
    for (const auto& sys : catalog.systems()) {
      const fabric::FabricKind& kind = fabric::kind_for_system(fc, sys);
      for (long long g = 1; g <= 100000; g = g * 2 > 100000 && g < 100000 ? 100000 : g * 2)
        benchmark::DoNotOptimize(fabric::plan_fabric(fc, kind, fabric::spec_for_system(catalog, sys, kind, g)));
    }
  }
}
BENCHMARK(BM_FabricEveryCatalogSystem)->Unit(benchmark::kMillisecond);

}  // namespace
