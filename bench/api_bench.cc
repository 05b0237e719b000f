// The cost of one API call, as the Python module and the server pay it: run("infer", one point) on a
// warm Session (option parsing with the command's CLI11 definitions, the evaluation, the document).
// The budget for a Python call of one inference point is 20 us.
#include <benchmark/benchmark.h>

#include "api/api.h"
#include "api/infer.h"
#include "api/output.h"

namespace {

using nlohmann::json;

const gpuplan::api::Session& session() {
  static const gpuplan::api::Session s;
  return s;
}

const json& point_options() {
  static const json o = {{"model", "llama3.1-70b"}, {"system", "hgx-h200"}, {"tp", 8}, {"concurrency", 64},
                         {"isl", 1024}, {"osl", 1024}};
  return o;
}

void BM_RunInferPoint(benchmark::State& state) {
  const auto& s = session();
  for (auto _ : state) benchmark::DoNotOptimize(gpuplan::api::run(s, "infer", point_options()));
}
BENCHMARK(BM_RunInferPoint);

// The same evaluation from a filled request, without run()'s option parsing: what parsing costs is
// the difference.
void BM_InferPointFromRequest(benchmark::State& state) {
  const auto& s = session();
  gpuplan::api::InferRequest req;
  req.model_name = "llama3.1-70b";
  req.system = "hgx-h200";
  req.tp = 8;
  req.concurrency = 64;
  for (auto _ : state) {
    gpuplan::api::Output out;
    benchmark::DoNotOptimize(gpuplan::api::infer(s.catalog(), req, out));
    benchmark::DoNotOptimize(out.doc);
  }
}
BENCHMARK(BM_InferPointFromRequest);

}  // namespace
