// The cost of one API call, as the Python module and the server pay it: run("infer", one point) on a
// warm Session, and its stages: the options' parse (run() less the call from a filled request), the
// evaluation (model and system lookups and the evaluator), and the document (the call from a request
// less the evaluation; copying a document bounds what allocating its tree costs). The budget
// for a Python call of one inference point is 20 us; scripts/python_bench.py adds the Python layer.
// The point is scripts/python_bench.py's: gpuplan.infer(model="llama3.1-70b", system="hgx-h200",
// isl=8192, osl=1024) (TP chosen: the smallest whose KV cache holds 8 sequences per GPU).
#include <benchmark/benchmark.h>

#include "api/api.h"
#include "api/dispatch.h"
#include "api/infer.h"
#include "api/output.h"
#include "inference/inference.h"
#include "model/model_registry.h"
#include "physics/hardware.h"

namespace {

using nlohmann::json;

const gpuplan::api::Session& session() {
  static const gpuplan::api::Session s;
  return s;
}

const json& point_options() {
  static const json o = {{"model", "llama3.1-70b"}, {"system", "hgx-h200"}, {"isl", 8192}, {"osl", 1024}};
  return o;
}

gpuplan::api::InferRequest point_request() {
  gpuplan::api::InferRequest req;
  req.model_name = "llama3.1-70b";
  req.system = "hgx-h200";
  req.isl = 8192;
  req.osl = 1024;
  return req;
}

// Everything: options parsed, evaluated, the document built (and destroyed).
void BM_RunInferPoint(benchmark::State& state) {
  const auto& s = session();
  for (auto _ : state) benchmark::DoNotOptimize(gpuplan::api::run(s, "infer", point_options()));
}
BENCHMARK(BM_RunInferPoint);

// The same from a filled request, without run()'s option parsing: what parsing costs is the difference.
void BM_InferPointFromRequest(benchmark::State& state) {
  const auto& s = session();
  const auto req = point_request();
  for (auto _ : state) {
    gpuplan::api::Output out;
    benchmark::DoNotOptimize(gpuplan::api::infer(s.catalog(), req, out, &s));  // as run() calls it
    benchmark::DoNotOptimize(out.doc);
  }
}
BENCHMARK(BM_InferPointFromRequest);

// The first half of parsing: run()'s options as the command line's tokens.
void BM_InferPointOptionTokens(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(gpuplan::api::command_tokens("infer", point_options()));
}
BENCHMARK(BM_InferPointOptionTokens);

// The evaluation alone, as infer() runs it for this point: the model lookup, the session's resolved
// system and the probe that chooses TP (tp=1 holds 8 sequences on an H200), which evaluated the point.
void BM_InferPointEvaluation(benchmark::State& state) {
  gpuplan::InferenceWorkload w;
  w.weight_precision = gpuplan::Precision::fp8;
  w.kv_bytes_per_element = 1.0;
  w.isl = 8192;
  w.osl = 1024;
  w.num_gpus = 1;
  for (auto _ : state) {
    const auto m = gpuplan::resolve_model("llama3.1-70b");
    const gpuplan::Hardware* hw = session().hardware("hgx-h200");
    benchmark::DoNotOptimize(gpuplan::evaluate_inference(m, *hw, {1, 1, 1, false}, w));
  }
}
BENCHMARK(BM_InferPointEvaluation);

// Copying (and destroying) the point's document: the allocations of its tree, a floor under building it.
void BM_InferDocumentCopy(benchmark::State& state) {
  const json doc = gpuplan::api::run(session(), "infer", point_options());
  for (auto _ : state) {
    json copy = doc;
    benchmark::DoNotOptimize(copy);
  }
  state.counters["values"] = static_cast<double>(doc.flatten().size());
}
BENCHMARK(BM_InferDocumentCopy);

// The document as the CLI's --json and the server write it.
void BM_InferDocumentDump(benchmark::State& state) {
  const json doc = gpuplan::api::run(session(), "infer", point_options());
  for (auto _ : state) benchmark::DoNotOptimize(doc.dump());
}
BENCHMARK(BM_InferDocumentDump);

}  // namespace
