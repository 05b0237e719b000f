// The inference model against published serving results (shared/data/benchmarks/inference.csv and
// the MLPerf Inference v4.1/v5.0 rows): the targets, split as score.py splits them.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include "catalog/catalog.h"
#include "core/csv.h"
#include "inference/engine.h"
#include "validate/calibrate.h"
#include "validate/inference_cases.h"
#include "validate/inference_rows_testing.h"
#include "validate/validation.h"

namespace gpuplan {
namespace {

using inference_rows_testing::inference_rows;  // rows of inference.csv's schema written inline

struct Split {
  ErrorSummary throughput, latency;
  size_t scored = 0, total = 0;
};

Split score_file(const std::string& name) {
  const std::string path = std::string(GPUPLAN_SHARED_DATA_DIR) + "/benchmarks/" + name;
  const CsvTable t = read_csv_file(path, "--dataset");
  EXPECT_TRUE(is_inference_schema(t));
  const Catalog catalog = Catalog::load({});
  std::vector<SkippedRow> skipped;
  const auto cases = map_inference_cases(t, catalog, skipped);
  const ValidationReport rep = validate_inference(cases, skipped, path);
  if (const char* dump = std::getenv("GPUPLAN_INFER_DUMP")) {  // per-row TSV for error analysis
    if (FILE* f = std::fopen((std::string(dump) + "." + name + ".tsv").c_str(), "w")) {
      for (const auto& r : rep.rows)
        std::fprintf(f, "%zu\t%s\t%s\t%s\t%s\t%s\t%g\t%g\t%s\n", r.row, r.source_id.c_str(), r.model.c_str(),
                     r.accelerator.c_str(), r.metric.c_str(), r.plan.c_str(), r.reported, r.predicted,
                     r.precision.c_str());
      std::fclose(f);
    }
  }
  std::vector<double> thr, lat;
  for (const auto& r : rep.rows) (r.metric == "ttft_ms" || r.metric == "tpot_ms" ? lat : thr).push_back(r.ape_pct);
  Split s{summarize(thr), summarize(lat), rep.rows.size(), rep.rows.size() + rep.skipped.size()};
  std::printf("%s: %zu/%zu scored; throughput median %.1f%% p90 %.1f%% (%zu); latency median %.1f%% p90 %.1f%% (%zu)\n",
              name.c_str(), s.scored, s.total, s.throughput.median_ape_pct, s.throughput.p90_ape_pct,
              s.throughput.rows, s.latency.median_ape_pct, s.latency.p90_ape_pct, s.latency.rows);
  return s;
}

bool have_shared_data() {
  return std::filesystem::exists(std::string(GPUPLAN_SHARED_DATA_DIR) + "/benchmarks/inference.csv");
}

// The targets on the published serving rows: median APE <= 15% on throughput, <= 20% on
// TTFT/TPOT, at least 85% of rows scored, throughput p90 <= 40% (issue 13).
TEST(InferenceValidation, PublishedServingResults) {
  if (!have_shared_data()) GTEST_SKIP() << "shared/data not present";
  const Split s = score_file("inference.csv");
  EXPECT_GE(double(s.scored), 0.85 * double(s.total));
  EXPECT_LE(s.throughput.median_ape_pct, 15.0);
  EXPECT_LE(s.latency.median_ape_pct, 20.0);
  EXPECT_LE(s.throughput.p90_ape_pct, 40.0);  // issue 13's target (38.7% after h13g, 41.9% before)
}

// MLPerf v4.1/v5.0 held out from the serving fit: the targets (throughput median <= 15%,
// TTFT/TPOT <= 20%); it stands at 10.6% / 13.8%, so the bounds also catch a drift of a few points.
TEST(InferenceValidation, MlperfRounds) {
  if (!have_shared_data()) GTEST_SKIP() << "shared/data not present";
  const Split s = score_file("mlperf-inference-v4.1-v5.0.csv");
  EXPECT_GE(double(s.scored), 0.85 * double(s.total));
  EXPECT_LE(s.throughput.median_ape_pct, 13.0);
  EXPECT_LE(s.latency.median_ape_pct, 16.0);
}

// MLPerf's interactive scenario is the server scenario at its own benchmark's tighter limits (llama2-70b-
// interactive: 450 ms TTFT, 40 ms TPOT p99), so it never serves more than the server row; a scenario
// that is none of the known ones is refused naming it.
TEST(InferenceValidation, InteractiveScenarioHasItsLimitsAndUnknownOnesAreRefused) {
  const std::string row = "MLPerf-v5.0,x,Llama-2-70B,70,70,H100-SXM,8,1,,1,FP8,,TensorRT-LLM,,,,";
  const CsvTable t = inference_rows(row + "Server,tokens_per_sec_total,20000,\n" + row +
                                        "Interactive,tokens_per_sec_total,20000,\n" + row +
                                        "server (interactive),tokens_per_sec_total,20000,\n" + row +
                                        "SingleStream,tokens_per_sec_total,20000,\n");
  std::vector<SkippedRow> skipped;
  const auto cases = map_inference_cases(t, Catalog::load({}), skipped);
  ASSERT_EQ(cases.size(), 3u);
  EXPECT_DOUBLE_EQ(cases[1].tpot_limit_s, 0.040 / 1.25);
  EXPECT_DOUBLE_EQ(cases[2].ttft_limit_s, 0.450 / 2.0);
  EXPECT_LT(cases[1].tpot_limit_s, cases[0].tpot_limit_s);
  EXPECT_LT(predict_inference_case(cases[1]), predict_inference_case(cases[0]));
  ASSERT_EQ(skipped.size(), 1u);
  EXPECT_NE(skipped[0].reason.find("scenario 'SingleStream'"), std::string::npos) << skipped[0].reason;
}

TEST(InferenceValidation, BlanksAreFilledAndRecorded) {
  const CsvTable t = inference_rows(
      "MLPerf-v4.1,x/llama2-70b-99/Offline,Llama-2-70B,70,70,H100-SXM,8,,,,,,TensorRT 10.2.0,,,,offline,"
      "tokens_per_sec_total,24000,\"samples/s 80 (implies 294.0 output tokens/sample)\"\n"
      "X,y,No-Such-Model,1,1,H100-SXM,1,1,,1,FP8,,trt,128,128,,offline,tokens_per_sec_total,100,\n");
  std::vector<SkippedRow> skipped;
  const auto cases = map_inference_cases(t, Catalog::load({}), skipped);
  ASSERT_EQ(cases.size(), 1u);
  ASSERT_EQ(skipped.size(), 1u);
  EXPECT_NE(skipped[0].reason.find("No-Such-Model"), std::string::npos);
  EXPECT_EQ(cases[0].workload.osl, 294);
  EXPECT_EQ(cases[0].workload.isl, 300);
  EXPECT_GE(cases[0].assumptions.size(), 3u);
  EXPECT_GT(predict_inference_case(cases[0]), 0);
}

// Cells in the forms real tables write: a vendor word before the GPU, an upper-case metric, a blank
// num_gpus (one instance of TP x PP, said), and a row whose size nothing states (skipped, saying so).
TEST(InferenceValidation, TableFormsOfTheSameRow) {
  const std::string tail = ",1,FP8,,trt,128,128,8,offline,tokens_per_sec_total,100,\n";
  const CsvTable t = inference_rows("X,y,Llama-3.1-70B,70,70,H100-SXM,2,2," + tail +
                                        "X,y,meta-llama/Llama-3.1-70B,70,70,NVIDIA H100-SXM,,2," + tail +
                                        "X,y,Llama-3.1-70B,70,70,H100-SXM,2,2,,1,FP8,,trt,128,128,8,offline,"
                                        "TOKENS_PER_SEC_TOTAL,100,\n" +
                                        "X,y,Llama-3.1-70B,70,70,H100-SXM,,," + tail);
  std::vector<SkippedRow> skipped;
  const auto cases = map_inference_cases(t, Catalog::load({}), skipped);
  ASSERT_EQ(cases.size(), 3u);
  ASSERT_EQ(skipped.size(), 1u);
  EXPECT_EQ(skipped[0].row, 3u);
  EXPECT_NE(skipped[0].reason.find("num_gpus and tp blank"), std::string::npos) << skipped[0].reason;
  const double first = predict_inference_case(cases[0]);
  for (const auto& c : cases) {
    EXPECT_EQ(c.workload.num_gpus, 2);
    EXPECT_EQ(c.metric, "tokens_per_sec_total");
    EXPECT_DOUBLE_EQ(predict_inference_case(c), first) << c.row;
  }
  bool said = false;
  for (const auto& a : cases[1].assumptions) said = said || a.find("num_gpus blank: 2") != std::string::npos;
  EXPECT_TRUE(said);
}

// MLPerf rows whose concurrency column is NVIDIA's engine batch limit, Triton runs at an unbounded
// request rate (all requests at once: they queue), and disaggregated AIConfigurator rows.
TEST(InferenceValidation, ScenarioSemantics) {
  const CsvTable t = inference_rows(
          "MLPerf-v4.1,x/llama2-70b-99/Server,Llama-2-70B,70,70,H200-SXM,8,1,,,FP8,FP8,TensorRT 10.2.0,,,896,server,"
          "tokens_per_sec_total,29000,\"samples/s 100 (implies 291.3 output tokens/sample); latency constraints "
          "TTFT<= 2000 ms, TPOT<= 200 ms (p99); concurrency column = per-engine gpu_batch_size from NVIDIA config\"\n"
          "T,y,Llama-3.1-8B-Instruct,8,8,H100-SXM,1,1,,1,FP8,,TensorRT-LLM v0.14 via Triton (500 requests),467,256,,"
          "server,ttft_ms,3000,request_rate_qps=INF\n"
          "T,y,Llama-3.1-8B-Instruct,8,8,H100-SXM,1,1,,1,FP8,,TensorRT-LLM v0.14 via Triton (500 requests),467,256,,"
          "server,ttft_ms,30,request_rate_qps=1\n"
          "AIC,z,Llama-3.1-70B,70,70,B200,8,4,1,1,FP8,,trtllm,1024,1024,64,server,ttft_ms,500,"
          "disagg: prefill: tp=4 decode: tp=4\n");
  std::vector<SkippedRow> skipped;
  const auto cases = map_inference_cases(t, Catalog::load({}), skipped);
  ASSERT_EQ(cases.size(), 3u);
  ASSERT_EQ(skipped.size(), 1u);
  EXPECT_NE(skipped[0].reason.find("disaggregated"), std::string::npos);
  EXPECT_EQ(cases[0].mode, InferenceMode::under_limits);
  EXPECT_EQ(cases[0].workload.max_batch_size, 896);
  EXPECT_EQ(cases[0].workload.concurrency, 0);
  EXPECT_EQ(cases[1].requests_in_run, 500);
  const InferenceResult flood = evaluate_case(cases[1]);
  const InferenceResult calm = evaluate_case(cases[2]);
  // 500 prompts at once prefill as one wave (and queue for slots beyond the KV cache's).
  EXPECT_GT(flood.ttft_s, 10 * calm.ttft_s);
  EXPECT_EQ(calm.queue_wait_s, 0.0);
  EXPECT_GT(flood.tokens_per_s_total, 10 * calm.tokens_per_s_total);
}

// AIConfigurator's silicon rows are InferenceX-style runs through the engine's HTTP server: they
// carry the engine's front end fitted on the InferenceX file (these rows are held out of that fit);
// vLLM, without InferenceX points, carries the one fitted on this file's dense rows.
TEST(InferenceValidation, AiConfiguratorRowsCarryTheEnginesFrontEnd) {
  const CsvTable t = inference_rows("AIC-x,z,Llama-3.1-8B-Instruct,8,8,H100-SXM,1,1,1,1,,,trtllm 1.0.0rc3,1024,128,8,"
                                        "server,ttft_ms,190,\n"
                                        "AIC-x,z,Llama-3.1-8B-Instruct,8,8,H100-SXM,1,1,1,1,,,vllm,1024,128,8,"
                                        "server,ttft_ms,190,\n");
  std::vector<SkippedRow> skipped;
  const Catalog cat = Catalog::load({});
  const auto cases = map_inference_cases(t, cat, skipped);
  ASSERT_EQ(cases.size(), 2u);
  const double trt = engine_params(cat, "trtllm").request_overhead_s;
  ASSERT_GT(trt, 0.0);
  EXPECT_DOUBLE_EQ(cases[0].workload.request_overhead_s, trt);
  EXPECT_DOUBLE_EQ(cases[1].workload.request_overhead_s, engine_params(cat, "vllm").request_overhead_s);
  const InferenceResult with = evaluate_case(cases[0]);
  auto bare = cases[0];
  bare.workload.request_overhead_s = 0;
  EXPECT_NEAR(with.ttft_s - evaluate_case(bare).ttft_s, trt, 1e-9);
}

// AIConfigurator's silicon rows are InferenceX runs, so an SGLang row on B200/B300 runs with the
// receive interval its InferenceX script passed, the same reading the InferenceX file's rows of those
// runs get (validate/inferencex_scripts.h): DeepSeek-R1 TP8 FP8 at 64 clients 30, at 4 clients 10;
// the same run on H200 (no such script) and with attention-DP keep SGLang's 1.
TEST(InferenceValidation, AiConfiguratorSglangRowsTakeTheirScriptsReceiveInterval) {
  const std::string agg = "agg: tp=8 pp=1 attn_dp=1 moe_tp=8 moe_ep=1 batch=64";
  const CsvTable t = inference_rows(
          "AIC-x,z,DeepSeek-R1,671,37,B200,8,8,1,1,gemm=fp8; moe=fp8_block,,sglang 0.5.9,1024,1024,64,server,ttft_ms,300," +
          agg + "\n" + "AIC-x,z,DeepSeek-R1,671,37,B200,8,8,1,1,gemm=fp8; moe=fp8_block,,sglang 0.5.9,1024,1024,4,server,ttft_ms,180," +
          agg + "\n" + "AIC-x,z,DeepSeek-R1,671,37,H200-SXM,8,8,1,1,gemm=fp8; moe=fp8_block,,sglang 0.5.9,1024,1024,64,server,ttft_ms,300," +
          agg + "\n" + "AIC-x,z,DeepSeek-R1,671,37,B200,8,8,1,1,gemm=fp8; moe=fp8_block,,trtllm,1024,1024,64,server,ttft_ms,300," +
          agg + "\n");
  std::vector<SkippedRow> skipped;
  const auto cases = map_inference_cases(t, Catalog::load({}), skipped);
  ASSERT_EQ(cases.size(), 4u);
  EXPECT_EQ(cases[0].workload.scheduler_recv_interval, 30);
  EXPECT_EQ(cases[1].workload.scheduler_recv_interval, 10);
  EXPECT_EQ(cases[2].workload.scheduler_recv_interval, 1);
  EXPECT_EQ(cases[3].workload.scheduler_recv_interval, 1);  // TensorRT-LLM: no such flag
  // The interval delays the first token only: the TTFT grows, nothing else is read from it.
  auto plain = cases[0];
  plain.workload.scheduler_recv_interval = 1;
  EXPECT_GT(evaluate_case(cases[0]).ttft_s, evaluate_case(plain).ttft_s);
}

// Maximum-load rows of trtllm-bench runs (blank concurrency) carry the engine's own batch limits
// (tuning.py's heuristic) and, on the PyTorch backend, its host work per sequence per step; goldens on
// two published small-active MoE figures (TensorRT-LLM perf overview: Qwen3-30B-A3B FP4 on one B200,
// 1000/1000, 25,828 tok/s, v1.0; gpt-oss-120b on one GB200, 1000/1000, 27,198 tok/s, 1.x).
TEST(InferenceValidation, MaximumLoadRowsUseTheEnginesLimitsAndHostWork) {
  const CsvTable t = inference_rows(
          "P,x,Qwen3-30B-A3B,30.5,3.3,B200,1,1,,1,FP4,,\"TensorRT-LLM v1.0 (PyTorch backend, trtllm-bench "
          "throughput)\",1000,1000,,offline,tokens_per_sec_total,25828,\n"
          "P,x,gpt-oss-120b,117,5.1,GB200,1,1,,1,FP4,FP8,\"TensorRT-LLM 1.x (PyTorch backend, trtllm-bench "
          "throughput)\",1000,1000,,offline,tokens_per_sec_per_gpu,27198,\n"
          "C,x,Llama-3.1-8B-Instruct,8,8,H100-SXM,1,1,,1,FP8,FP8,\"TensorRT-LLM v0.17 (TRT engine flow, trtllm-bench)\","
          "128,128,,offline,tokens_per_sec_total,28000,\n");
  std::vector<SkippedRow> skipped;
  const Catalog cat = Catalog::load({});
  const auto cases = map_inference_cases(t, cat, skipped);
  ASSERT_EQ(cases.size(), 3u);
  const double pytorch = engine_params(cat, cases[0].engine).host_per_seq_step_s;
  ASSERT_GT(pytorch, 0.0);
  for (const auto& c : cases) {
    EXPECT_EQ(c.workload.host_per_seq_step_s, engine_params(cat, c.engine).host_per_seq_step_s) << c.engine;
    bool limits = false;
    for (const auto& a : c.assumptions) limits = limits || a.find("trtllm-bench's own limits") != std::string::npos;
    EXPECT_TRUE(limits) << c.model_name;
    EXPECT_GE(c.workload.max_batch_size, 64);
  }
  EXPECT_EQ(cases[0].workload.host_per_seq_step_s, pytorch);
  EXPECT_LT(cases[2].workload.host_per_seq_step_s, pytorch);  // the C++ runtime's own value
  EXPECT_EQ(cases[2].workload.max_batch_size, 4096);        // tuning.py at 128/128 (engine_limits_test)
  for (size_t i = 0; i < 2; ++i) {
    const double pred = predict_inference_case(cases[i]);
    EXPECT_LT(std::abs(pred / cases[i].reported - 1), 0.25) << cases[i].model_name << " " << pred;
  }
}

// EP wider than the attention group is modelled as stated (attention-DP over the EP ranks) when
// attention is not also tensor-parallel, else skipped with the reason (never clamped to tp).
TEST(InferenceValidation, ExpertParallelAsStated) {
  const CsvTable t = inference_rows("E,x,Qwen3-235B-A22B,235,22,B200,8,1,8,1,FP4,FP8,sglang,1024,1024,64,server,"
                                        "tpot_ms,20,\n"
                                        "E,x,Qwen3-235B-A22B,235,22,B200,8,2,8,1,FP4,FP8,sglang,1024,1024,64,server,"
                                        "tpot_ms,20,\n");
  std::vector<SkippedRow> skipped;
  const auto cases = map_inference_cases(t, Catalog::load({}), skipped);
  ASSERT_EQ(skipped.size(), 1u);  // tp 2 inside ep 8
  EXPECT_NE(skipped[0].reason.find("wider than tp 2"), std::string::npos) << skipped[0].reason;
  ASSERT_EQ(cases.size(), 1u);
  EXPECT_EQ(cases[0].parallel.tp, 8);
  EXPECT_EQ(cases[0].parallel.ep, 8);
  EXPECT_TRUE(cases[0].parallel.attention_dp);
  EXPECT_GT(predict_inference_case(cases[0]), 0);
}

// A KV dtype the source's recipe sets per generation (TensorRT-LLM's gpt-oss recipe: FP8 on Blackwell,
// "auto" on Hopper, the checkpoint's BF16) is read from the notes where precision_kv is blank; twice the
// KV bytes hold half the sequences, so the Hopper row's maximum load serves fewer tokens.
TEST(InferenceValidation, NotesKvDtypePerGeneration) {
  const std::string fw = "\"TensorRT-LLM 1.x (PyTorch backend, trtllm-bench throughput)\"";
  const std::string notes = "\"GPT-OSS: KV fp8 on Blackwell (\"\"Hopper: use auto\"\"), MoE CUTLASS (Hopper TRITON)\"";
  const CsvTable t = inference_rows("P,x,gpt-oss-20b,21,3.6,H100-SXM,1,1,,1,FP8,," + fw +
                                        ",1024,8192,,offline,tokens_per_sec_per_gpu,5000," + notes + "\n" +
                                        "P,x,gpt-oss-20b,21,3.6,B200,1,1,,1,FP4,," + fw +
                                        ",1024,8192,,offline,tokens_per_sec_per_gpu,5000," + notes + "\n");
  std::vector<SkippedRow> skipped;
  const auto cases = map_inference_cases(t, Catalog::load({}), skipped);
  ASSERT_EQ(cases.size(), 2u);
  EXPECT_EQ(cases[0].workload.kv_bytes_per_element, 2.0);  // Hopper: auto = BF16
  EXPECT_EQ(cases[1].workload.kv_bytes_per_element, 1.0);  // Blackwell: FP8
  bool said = false;
  for (const auto& a : cases[0].assumptions) said = said || a.find("'auto'") != std::string::npos;
  EXPECT_TRUE(said);
  auto fp8_kv = cases[0];
  fp8_kv.workload.kv_bytes_per_element = 1.0;
  EXPECT_LT(predict_inference_case(cases[0]), predict_inference_case(fp8_kv));
}

// A Triton run of N requests ("(500 requests)"): never more than N in flight, and the throughput it
// reports is N x osl over the run's wall time (the last request's start plus its latency), so it stays
// below both the offered rate and the capacity and approaches the smaller of them as N grows. Golden:
// TensorRT-LLM perf overview (v0.17 page, v0.14 Triton table), Llama 3.1 70B BF16 on 4 H100, 202/214,
// 32 requests/s offered: 3,003 output tokens/s achieved (14 requests/s).
TEST(InferenceValidation, FiniteRunThroughput) {
  const CsvTable t = inference_rows("T,y,Llama-3.1-70B-Instruct,70,70,H100-SXM,4,4,,1,BF16,,TensorRT-LLM v0.14 via "
                                        "Triton tensorrtllm_backend (500 requests),202,214,,server,tokens_per_sec_total,"
                                        "3003,request_rate_qps=32\n"
                                        "T,y,Llama-3.1-70B-Instruct,70,70,H100-SXM,4,4,,1,BF16,,TensorRT-LLM v0.14 via "
                                        "Triton tensorrtllm_backend (500 requests),202,214,,server,tokens_per_sec_total,"
                                        "3459,request_rate_qps=INF\n");
  std::vector<SkippedRow> skipped;
  const auto cases = map_inference_cases(t, Catalog::load({}), skipped);
  ASSERT_EQ(cases.size(), 2u);
  const double osl = double(cases[0].workload.osl);
  double previous = 0;
  for (long long n : {50LL, 500LL, 5000LL, 50000LL}) {
    auto c = cases[0];
    c.requests_in_run = n;
    const InferenceResult r = evaluate_case(c);
    EXPECT_LE(r.concurrency, n);
    EXPECT_LE(r.tokens_per_s_total, 32.0 * osl * (1 + 1e-9)) << n;
    EXPECT_LE(r.tokens_per_s_total, double(n) * osl / (double(n - 1) / 32.0) * (1 + 1e-9)) << n;
    EXPECT_GE(r.tokens_per_s_total, previous * (1 - 1e-9)) << n;  // longer runs: less ramp-down per request
    previous = r.tokens_per_s_total;
  }
  for (const auto& c : cases) {
    const InferenceResult r = evaluate_case(c);
    EXPECT_LE(r.concurrency, c.requests_in_run);
  }
  const double pred = predict_inference_case(cases[0]);
  EXPECT_LT(std::abs(pred / cases[0].reported - 1), 0.25) << pred;
}

// AIConfigurator layouts: a blank attn_dp is what its layout rule (tp x attn_dp = moe_tp x moe_ep) and
// its num_gpus formula imply, stated in the row's assumptions; layouts no engine runs as stated (a TP
// that does not divide the heads) is skipped with that reason; int4 weight-only rows read as w4a16.
TEST(InferenceValidation, AiConfiguratorLayoutsAsTheNotesImply) {
  const CsvTable t = inference_rows(
          "AIC-x,z,Qwen3-235B-A22B-FP8,,,H200-SXM,1,1,1,1,gemm=fp8; moe=fp8,,vllm 0.12.0,1800,450,9,server,tpot_ms,"
          "40,agg: tp=1 pp=1 attn_dp= moe_tp=2 moe_ep=1 batch=9; num_gpus derived with AIC formula "
          "workers*tp*pp*attn_dp\n"
          "AIC-x,z,Qwen3-235B-A22B-FP8,,,H200-SXM,2,2,1,1,gemm=fp8; moe=fp8,,vllm 0.12.0,1800,450,9,server,tpot_ms,"
          "40,agg: tp=2 pp=1 attn_dp= moe_tp=1 moe_ep=2 batch=9\n"
          "AIC-x,z,DeepSeek-R1,671,37,GB200,36,36,1,1,gemm=nvfp4; moe=nvfp4,,trtllm,1024,1024,32,server,tpot_ms,"
          "8.4,agg: tp=36 pp=1 attn_dp=1 moe_tp=36 moe_ep=1 batch=32\n"
          "AIC-x,z,Kimi-K2.5,,,B200,8,8,1,1,gemm=int4_wo; moe=int4_wo,,trtllm,1024,1024,16,server,tpot_ms,"
          "20,agg: tp=8 pp=1 attn_dp=1 moe_tp=8 moe_ep=1 batch=16\n");
  std::vector<SkippedRow> skipped;
  const auto cases = map_inference_cases(t, Catalog::load({}), skipped);
  ASSERT_EQ(cases.size(), 3u);
  EXPECT_EQ(cases[0].workload.num_gpus, 2);
  EXPECT_EQ(cases[0].parallel.tp, 2);
  EXPECT_EQ(cases[0].parallel.ep, 1);  // experts split moe_tp 2 ways
  EXPECT_TRUE(cases[0].parallel.attention_dp);
  bool said = false;
  for (const auto& a : cases[0].assumptions) said = said || a.find("attn_dp blank: 2") != std::string::npos;
  EXPECT_TRUE(said);
  EXPECT_GT(predict_inference_case(cases[0]), 0);
  EXPECT_EQ(cases[1].workload.num_gpus, 2);  // tp 2 x attn_dp 1 = moe_ep 2: nothing implied
  EXPECT_FALSE(cases[1].parallel.attention_dp);
  ASSERT_EQ(skipped.size(), 1u);
  EXPECT_NE(skipped[0].reason.find("does not divide the 128 attention heads"), std::string::npos) << skipped[0].reason;
  // Kimi K2.5's INT4 checkpoint: 4-bit weights, BF16 GEMMs, BF16 KV, said in the assumptions.
  EXPECT_EQ(cases[2].workload.weight_precision, Precision::w4a16);
  EXPECT_EQ(cases[2].workload.kv_bytes_per_element, 2.0);
  bool read = false;
  for (const auto& a : cases[2].assumptions) read = read || a.find("read as w4a16") != std::string::npos;
  EXPECT_TRUE(read);
  EXPECT_GT(predict_inference_case(cases[2]), 0);
}

// An AIConfigurator aggregated row with more clients than its worker's batch on one worker's GPUs
// leaves its deployment open (workers its num_gpus took as one, or a cap that queues the rest): not
// scored, with the reason. Clients = batch x attn_dp is one worker, and a batch counted over the
// stated attention ranks still reads so where the single-node convention narrows them (attn_dp 64
// read as TP 8 x EP 8 on one node).
TEST(InferenceValidation, AiConfiguratorWorkersBeyondTheBatchAreNotGuessed) {
  const CsvTable t = inference_rows(
      "AIC-x,z,Qwen3-32B,32,32,GB200,2,2,1,1,gemm=nvfp4,,trtllm 1.3.0rc5,15000,500,416,server,tpot_ms,13.7,"
      "agg: tp=2 pp=1 attn_dp=1 moe_tp=1 moe_ep=1 batch=13; num_gpus derived with AIC formula workers*tp*pp*attn_dp\n"
      "AIC-x,z,Qwen3-32B,32,32,GB200,2,2,1,1,gemm=nvfp4,,trtllm 1.3.0rc5,15000,500,13,server,tpot_ms,13.7,"
      "agg: tp=2 pp=1 attn_dp=1 moe_tp=1 moe_ep=1 batch=13\n"
      "AIC-x,z,DeepSeek-R1,671,37,B200,64,1,1,1,gemm=fp8; moe=fp8_block,,trtllm 1.2.0rc6.post3,1024,1024,64,server,"
      "tpot_ms,15.4,agg: tp=1 pp=1 attn_dp=64 moe_tp=8 moe_ep=8 batch=1\n");
  std::vector<SkippedRow> skipped;
  const auto cases = map_inference_cases(t, Catalog::load({}), skipped);
  ASSERT_EQ(skipped.size(), 1u);
  EXPECT_EQ(skipped[0].row, 0u);
  EXPECT_NE(skipped[0].reason.find("batch 13 x attn_dp 1 sequences but the row has 416 clients"), std::string::npos)
      << skipped[0].reason;
  EXPECT_NE(skipped[0].reason.find("not stated: not guessed"), std::string::npos);
  ASSERT_EQ(cases.size(), 2u);
  EXPECT_EQ(cases[0].workload.concurrency, 13);
  EXPECT_EQ(cases[1].workload.num_gpus, 8);  // TP 8 x EP 8 on one node, 64 clients
  EXPECT_EQ(cases[1].workload.concurrency, 64);
}

// AIConfigurator's CSV exports of InferenceX's disaggregated runs state the pools' widths but not the
// worker counts: read with the one deployment InferenceX's sweep in force on the run's date lists for
// them (data/serving/inferencex_sweep.yaml), its clients as the recipe body it names ran them (256 H200
// clients: the MTP recipe "c256_ctx3_gen1"; the non-MTP "c256_ctx5_gen3" ran 768); where MTP and non-MTP
// entries both match (GB300's twins at 4 clients), not guessed; a source whose runs are not InferenceX's
// is not read so.
TEST(InferenceValidation, AiConfiguratorRowsWithoutWorkersReadInferenceXsSweep) {
  const std::string pools =
      "prefill: workers= tp=8 pp=1 attn_dp=1 moe_tp=1 moe_ep=8 bs=; decode: workers= tp=8 pp=1 attn_dp=1 moe_tp=1 "
      "moe_ep=8 bs=; num_gpus derived with AIC formula workers*tp*pp*attn_dp\n";
  const CsvTable t = inference_rows(
      "AIC-silicon-sample,z,DeepSeek-R1,671,37,GB200,0,,,,gemm=nvfp4; moe=nvfp4,,trtllm 0.8.1.post2,1024,8192,2048,"
      "server,tpot_ms,17.439,measured=2026-03-23T13:00:07Z; disagg: prefill: workers= tp=4 pp=1 attn_dp=1 moe_tp=1 "
      "moe_ep=4 bs=; decode: workers= tp=32 pp=1 attn_dp=1 moe_tp=8 moe_ep=4 bs=; num_gpus derived with AIC formula "
      "workers*tp*pp*attn_dp\n"
      "AIC-silicon-sample,z,DeepSeek-R1,671,37,GB300,0,,,,gemm=fp8; moe=fp8,,trtllm 0.8.1.post2,1024,8192,4,server,"
      "tpot_ms,7.531,measured=2026-02-07T19:53:37Z; disagg: prefill: workers= tp=4 pp=1 attn_dp=1 moe_tp=1 moe_ep=4 "
      "bs=; decode: workers= tp=8 pp=1 attn_dp=1 moe_tp=2 moe_ep=4 bs=; num_gpus derived with AIC formula "
      "workers*tp*pp*attn_dp\n"
      "AIC-silicon-sample,z,DeepSeek-R1,671,37,H200-SXM,0,,,,gemm=fp8; moe=fp8,,trtllm 0.8.1.post1,8192,1024,256,"
      "server,ttft_ms,2477.354,measured=2026-03-23T13:00:07Z; disagg: " + pools +
      "Other-source,z,DeepSeek-R1,671,37,H200-SXM,0,,,,gemm=fp8; moe=fp8,,trtllm 0.8.1.post1,8192,1024,256,"
      "server,ttft_ms,2477.354,measured=2026-03-23T13:00:07Z; disagg: " + pools);
  std::vector<SkippedRow> skipped;
  const auto cases = map_inference_cases(t, Catalog::load({}), skipped);
  ASSERT_EQ(cases.size(), 2u);
  const InferenceCase& c = cases[0];
  EXPECT_EQ(c.mode, InferenceMode::disaggregated);
  EXPECT_EQ(c.workload.num_gpus, 36);
  EXPECT_EQ(c.disagg.prefill_gpus, 4);
  EXPECT_TRUE(c.disagg.decode.attention_dp);
  EXPECT_EQ(c.disagg.decode.ep, 32);
  EXPECT_EQ(c.disagg.decode_max_batch, 64);
  EXPECT_TRUE(inference_rows_testing::row_says(c, "deployment from InferenceX's sweep"))
      << fmt::format("{}", fmt::join(c.assumptions, " | "));
  const InferenceCase& h = cases[1];
  EXPECT_EQ(h.workload.num_gpus, 32);  // 3 prefill and 1 decode worker of 8 H200s
  EXPECT_EQ(h.disagg.prefill_gpus, 24);
  EXPECT_EQ(h.spec_decode, "mtp");
  // ... and the decode side of that recipe's body, as InferenceX's own rows of the run take it.
  EXPECT_TRUE(inference_rows_testing::row_says(h, "decode recipe (NVIDIA/srt-slurm"))
      << fmt::format("{}", fmt::join(h.assumptions, " | "));
  EXPECT_TRUE(inference_rows_testing::row_says(h, "prefill worker limits of the run's recipe"))
      << fmt::format("{}", fmt::join(h.assumptions, " | "));
  EXPECT_GT(h.disagg.prefill_max_tokens, 0);
  ASSERT_EQ(skipped.size(), 2u);
  EXPECT_NE(skipped[0].reason.find("2 InferenceX sweep entries in force on 2026-02-07"), std::string::npos)
      << skipped[0].reason;
  EXPECT_NE(skipped[0].reason.find("(1 with MTP, 1 without): not guessed"), std::string::npos);
  EXPECT_EQ(skipped[1].reason.find("InferenceX sweep"), std::string::npos) << skipped[1].reason;
  EXPECT_NE(skipped[1].reason.find("leaves prefill workers, decode workers, decode bs blank"), std::string::npos);
}

// AIConfigurator's dump writes the December 2025 GB200 Dynamo + TensorRT-LLM runs' pools as the
// deployment's GPU total ("tp=36 attn_dp=1 moe_tp=36 moe_ep=1" on both): a TP the heads do not divide,
// read as the sweep entry in force with 36 GPUs and the run's clients (564 = 141 on each of 4 decode
// workers); a total that is a TP the model runs stays the stated pools.
TEST(InferenceValidation, AiConfiguratorDeploymentTotalsReadAsTheEntryOfThatManyGpus) {
  const auto row = [](int tp, int clients) {
    return fmt::format(
        "AIC-silicon-sample,z,DeepSeek-R1,671,37,GB200,0,,,,gemm=nvfp4; moe=nvfp4,,trtllm,1024,1024,{},server,"
        "tpot_ms,20.0,measured=2025-12-05T00:00:00.000Z; disagg: prefill: workers= tp={} pp=1 attn_dp=1 moe_tp={} "
        "moe_ep=1 bs=; decode: workers= tp={} pp=1 attn_dp=1 moe_tp={} moe_ep=1 bs=; num_gpus derived with AIC "
        "formula workers*tp*pp*attn_dp\n",
        clients, tp, tp, tp, tp);
  };
  const CsvTable t = inference_rows(row(36, 564) + row(16, 564));
  std::vector<SkippedRow> skipped;
  const auto cases = map_inference_cases(t, Catalog::load({}), skipped);
  ASSERT_EQ(cases.size(), 1u);
  const InferenceCase& c = cases[0];
  EXPECT_EQ(c.workload.num_gpus, 36);
  EXPECT_EQ(c.disagg.prefill_gpus, 4);
  EXPECT_EQ(c.disagg.decode.tp, 8);
  EXPECT_TRUE(inference_rows_testing::row_says(c, "read as the deployment's 36 GPUs"))
      << fmt::format("{}", fmt::join(c.assumptions, " | "));
  ASSERT_EQ(skipped.size(), 1u);
  EXPECT_EQ(skipped[0].reason.find("read as the deployment"), std::string::npos) << skipped[0].reason;
}

// AIConfigurator's exports do not record MTP: a single-node run of InferenceX's takes it from the sweep
// entries of its date that ran its GPU, engine, image, lengths, TP and clients, set as InferenceX's own
// rows of the engine set it (TensorRT-LLM 3 drafts; SGLang on NVIDIA 2, with its speculative worker's host
// work where the script runs spec v1), and says so where they ran it without.
TEST(InferenceValidation, AiConfiguratorRowsTakeMtpFromInferenceXsSweep) {
  const CsvTable t = inference_rows(
      "AIC-silicon-sample,z,DeepSeek-R1,671,37,B200,8,8,8,1,gemm=nvfp4; moe=nvfp4,,trtllm 1.2.0rc6.post3,1024,1024,32,"
      "server,tpot_ms,8.929,measured=2026-02-06T17:21:58Z; image=nvcr.io#nvidia/tensorrt-llm/release:1.2.0rc6.post3; "
      "agg: tp=8 pp=1 attn_dp=1 moe_tp=1 moe_ep=8 batch=32\n"
      "AIC-silicon-sample,z,DeepSeek-R1,671,37,B200,8,8,1,1,gemm=fp8; moe=fp8_block,,sglang 0.5.9,1024,8192,256,server,"
      "tpot_ms,35.185,measured=2026-03-25T16:34:14Z; image=lmsysorg/sglang:v0.5.9-cu130; agg: tp=8 pp=1 attn_dp=1 "
      "moe_tp=8 moe_ep=1 batch=256\n"
      "AIC-silicon-sample,z,DeepSeek-R1,671,37,B200,4,4,1,1,gemm=nvfp4; moe=nvfp4,,trtllm 1.2.0rc6.post2,1024,8192,16,"
      "server,tpot_ms,11.967,measured=2026-02-03T17:34:19Z; image=nvcr.io#nvidia/tensorrt-llm/release:1.2.0rc6.post2; "
      "agg: tp=4 pp=1 attn_dp=1 moe_tp=4 moe_ep=1 batch=16\n"
      // Entries with and without MTP ran it on its date in this image; the push whose sweep started 3 s
      // before the run ran only the MTP keys (InferenceX commit bf3456727ff5).
      "AIC-silicon-sample,z,DeepSeek-R1,671,37,H200-SXM,8,8,8,1,gemm=fp8; moe=fp8,,trtllm 1.1.0rc2.post2,1024,8192,32,"
      "server,tpot_ms,15.822,measured=2026-01-14T22:26:21Z; image=nvcr.io#nvidia/tensorrt-llm/release:1.1.0rc2.post2; "
      "agg: tp=8 pp=1 attn_dp=1 moe_tp=1 moe_ep=8 batch=32\n"
      "AIC-silicon-sample,z,DeepSeek-R1,671,37,H200-SXM,8,8,8,1,gemm=fp8; moe=fp8,,trtllm 1.1.0rc2.post2,1024,8192,32,"
      "server,tpot_ms,15.822,measured=2026-01-14T00:00:00.000Z; image=nvcr.io#nvidia/tensorrt-llm/release:1.1.0rc2.post2; "
      "agg: tp=8 pp=1 attn_dp=1 moe_tp=1 moe_ep=8 batch=32\n");
  std::vector<SkippedRow> skipped;
  const auto cases = map_inference_cases(t, Catalog::load({}), skipped);
  ASSERT_EQ(cases.size(), 5u);
  EXPECT_EQ(cases[0].spec_decode, "mtp");
  EXPECT_EQ(cases[0].workload.mtp_draft_tokens, 3);
  EXPECT_TRUE(inference_rows_testing::row_says(cases[0], "as dsr1-fp4-b200-trt-mtp"));
  EXPECT_EQ(cases[1].spec_decode, "mtp");
  EXPECT_EQ(cases[1].workload.mtp_draft_tokens, 2);
  EXPECT_TRUE(inference_rows_testing::row_says(cases[1], "SGLang's speculative worker in series with the GPU"));
  EXPECT_NE(cases[2].spec_decode, "mtp");  // the non-MTP config's image
  EXPECT_TRUE(inference_rows_testing::row_says(cases[2], "no MTP: InferenceX's sweep entries"));
  EXPECT_EQ(cases[3].spec_decode, "mtp");
  EXPECT_TRUE(inference_rows_testing::row_says(cases[3], "the push of commit bf3456727ff5 at 2026-01-14T22:26:18Z"));
  EXPECT_NE(cases[4].spec_decode, "mtp");  // a day's stamp names no push: both kinds ran that day, as written
}

// The serving fit improves its own rows and keeps every parameter in range (a small slice of the
// AIConfigurator file so that the test stays fast).
TEST(InferenceValidation, CalibrateInferenceImprovesTheFit) {
  const std::string path = std::string(GPUPLAN_SHARED_DATA_DIR) + "/benchmarks/aiconfigurator-silicon-sample-ttft-tpot.csv";
  if (!std::filesystem::exists(path)) GTEST_SKIP() << "shared/data not present";
  const CsvTable t = read_csv_file(path, "--dataset");
  std::vector<SkippedRow> skipped;
  auto all = map_inference_cases(t, Catalog::load({}), skipped);
  std::vector<InferenceCase> cases;
  for (auto& c : all)
    if (c.generation == "hopper" && c.model_name == "Llama-3.1-8B-Instruct" && c.metric == "tpot_ms") cases.push_back(c);
  ASSERT_GE(cases.size(), 50u);
  CalibrationOptions o;
  o.rounds = 2;
  o.grid = 7;
  o.metrics = {"tpot_ms"};
  const auto fits = calibrate_inference(cases, o);
  ASSERT_EQ(fits.size(), 1u);
  EXPECT_LE(fits[0].loss_after, fits[0].loss_before);
  EXPECT_GE(fits[0].after.infer_hbm_eff, 0.40);
  EXPECT_LE(fits[0].after.infer_hbm_eff, 0.95);
  EXPECT_GE(fits[0].after.infer_step_overhead_s, 1e-4);
  EXPECT_LE(fits[0].after.infer_step_overhead_s, 1e-2);
  // Training parameters are not the serving fit's to change.
  EXPECT_DOUBLE_EQ(fits[0].after.gemm_max, fits[0].before.gemm_max);
  EXPECT_DOUBLE_EQ(fits[0].after.hbm_eff, fits[0].before.hbm_eff);
}

}  // namespace
}  // namespace gpuplan
