// Cost of an error band next to the evaluation it decorates (issue 13 target: a band adds no more than
// 10% to one evaluation): the lookup of (kind, generation) in the built-in bands and the interval.
#include <benchmark/benchmark.h>

#include "catalog/catalog.h"
#include "catalog/error_band.h"

namespace {

using namespace gpuplan;

void BM_BandLookupAndInterval(benchmark::State& state) {
  static const Catalog c = Catalog::builtin();
  const auto& bands = c.error_bands();
  const std::string gen = state.range(0) ? "blackwell_ultra" : "no_such_generation";
  double v = 1234.5;
  for (auto _ : state) {
    const ErrorBand& b = find_band(bands, training_band_kind(false), gen);
    const BandedFigure f = with_band(v, b, /*reciprocal=*/true);
    benchmark::DoNotOptimize(f.high);
    v += 1e-9;
  }
}
BENCHMARK(BM_BandLookupAndInterval)->ArgName("fitted")->Arg(1)->Arg(0);

}  // namespace
