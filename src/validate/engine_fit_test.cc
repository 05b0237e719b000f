// The per-engine serving parameters (data/catalog/serving_engines.yaml) are what calibrate_engines()
// fits on the InferenceX file: the data is reproducible from the code, and the fit improves its rows.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>

#include "catalog/catalog.h"
#include "core/csv.h"
#include "inference/engine.h"
#include "validate/calibrate.h"
#include "validate/inference_cases.h"

namespace gpuplan {
namespace {

const std::string kInferenceXFile = std::string(GPUPLAN_SHARED_DATA_DIR) + "/benchmarks/inferencex-deepseek-r1.csv";

TEST(EngineFit, CatalogValuesAreTheFitOfTheInferenceXFile) {
  if (!std::filesystem::exists(kInferenceXFile)) GTEST_SKIP() << kInferenceXFile << " not present";
  const Catalog catalog = Catalog::load({});
  std::vector<SkippedRow> skipped;
  auto cases = map_inferencex_cases(read_csv_file(kInferenceXFile, "--dataset"), catalog, skipped);
  const auto fits = calibrate_engines(cases, catalog);
  ASSERT_GE(fits.size(), 6u);  // six engines and the MTP acceptance
  for (const auto& f : fits) {
    std::printf("%-22s fit %4zu held out %5zu  overhead %.3f -> %.3f s  mtp %.2f -> %.2f  median APE %.1f%% -> %.1f%%\n",
                f.before.name.c_str(), f.fit_rows, f.held_out_rows, f.before.request_overhead_s,
                f.after.request_overhead_s, f.before.mtp_accept.value_or(0), f.after.mtp_accept.value_or(0),
                f.median_ape_before, f.median_ape_after);
    EXPECT_GT(f.fit_rows, 0u) << f.before.name;
    EXPECT_GT(f.held_out_rows, 0u) << f.before.name << ": something is held out";
    // The catalog holds the fitted figures (refit when the physics moves them by more than 10 ms /
    // 0.02: `calibrate_engines`, then data/catalog/serving_engines.yaml).
    EXPECT_NEAR(f.after.request_overhead_s, f.before.request_overhead_s, 0.01) << f.before.name;
    if (f.mtp_host_fit) {  // the SGLang worker's MTP host work: the catalog holds the fit
      EXPECT_NEAR(f.after.mtp_host_step_s, f.before.mtp_host_step_s, 0.5e-3) << f.before.name;
      EXPECT_NEAR(f.after.mtp_host_per_seq_step_s, f.before.mtp_host_per_seq_step_s, 10e-6) << f.before.name;
      EXPECT_NEAR(f.after.mtp_eager_draft_extend_s, f.before.mtp_eager_draft_extend_s, 0.5e-3) << f.before.name;
      EXPECT_LE(f.median_ape_after, 25.0) << "the fit rows' median error";
    }
    if (f.before.mtp_accept) {
      EXPECT_NEAR(*f.after.mtp_accept, *f.before.mtp_accept, 0.02) << f.before.name;
      EXPECT_LE(f.median_ape_after, f.median_ape_before + 1e-9) << "the grid includes the starting value";
    }
  }
}

// The front ends fitted at low concurrency also help the held-out TTFTs at higher concurrency (where
// queues and waves add to them): the median error with them is below that without any.
TEST(EngineFit, FrontEndsHelpTheHeldOutTtfts) {
  if (!std::filesystem::exists(kInferenceXFile)) GTEST_SKIP() << kInferenceXFile << " not present";
  const Catalog catalog = Catalog::load({});
  std::vector<SkippedRow> skipped;
  const auto cases = map_inferencex_cases(read_csv_file(kInferenceXFile, "--dataset"), catalog, skipped);
  std::vector<double> with, without;
  for (const auto& c : cases) {
    if (c.metric != "ttft_ms" || c.workload.concurrency <= 8) continue;
    InferenceCase bare = c;
    bare.workload.request_overhead_s = 0;
    with.push_back(std::abs(predict_inference_case(c) / c.reported - 1));
    without.push_back(std::abs(predict_inference_case(bare) / c.reported - 1));
  }
  ASSERT_GT(with.size(), 100u);
  std::sort(with.begin(), with.end());
  std::sort(without.begin(), without.end());
  std::printf("held-out TTFT median APE: %.1f%% with the front ends, %.1f%% without\n", 100 * with[with.size() / 2],
              100 * without[without.size() / 2]);
  EXPECT_LT(with[with.size() / 2], without[without.size() / 2]);
}

TEST(EngineFit, FrontEndMovesTtftOnlyAndByItsValue) {
  if (!std::filesystem::exists(kInferenceXFile)) GTEST_SKIP() << kInferenceXFile << " not present";
  const Catalog catalog = Catalog::load({});
  std::vector<SkippedRow> skipped;
  auto cases = map_inferencex_cases(read_csv_file(kInferenceXFile, "--dataset"), catalog, skipped);
  int checked = 0;
  for (const auto& c : cases) {
    if (c.metric != "ttft_ms" || c.workload.concurrency > 8 || checked > 20) continue;
    // Where the decode recipe's batch cap holds fewer sequences than the clients, the queue before
    // decode absorbs the front end (a client in the front end is one fewer waiting): not this check.
    const long long ranks = c.disagg.decode.attention_dp ? c.disagg.decode.tp : 1;
    if (c.disagg.decode_max_batch > 0 && c.disagg.decode.tp > 0 &&
        c.disagg.decode_gpus / c.disagg.decode.tp * ranks * c.disagg.decode_max_batch < c.workload.concurrency)
      continue;
    const EngineParams e = engine_params(catalog, c.framework);
    ASSERT_FALSE(e.name.empty()) << c.framework;
    EXPECT_DOUBLE_EQ(c.workload.request_overhead_s, e.request_overhead_s);
    InferenceCase bare = c;
    bare.workload.request_overhead_s = 0;
    // (closed loop: the longer cycle lowers the load a little, so nearly, not exactly, the value; the
    // prefill pool's batched steps, prefill_pool_sojourn_s, make its time follow the load more: 3%)
    EXPECT_NEAR(predict_inference_case(c) - predict_inference_case(bare), e.request_overhead_s * 1e3,
                0.03 * e.request_overhead_s * 1e3);
    ++checked;
  }
  EXPECT_GT(checked, 0);
}

// The engines' host work per sequence per step (serving_engines.yaml) is what calibrate_engine_host()
// fits on inference.csv's maximum-load rows of two source families, TensorRT-LLM 1.x's perf overview
// (PyTorch backend) and v0.17's (C++ runtime); the PyTorch backend's v0.20 and v1.0 tables are held
// out, and their p90 error is lower with the fitted value than without host work.
TEST(EngineFit, HostWorkIsTheFitOfTheMaximumLoadRows) {
  const std::string file = std::string(GPUPLAN_SHARED_DATA_DIR) + "/benchmarks/inference.csv";
  if (!std::filesystem::exists(file)) GTEST_SKIP() << file << " not present";
  const Catalog catalog = Catalog::load({});
  std::vector<SkippedRow> skipped;
  auto cases = map_inference_cases(read_csv_file(file, "--dataset"), catalog, skipped);
  const auto fits =
      calibrate_engine_host(cases, catalog, {"TRTLLM-perf-overview-latest", "TRTLLM-perf-overview-v0.17"});
  ASSERT_EQ(fits.size(), 2u);  // tensorrt-llm-pytorch, tensorrt-llm
  for (const auto& f : fits) {
    std::printf("%-22s fit %4zu held out %4zu  host %.0f -> %.0f us  median APE %.1f%% -> %.1f%%\n",
                f.before.name.c_str(), f.fit_rows, f.held_out_rows, f.before.host_per_seq_step_s * 1e6,
                f.after.host_per_seq_step_s * 1e6, f.median_ape_before, f.median_ape_after);
    EXPECT_GT(f.fit_rows, 50u) << f.before.name;
    // The catalog holds the fitted figures (refit when the physics moves them by more than 2 us).
    EXPECT_NEAR(f.after.host_per_seq_step_s, f.before.host_per_seq_step_s, 2e-6) << f.before.name;
  }
  std::vector<double> with, without;
  for (auto& c : cases) {
    const bool held = c.source_id == "TRTLLM-perf-overview-v0.20" || c.source_id == "TRTLLM-perf-overview-v1.0";
    if (!held || c.metric.rfind("tokens_per_sec", 0) != 0 || c.workload.concurrency != 0) continue;
    ASSERT_GT(c.workload.host_per_seq_step_s, 0.0) << c.engine;
    with.push_back(std::abs(predict_inference_case(c) / c.reported - 1));
    InferenceCase bare = c;
    bare.workload.host_per_seq_step_s = 0;
    without.push_back(std::abs(predict_inference_case(bare) / c.reported - 1));
  }
  ASSERT_GT(with.size(), 200u);
  std::sort(with.begin(), with.end());
  std::sort(without.begin(), without.end());
  const size_t p90 = static_cast<size_t>(0.9 * double(with.size() - 1) + 0.5);
  std::printf("held-out v0.20/v1.0 maximum-load throughput p90 APE: %.1f%% with host work, %.1f%% without\n",
              100 * with[p90], 100 * without[p90]);
  EXPECT_LT(with[p90], without[p90]);
}

// The older releases' MoE kernel shares (serving_engines.yaml `releases`) are what calibrate_engine_releases()
// fits on inference.csv at the newest release's host work, and they improve each generation's rows when
// fitted on the other generation's.
TEST(EngineFit, ReleaseSharesAreTheFitOfTheirReleasesRows) {
  const std::string file = std::string(GPUPLAN_SHARED_DATA_DIR) + "/benchmarks/inference.csv";
  if (!std::filesystem::exists(file)) GTEST_SKIP() << file << " not present";
  const Catalog catalog = Catalog::load({});
  std::vector<SkippedRow> skipped;
  auto cases = map_inference_cases(read_csv_file(file, "--dataset"), catalog, skipped);
  calibrate_engine_host(cases, catalog, {"TRTLLM-perf-overview-latest", "TRTLLM-perf-overview-v0.17"});
  const auto fits = calibrate_engine_releases(cases, catalog);
  ASSERT_EQ(fits.size(), 2u);  // tensorrt-llm-pytorch 0.20 and 1.0
  for (const auto& f : fits) {
    std::printf("%s %s: share %.2f -> %.2f on %zu rows, %.1f%% -> %.1f%%; each generation left out: %zu rows, "
                "%.1f%% -> %.1f%%\n",
                f.engine.c_str(), f.after.release.c_str(), f.before.moe_kernel_share, f.after.moe_kernel_share,
                f.fit_rows, f.median_ape_before, f.median_ape_after, f.held_out_rows, f.held_out_ape_before,
                f.held_out_ape_after);
    EXPECT_EQ(f.engine, "tensorrt-llm-pytorch");
    EXPECT_GE(f.fit_rows, 9u);
    EXPECT_NEAR(f.after.moe_kernel_share, f.before.moe_kernel_share, 0.011) << f.after.release;  // the catalog's
    EXPECT_LT(f.median_ape_after, f.median_ape_before);
    if (f.held_out_rows > 0) {
      EXPECT_LT(f.held_out_ape_after, f.held_out_ape_before) << f.after.release;
    }
  }
}

// A share planted on a release's rows is what the fit recovers; the rows of the newest release and of
// dense models are not touched by it.
TEST(EngineFit, ReleaseFitRecoversAPlantedShare) {
  const std::string file = std::string(GPUPLAN_SHARED_DATA_DIR) + "/benchmarks/inference.csv";
  if (!std::filesystem::exists(file)) GTEST_SKIP() << file << " not present";
  const Catalog catalog = Catalog::load({});
  std::vector<SkippedRow> skipped;
  auto cases = map_inference_cases(read_csv_file(file, "--dataset"), catalog, skipped);
  std::vector<InferenceCase> mine;
  for (auto& c : cases) {
    if (framework_release(c.engine) != "1.0" || catalog.find_serving_engine(c.engine)->name != "tensorrt-llm-pytorch")
      continue;
    c.workload.moe_kernel_share = 0.7;
    c.reported = predict_inference_case(c);
    if (c.reported > 0) mine.push_back(c);
  }
  ASSERT_GT(mine.size(), 50u);
  const auto fits = calibrate_engine_releases(mine, catalog);
  ASSERT_EQ(fits.size(), 1u);
  EXPECT_NEAR(fits[0].after.moe_kernel_share, 0.7, 0.011);
  EXPECT_LT(fits[0].median_ape_after, 1.0);
  for (auto c : mine) {
    if (c.model.is_moe()) continue;
    const double at = predict_inference_case(c);
    c.workload.moe_kernel_share = 0.3;
    EXPECT_DOUBLE_EQ(predict_inference_case(c), at) << c.model_name;  // a dense model runs no MoE kernels
  }
}

// A low-concurrency TTFT counts as steady state up to what a request waits behind every other
// client's prompt plus the front-end bound; beyond it (warm-up, a stall) it is not fitted.
TEST(EngineFit, SteadyStateBoundOfALowConcurrencyTtft) {
  EXPECT_FALSE(ttft_beyond_steady_state(0.2, 0.1, 1));
  EXPECT_FALSE(ttft_beyond_steady_state(1.0 + 4 * 0.3 - 1e-6, 0.3, 4));  // at the bound
  EXPECT_TRUE(ttft_beyond_steady_state(1.0 + 4 * 0.3 + 1e-3, 0.3, 4));
  EXPECT_TRUE(ttft_beyond_steady_state(6.3, 0.05, 3));
  // More clients or a slower predicted prefill only widen what a steady state explains.
  for (double ttft : {0.5, 2.0, 8.0})
    for (long long c : {1LL, 2LL, 8LL})
      for (double bare : {0.05, 0.3, 1.0}) {
        if (ttft_beyond_steady_state(ttft, bare, 2 * c)) {
          EXPECT_TRUE(ttft_beyond_steady_state(ttft, bare, c));
        }
        if (ttft_beyond_steady_state(ttft, 2 * bare, c)) {
          EXPECT_TRUE(ttft_beyond_steady_state(ttft, bare, c));
        }
        if (ttft_beyond_steady_state(ttft, bare, c)) {
          EXPECT_TRUE(ttft_beyond_steady_state(2 * ttft, bare, c));
        }
      }
}

// The InferenceX file's Dynamo + TensorRT-LLM points at 3-8 clients with 4-14 s TTFT (their neighbours:
// 0.1-1 s) were beyond any steady state until the decode recipes' batch caps (data/recipes/
// dynamo_trtllm_decode.yaml): H100 TP16 6 clients on 3 one-sequence decode workers queue before
// decode (12.7-14.4 s measured, 11.2-11.3 s predicted). What is left beyond the bound is counted and
// left out of the front-end fit; every other engine's low-concurrency points are steady. Each point
// left out is beyond the bound by its own figures.
TEST(EngineFit, NonSteadyTtftsAreCountedNotFitted) {
  if (!std::filesystem::exists(kInferenceXFile)) GTEST_SKIP() << kInferenceXFile << " not present";
  const Catalog catalog = Catalog::load({});
  std::vector<SkippedRow> skipped;
  auto cases = map_inferencex_cases(read_csv_file(kInferenceXFile, "--dataset"), catalog, skipped);
  size_t not_steady = 0;
  for (const auto& c : cases) {
    if (c.metric != "ttft_ms" || c.workload.concurrency > 8) continue;
    InferenceCase bare = c;
    bare.workload.request_overhead_s = 0;
    if (!ttft_beyond_steady_state(c.reported * 1e-3, predict_inference_case(bare) * 1e-3, c.workload.concurrency))
      continue;
    ++not_steady;
    EXPECT_NE(c.framework.find("Dynamo"), std::string::npos) << c.framework << " row " << c.row;
    EXPECT_GT(c.reported, 3000.0) << "row " << c.row;
  }
  const auto fits = calibrate_engines(cases, catalog);
  size_t counted = 0;
  for (const auto& f : fits) {
    counted += f.not_steady_rows;
    if (f.before.name != "dynamo+tensorrt-llm") {
      EXPECT_EQ(f.not_steady_rows, 0u) << f.before.name;
    }
  }
  EXPECT_EQ(counted, not_steady);
  EXPECT_GE(not_steady, 1u);
  EXPECT_LE(not_steady, 2u);
}

// The grouped MoE GEMM efficiency fit (calibrate_engine_moe_gemm) on the AIConfigurator sample: each
// engine's MoE rows at <= 8 clients fitted, the rows above held out; dense rows never carry it.
// TensorRT-LLM's MoE kernels (CUTLASS / trtllm-gen) are what the generation's GEMM efficiencies were
// fitted with: a lower share only trades its under-predicted TTFT rows against its TPOT rows without
// improving the fit rows (median APE no better), so it is never kept; vLLM's comes out far below it and its held-out
// rows (above 8 clients, disaggregated ones included) confirm it: kept (the catalog's). SGLang's improves
// its held-out rows overall but over-loads its disaggregated prefill pools: not kept
// (docs/inference-model.md, Each engine's MoE GEMM share).
const std::string kAicFile = std::string(GPUPLAN_SHARED_DATA_DIR) + "/benchmarks/aiconfigurator-silicon-sample-ttft-tpot.csv";

TEST(EngineFit, MoeGemmEffFitOnTheAicFile) {
  if (!std::filesystem::exists(kAicFile)) GTEST_SKIP() << kAicFile << " not present";
  const Catalog catalog = Catalog::load({});
  std::vector<SkippedRow> skipped;
  auto cases = map_inference_cases(read_csv_file(kAicFile, "--dataset"), catalog, skipped);
  for (const auto& c : cases) {
    if (!c.model.is_moe()) {
      EXPECT_DOUBLE_EQ(c.workload.moe_gemm_eff, 1.0) << c.model_name;
    }
  }
  // Every engine fitted from the reference's share (the catalog keeps vLLM's fitted one).
  Catalog at_one = catalog;
  at_one.merge_yaml("serving_engines:\n  - name: vllm\n    moe_gemm_eff: 1\n", "test overlay");
  for (auto& c : cases) c.workload.moe_gemm_eff = 1.0;
  const auto fits = calibrate_engine_moe_gemm(cases, at_one);
  bool trt = false, vllm = false, sglang = false;
  for (const auto& f : fits) {
    std::printf("%-22s fit %4zu held out %5zu  moe_gemm_eff %.2f -> %.2f  median APE %.1f%% -> %.1f%%\n",
                f.before.name.c_str(), f.fit_rows, f.held_out_rows, f.before.moe_gemm_eff, f.after.moe_gemm_eff,
                f.median_ape_before, f.median_ape_after);
    EXPECT_GT(f.held_out_rows, 0u) << f.before.name;
    EXPECT_GE(f.after.moe_gemm_eff, 0.10);
    EXPECT_LE(f.after.moe_gemm_eff, 1.0);
    if (f.before.name == "tensorrt-llm") {
      trt = true;
      EXPECT_GE(f.median_ape_after, f.median_ape_before - 0.5);
      EXPECT_FALSE(moe_gemm_share_holds(f));
    }
    if (f.before.name == "vllm") {
      vllm = true;
      EXPECT_LT(f.after.moe_gemm_eff, 0.8);
      EXPECT_LT(f.median_ape_after, f.median_ape_before);
      EXPECT_LT(f.held_out_ape_after, f.held_out_ape_before);
      EXPECT_GT(f.held_out_pool_rows, 0u);
      EXPECT_TRUE(moe_gemm_share_holds(f));
      EXPECT_NEAR(f.after.moe_gemm_eff, catalog.find_serving_engine("vllm")->moe_gemm_eff, 0.011)
          << "the catalog keeps vLLM's fitted share";
    }
    if (f.before.name == "sglang") {
      sglang = true;
      EXPECT_LT(f.held_out_ape_after, f.held_out_ape_before);
      EXPECT_GT(f.held_out_pool_ape_after, f.held_out_pool_ape_before);
      EXPECT_FALSE(moe_gemm_share_holds(f));
    }
  }
  EXPECT_TRUE(trt);
  EXPECT_TRUE(vllm);
  EXPECT_TRUE(sglang);
}

// vLLM's front end (no InferenceX points) on the AIConfigurator file's dense closed-loop TTFT rows at
// <= 8 clients (calibrate_engine_front_end_dense): tens of milliseconds (HTTP server, tokenizer, the
// engine core's queues), the catalog's figure; the engine's MoE rows and the rows above 8 clients held
// out; a name the catalog does not hold is refused naming the option.
TEST(EngineFit, VllmFrontEndOnTheAicFilesDenseRows) {
  if (!std::filesystem::exists(kAicFile)) GTEST_SKIP() << kAicFile << " not present";
  const Catalog catalog = Catalog::load({});
  std::vector<SkippedRow> skipped;
  auto cases = map_inference_cases(read_csv_file(kAicFile, "--dataset"), catalog, skipped);
  const auto fits = calibrate_engine_front_end_dense(cases, catalog, {"vllm"});
  ASSERT_EQ(fits.size(), 1u);
  const EngineFit& f = fits[0];
  std::printf("vllm front end %.4f s on %zu dense rows (%zu held out), median APE %.1f%% -> %.1f%%\n",
              f.after.request_overhead_s, f.fit_rows, f.held_out_rows, f.median_ape_before, f.median_ape_after);
  EXPECT_GE(f.fit_rows, 50u);
  EXPECT_GT(f.held_out_rows, f.fit_rows);
  EXPECT_GT(f.after.request_overhead_s, 0.005);
  EXPECT_LT(f.after.request_overhead_s, 0.1);
  EXPECT_NEAR(f.after.request_overhead_s, catalog.find_serving_engine("vllm")->request_overhead_s, 0.001);
  EXPECT_LE(f.median_ape_after, f.median_ape_before);
  try {
    calibrate_engine_front_end_dense(cases, catalog, {"no-such-engine"});
    FAIL() << "accepted an unknown engine";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("--front-end-engines"), std::string::npos) << e.what();
  }
}

// Golden, AIConfigurator sample row 3384 (vLLM 0.12.0, Qwen3-235B-A22B FP8 on 2 H200, TP2, 8192/100
// nominal, 4 closed-loop clients): mean TTFT 820.5 ms measured. The generation's GEMM efficiency in
// the experts gives 0.58x of it; vLLM's fitted front end and MoE GEMM share (the catalog's, a median over
// the file's models) 0.73x: the miss on this row is the grouped expert GEMMs of an 8K prefill.
TEST(EngineFit, GoldenVllmQwen3MoePrefillTtft) {
  if (!std::filesystem::exists(kAicFile)) GTEST_SKIP() << kAicFile << " not present";
  const Catalog catalog = Catalog::load({});
  std::vector<SkippedRow> skipped;
  const auto cases = map_inference_cases(read_csv_file(kAicFile, "--dataset"), catalog, skipped);
  const InferenceCase* row = nullptr;
  for (const auto& c : cases)
    if (c.row == 3384 && c.metric == "ttft_ms") row = &c;
  ASSERT_TRUE(row);
  ASSERT_EQ(row->model_name, "Qwen3-235B-A22B-FP8");
  ASSERT_EQ(row->parallel.tp, 2);
  ASSERT_EQ(row->workload.concurrency, 4);
  ASSERT_NEAR(row->reported, 820.51, 0.01);
  EXPECT_LT(row->workload.moe_gemm_eff, 0.8);  // the catalog's vLLM share
  const double pred = predict_inference_case(*row);
  InferenceCase reference = *row;
  reference.workload.moe_gemm_eff = 1.0;
  const double base = predict_inference_case(reference);
  std::printf("row 3384 TTFT: measured %.1f ms, predicted %.1f at moe_gemm_eff 1, %.1f at the catalog's %.2f\n",
              row->reported, base, pred, row->workload.moe_gemm_eff);
  EXPECT_LT(base / row->reported, 0.65);
  EXPECT_GT(pred / row->reported, 0.68);
  EXPECT_LT(pred / row->reported, 1.15);
}

// The prefill pools' opening waves (the p99 TTFT cases wave_measures_pool selects) recover a planted
// MoE GEMM share: every Dynamo + SGLang case's figure replaced by the model's own prediction at 0.6,
// the engine's share reset to 1, calibrate_engine_moe_gemm_waves finds 0.6 again for SGLang's kernels
// (the `sglang` entry: Dynamo runs SGLang workers); TensorRT-LLM's engines are the reference and are
// not fitted.
TEST(EngineFit, MoeGemmWaveFitRecoversAPlantedShare) {
  if (!std::filesystem::exists(kInferenceXFile)) GTEST_SKIP() << kInferenceXFile << " not present";
  const Catalog catalog = Catalog::load({});
  std::vector<SkippedRow> skipped;
  auto cases = map_inferencex_cases(read_csv_file(kInferenceXFile, "--dataset"), catalog, skipped, /*p99_ttft=*/true);
  const ServingEngine* sg = catalog.find_serving_engine("Dynamo + SGLang");
  ASSERT_TRUE(sg);
  std::vector<InferenceCase> mine;
  for (auto& c : cases) {
    if (catalog.find_serving_engine(c.framework) != sg) continue;
    c.workload.moe_gemm_eff = 0.6;
    c.reported = predict_inference_case(c);
    c.workload.moe_gemm_eff = 1.0;
    if (c.reported > 0) mine.push_back(c);
  }
  ASSERT_GT(mine.size(), 50u);
  const auto fits = calibrate_engine_moe_gemm_waves(mine, catalog);
  ASSERT_EQ(fits.size(), 1u);
  EXPECT_EQ(fits[0].after.name, "sglang");
  EXPECT_EQ(moe_kernels_owner(catalog, sg), catalog.find_serving_engine("SGLang"));
  EXPECT_EQ(moe_kernels_owner(catalog, catalog.find_serving_engine("SGLang + MoRI")),
            catalog.find_serving_engine("SGLang + MoRI"));
  EXPECT_GE(fits[0].fit_rows, 5u);
  EXPECT_GT(fits[0].held_out_rows, 0u);
  EXPECT_NEAR(fits[0].after.moe_gemm_eff, 0.6, 0.011);
  EXPECT_LT(fits[0].median_ape_after, 1.0);
  for (const auto& c : mine) EXPECT_DOUBLE_EQ(c.workload.moe_gemm_eff, fits[0].after.moe_gemm_eff);
  EXPECT_TRUE(moe_gemm_reference_engine("dynamo+tensorrt-llm"));
  EXPECT_TRUE(moe_gemm_reference_engine("tensorrt-llm"));
  EXPECT_FALSE(moe_gemm_reference_engine("dynamo+sglang"));
}

// The engines' MoE GEMM shares fitted on the InferenceX file's opening waves (`calibrate --engines`,
// at the catalog's front ends) come out well below TensorRT-LLM's for SGLang's kernels on NVIDIA
// (0.40 on the first pass, 0.31 at the fixed point of the chain with the generation fit) and at the
// grid's floor for SGLang + MoRI; the catalog does not keep them (every engine at 1: with them the
// held-out inference.csv latency p90 and the InferenceX TTFT median get worse,
// docs/inference-model.md, "Each engine's MoE GEMM share"). Refit, and revisit, when the physics moves
// the fits out of these ranges.
TEST(EngineFit, MoeGemmWaveFitIsReportedNotKept) {
  if (!std::filesystem::exists(kInferenceXFile)) GTEST_SKIP() << kInferenceXFile << " not present";
  const Catalog catalog = Catalog::load({});
  std::vector<SkippedRow> skipped;
  auto cases = map_inferencex_cases(read_csv_file(kInferenceXFile, "--dataset"), catalog, skipped, /*p99_ttft=*/true);
  calibrate_engines(cases, catalog);
  const auto fits = calibrate_engine_moe_gemm_waves(cases, catalog);
  ASSERT_GE(fits.size(), 1u);
  for (const auto& f : fits) {
    std::printf("%-22s waves %3zu held out %4zu  moe_gemm_eff %.2f -> %.2f  median APE %.1f%% -> %.1f%%\n",
                f.before.name.c_str(), f.fit_rows, f.held_out_rows, f.before.moe_gemm_eff, f.after.moe_gemm_eff,
                f.median_ape_before, f.median_ape_after);
    EXPECT_FALSE(moe_gemm_reference_engine(f.before.name));
    EXPECT_GT(f.held_out_rows, 0u) << f.before.name;
    EXPECT_GE(f.fit_rows, 20u) << f.before.name;
    EXPECT_DOUBLE_EQ(f.before.moe_gemm_eff, 1.0) << f.before.name << ": not kept in the catalog";
    EXPECT_LT(f.median_ape_after, f.median_ape_before + 10.0) << f.before.name;
    if (f.before.name == "sglang") {
      EXPECT_GE(f.after.moe_gemm_eff, 0.25);
      EXPECT_LE(f.after.moe_gemm_eff, 0.55);
    }
  }
  // The wave shares are not kept: every InferenceX engine stays at 1 (vLLM's share is the AIConfigurator
  // file's fit, MoeGemmEffFitOnTheAicFile; InferenceX has no vLLM points).
  for (const auto& e : catalog.serving_engines()) {
    if (e.name == "vllm") continue;
    EXPECT_DOUBLE_EQ(e.moe_gemm_eff, 1.0) << e.name;
  }
}

// The engine's MoE GEMM share is its prefill kernels': a decode step without prompt rows runs at the
// reference's, so TPOT with one client (nothing else prefills between its steps) barely moves with it
// (within 3%: the request's own prompt shows in its cycle), while its TTFT (the prompt) moves more.
TEST(EngineFit, MoeGemmShareLeavesPureDecodeSteps) {
  if (!std::filesystem::exists(kInferenceXFile)) GTEST_SKIP() << kInferenceXFile << " not present";
  const Catalog catalog = Catalog::load({});
  std::vector<SkippedRow> skipped;
  const auto cases = map_inferencex_cases(read_csv_file(kInferenceXFile, "--dataset"), catalog, skipped);
  int checked = 0;
  for (const auto& c : cases) {
    if (c.metric != "tpot_ms" || c.workload.concurrency != 1 || c.mode == InferenceMode::disaggregated) continue;
    InferenceCase t = c;
    t.workload.moe_gemm_eff = 0.3;
    EXPECT_NEAR(predict_inference_case(t), predict_inference_case(c), 0.03 * predict_inference_case(c))
        << c.framework << " row " << c.row;
    InferenceCase ttft = c, ttft_slow = t;
    ttft.metric = ttft_slow.metric = "ttft_ms";
    EXPECT_GT(predict_inference_case(ttft_slow), 1.03 * predict_inference_case(ttft)) << c.framework << " row " << c.row;
    ++checked;
  }
  EXPECT_GT(checked, 5);
}

// Property: a lower MoE GEMM share never speeds a prefill: on the file's MoE cases, the median and
// p99 TTFT never fall as moe_gemm_eff falls.
TEST(EngineFit, LowerMoeGemmShareNeverSpeedsAPrefill) {
  if (!std::filesystem::exists(kInferenceXFile)) GTEST_SKIP() << kInferenceXFile << " not present";
  const Catalog catalog = Catalog::load({});
  std::vector<SkippedRow> skipped;
  const auto cases =
      map_inferencex_cases(read_csv_file(kInferenceXFile, "--dataset"), catalog, skipped, /*p99_ttft=*/true);
  int checked = 0;
  for (size_t i = 0; i < cases.size(); i += 7) {
    const InferenceCase& c = cases[i];
    if ((c.metric != "ttft_ms" && c.metric != "p99_ttft_ms") || !c.model.is_moe()) continue;
    InferenceCase t = c;
    // The mean TTFT (a replayed median may fall as prompts slow: a slower prefill pool also spreads
    // the arrivals at full decode slots; the cap properties hold on the mean too, DecodeBatchCap*).
    // The closed loop holds a whole number of sequences in decode: where slower prompts leave it one
    // fewer, its shorter steps move a wait by parts in 1e4 (row 141's p99: 15 -> 14 sequences at 0.8,
    // 5,362.87 -> 5,362.55 ms), hence the tolerance.
    t.workload.ttft_median = false;
    double prev = 0;
    for (double eff : {1.0, 0.8, 0.6, 0.4, 0.2, 0.1}) {
      t.workload.moe_gemm_eff = eff;
      const double ttft = predict_inference_case(t);
      EXPECT_GE(ttft, prev * (1 - 1e-4)) << c.framework << " row " << c.row << " at " << eff;
      prev = ttft;
    }
    ++checked;
  }
  EXPECT_GT(checked, 20);
}

// An older release's slower MoE kernels never speed a decode: TPOT grows as the share falls.
TEST(EngineFit, LowerMoeKernelShareNeverSpeedsADecode) {
  if (!std::filesystem::exists(kInferenceXFile)) GTEST_SKIP() << kInferenceXFile << " not present";
  const Catalog catalog = Catalog::load({});
  std::vector<SkippedRow> skipped;
  const auto cases = map_inferencex_cases(read_csv_file(kInferenceXFile, "--dataset"), catalog, skipped);
  int checked = 0;
  for (size_t i = 0; i < cases.size(); i += 11) {
    const InferenceCase& c = cases[i];
    if (c.metric != "tpot_ms" || !c.model.is_moe()) continue;
    InferenceCase t = c;
    double prev = 0;
    for (double share : {1.0, 0.8, 0.6, 0.4, 0.2}) {
      t.workload.moe_kernel_share = share;
      const double tpot = predict_inference_case(t);
      EXPECT_GE(tpot, prev * (1 - 1e-9)) << c.framework << " row " << c.row << " at " << share;
      prev = tpot;
    }
    ++checked;
  }
  EXPECT_GT(checked, 20);
}

}  // namespace
}  // namespace gpuplan
