// Error bands off the data, end to end: every command asks its band for the question it answers
// (band_for), so a question off the ground the bands were fitted on never gets a narrower band than the
// same question on it, the basis says why, and the central figures do not move.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>

#include "run_cli.h"

namespace {

namespace fs = std::filesystem;

// A catalog overlay restating hopper's bands with the same edges and widening factors, fitted either on
// ground that holds every question below (on) or on ground none of them lies on (off: bf16 only, 1000 to
// 2000 GPUs, 5000B to 6000B parameters).
std::string ground_overlay(bool on) {
  const fs::path dir =
      fs::temp_directory_path() / ("gpuplan-band-ground-" + std::to_string(::getpid()) + (on ? "-on" : "-off"));
  fs::create_directories(dir);
  std::ofstream f(dir / "error_bands.yaml");
  f << "error_bands:\n";
  for (const char* kind : {"training_dense", "serving_aggregated_throughput", "serving_aggregated_tpot",
                           "serving_aggregated_ttft", "serving_disaggregated_throughput", "serving_disaggregated_tpot",
                           "serving_disaggregated_ttft"}) {
    f << "  - kind: " << kind << "\n    generation: hopper\n    low_log: -0.2\n    high_log: 0.3\n"
      << "    rows: 100\n    families: 4\n";
    if (on)
      f << "    precisions: \"bf16,fp8,fp4,nvfp4,mxfp8,w4a16\"\n    gpus_min: 1\n    gpus_max: 100000\n"
        << "    params_b_min: 0.1\n    params_b_max: 100000\n";
    else
      f << "    precisions: \"bf16\"\n    gpus_min: 1000\n    gpus_max: 2000\n    params_b_min: 5000\n"
        << "    params_b_max: 6000\n";
    f << "    widen_source: 1.2\n    widen_precision: 1.5\n    widen_scale: 1.5\n    widen_model_size: 1.5\n";
  }
  return dir.string();
}

double log_band_width(const nlohmann::json& band) {
  return std::log(band["high"].get<double>() / band["low"].get<double>());
}

// The off-ground band holds the on-ground one (same value), and says why it is wider.
void expect_band_wider(const nlohmann::json& on, const nlohmann::json& off, const std::string& what) {
  EXPECT_DOUBLE_EQ(on["value"].get<double>(), off["value"].get<double>()) << what;
  EXPECT_GT(log_band_width(off), log_band_width(on) * 1.01) << what;
  EXPECT_LE(off["low"].get<double>(), on["low"].get<double>() * (1 + 1e-12)) << what;
  EXPECT_GE(off["high"].get<double>(), on["high"].get<double>() * (1 - 1e-12)) << what;
  EXPECT_GT(off["basis"]["widened_by"].size(), on["basis"]["widened_by"].size()) << what << off.dump();
}

TEST(BandGroundCli, InferOffTheDataNeverGetsANarrowerBand) {
  const std::string on = ground_overlay(true), off = ground_overlay(false);
  for (const std::string args : {"infer --model llama3.1-70b --system hgx-h100 --json",
                                 "infer --model llama3.1-70b --system hgx-h100 --tpot-ms 30 --json"}) {
    const auto a = run_gpuplan(args + " --catalog " + on), b = run_gpuplan(args + " --catalog " + off);
    ASSERT_EQ(a.exit_code, 0) << a.err;
    ASSERT_EQ(b.exit_code, 0) << b.err;
    for (const char* fig : {"tokens_per_s_per_gpu", "tokens_per_s_per_user", "tpot_s", "ttft_s"})
      expect_band_wider(a.json()["band"][fig], b.json()["band"][fig], args + ": " + fig);
    const auto why = b.json()["band"]["tpot_s"]["basis"]["widened_by"].dump();
    EXPECT_TRUE(has(why, "precision fp8 never fitted on hopper")) << why;
    EXPECT_TRUE(has(why, "GPUs below fitted 1000")) << why;
    EXPECT_TRUE(has(why, "below fitted 5e+03B")) << why;
  }
  // Text prints the reasons.
  const auto t = run_gpuplan("infer --model llama3.1-70b --system hgx-h100 --catalog " + off);
  ASSERT_EQ(t.exit_code, 0) << t.err;
  EXPECT_TRUE(has(t.out, "widened: a source the bands were not fitted on; precision fp8 never fitted on hopper")) << t.out;
}

TEST(BandGroundCli, CompareOffTheDataNeverGetsANarrowerBandAndKeepsItsFigures) {
  const std::string args = "compare gb300-nvl72 hgx-h200 --model llama3.1-70b --json --catalog ";
  const auto a = run_gpuplan(args + ground_overlay(true)), b = run_gpuplan(args + ground_overlay(false));
  ASSERT_EQ(a.exit_code, 0) << a.err;
  ASSERT_EQ(b.exit_code, 0) << b.err;
  auto ja = a.json(), jb = b.json();
  for (const char* r : {"training_ratio", "serving_ratio_relative", "serving_ratio_at_interactivity"}) {
    ASSERT_TRUE(ja["models"][0]["band"].contains(r)) << r;
    expect_band_wider(ja["models"][0]["band"][r], jb["models"][0]["band"][r], r);
  }
  // Only the bands differ: every central figure is the same.
  ja["models"][0].erase("band");
  jb["models"][0].erase("band");
  EXPECT_EQ(ja, jb);
}

TEST(BandGroundCli, SizeDrawsFromTheWidenedBands) {
  const std::string args = "size --model llama3.1-70b --system hgx-h100 --requests-per-s 20 --json --catalog ";
  const auto a = run_gpuplan(args + ground_overlay(true)), b = run_gpuplan(args + ground_overlay(false));
  ASSERT_EQ(a.exit_code, 0) << a.err;
  ASSERT_EQ(b.exit_code, 0) << b.err;
  const auto oa = a.json()["options"][0], ob = b.json()["options"][0];
  ASSERT_TRUE(oa.contains("units")) << oa.dump();
  ASSERT_TRUE(ob.contains("units")) << ob.dump();
  for (const char* fig : {"tpot_s", "ttft_s"}) {
    const auto &ba = oa["band_basis"][fig], &bb = ob["band_basis"][fig];
    EXPECT_LE(bb["low_log"].get<double>(), ba["low_log"].get<double>()) << fig;
    EXPECT_GT(bb["high_log"].get<double>() - bb["low_log"].get<double>(),
              ba["high_log"].get<double>() - ba["low_log"].get<double>()) << fig;
    EXPECT_FALSE(bb["widened_by"].empty()) << fig;
  }
  // On new ground the same purchase meets the SLA less often, or more is bought to hold the confidence.
  EXPECT_GE(ob["gpus"].get<double>(), oa["gpus"].get<double>());
  if (ob["gpus"] == oa["gpus"]) {
    EXPECT_LE(ob["p_meets_sla"].get<double>(), oa["p_meets_sla"].get<double>());
  }
  EXPECT_EQ(oa["deployment"], ob["deployment"]);
  const auto t =
      run_gpuplan("size --model llama3.1-70b --system hgx-h100 --requests-per-s 20 --catalog " + ground_overlay(false));
  ASSERT_EQ(t.exit_code, 0) << t.err;
  EXPECT_TRUE(has(t.out, "error bands widened: a source the bands were not fitted on; precision fp8")) << t.out;
}

TEST(BandGroundCli, AGenerationWithoutFittedServingRowsGetsTheWiderBandWithItsReason) {
  // Gaudi 3 has no fitted serving rows: the band of unmeasured generations, named as such.
  const auto g = run_gpuplan("infer --model llama3.1-70b --system gaudi3-ubb --json");
  const auto h = run_gpuplan("infer --model llama3.1-70b --system hgx-h100 --json");
  ASSERT_EQ(g.exit_code, 0) << g.err;
  ASSERT_EQ(h.exit_code, 0) << h.err;
  const auto bg = g.json()["band"]["tokens_per_s_per_gpu"], bh = h.json()["band"]["tokens_per_s_per_gpu"];
  EXPECT_EQ(bg["basis"]["generation"], "unfitted");
  ASSERT_FALSE(bg["basis"]["widened_by"].empty());
  EXPECT_EQ(bg["basis"]["widened_by"][0], "generation gaudi3 has no fitted serving_aggregated_throughput rows");
  EXPECT_GT(log_band_width(bg), log_band_width(bh));
  const auto t = run_gpuplan("infer --model llama3.1-70b --system gaudi3-ubb");
  ASSERT_EQ(t.exit_code, 0) << t.err;
  EXPECT_TRUE(has(t.out, "widened: generation gaudi3 has no fitted serving_aggregated_throughput rows")) << t.out;
}

TEST(BandGroundCli, TrainAndSearchGiveTheSameBandForTheSamePlan) {
  for (const std::string& cat : {std::string(), " --catalog " + ground_overlay(false)}) {
    const std::string args = "--model llama3.1-70b --system hgx-h100 --gpus 64 --json" + cat;
    const auto t = run_gpuplan("train " + args), s = run_gpuplan("search " + args);
    ASSERT_EQ(t.exit_code, 0) << t.err;
    ASSERT_EQ(s.exit_code, 0) << s.err;
    const auto bt = t.json()["band"]["tokens_per_s_per_gpu"], bs = s.json()["top"][0]["band"];
    EXPECT_EQ(bt["basis"], bs["basis"]) << cat;
    EXPECT_NEAR(bt["low"].get<double>() / bt["value"].get<double>(),
                bs["low"].get<double>() / bs["value"].get<double>(), 1e-12);
    EXPECT_NEAR(bt["high"].get<double>() / bt["value"].get<double>(),
                bs["high"].get<double>() / bs["value"].get<double>(), 1e-12);
    if (!cat.empty()) {
      EXPECT_FALSE(bt["basis"]["widened_by"].empty());
    }
  }
}

// Hopper's serving bands fitted on SGLang and TensorRT-LLM rows only, on ground that holds every other
// dimension of the questions below; widen_source as given, widen_engine 1.5.
std::string engine_overlay(const std::string& widen_source) {
  const fs::path dir = fs::temp_directory_path() /
                       ("gpuplan-band-engine-" + std::to_string(::getpid()) + "-" + widen_source);
  fs::create_directories(dir);
  std::ofstream f(dir / "error_bands.yaml");
  f << "error_bands:\n";
  for (const char* kind : {"serving_aggregated_throughput", "serving_aggregated_tpot", "serving_aggregated_ttft"})
    f << "  - kind: " << kind << "\n    generation: hopper\n    low_log: -0.2\n    high_log: 0.3\n"
      << "    rows: 100\n    families: 4\n    precisions: \"bf16,fp8,fp4,nvfp4,mxfp8,w4a16\"\n"
      << "    engines: \"sglang,tensorrt-llm\"\n    gpus_min: 1\n    gpus_max: 100000\n"
      << "    params_b_min: 0.1\n    params_b_max: 100000\n    widen_source: " << widen_source
      << "\n    widen_precision: 1.5\n    widen_scale: 1.5\n    widen_model_size: 1.5\n    widen_engine: 1.5\n";
  return dir.string();
}

TEST(BandGroundCli, AnEngineTheBandsHardlySawGetsTheWiderBandAndItsName) {
  const std::string cat = " --catalog " + engine_overlay("1.2");
  const std::string args = "infer --model llama3.1-70b --system hgx-h100 --json";
  const auto on = run_gpuplan(args + " --engine sglang" + cat), off = run_gpuplan(args + " --engine vllm" + cat);
  ASSERT_EQ(on.exit_code, 0) << on.err;
  ASSERT_EQ(off.exit_code, 0) << off.err;
  for (const char* fig : {"tokens_per_s_per_gpu", "tpot_s", "ttft_s"}) {
    const auto a = on.json()["band"][fig], b = off.json()["band"][fig];
    EXPECT_NEAR(log_band_width(b), 1.5 * log_band_width(a), 1e-9 * log_band_width(a)) << fig;
    const auto why = b["basis"]["widened_by"].dump();
    EXPECT_TRUE(has(why, "engine vllm has too few fitted")) << why;
    EXPECT_TRUE(has(why, "(fitted: sglang, tensorrt-llm)")) << why;
    EXPECT_FALSE(has(a["basis"]["widened_by"].dump(), "engine")) << a.dump();
  }
  // A framework string names the engine as the band file does ("SGLang 0.5.9" is sglang).
  const auto named = run_gpuplan(args + " --engine SGLang" + cat);
  ASSERT_EQ(named.exit_code, 0) << named.err;
  EXPECT_EQ(named.json()["band"]["tpot_s"], on.json()["band"]["tpot_s"]);
  // The text says it too.
  const auto t = run_gpuplan("infer --model llama3.1-70b --system hgx-h100 --engine vllm" + cat);
  ASSERT_EQ(t.exit_code, 0) << t.err;
  EXPECT_TRUE(has(t.out, "engine vllm has too few fitted")) << t.out;
}

TEST(BandGroundCli, ADimensionWhoseFactorIsOneIsNotAReason) {
  // Every question is a new source, but a source factor of 1.00 widens nothing: not listed.
  const auto r = run_gpuplan("infer --model llama3.1-70b --system hgx-h100 --engine sglang --json --catalog " +
                             engine_overlay("1.0"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* fig : {"tokens_per_s_per_gpu", "tpot_s", "ttft_s"}) {
    const auto b = r.json()["band"][fig];
    EXPECT_TRUE(b["basis"]["widened_by"].empty()) << b.dump();
  }
}

// compare, recommend and size take no --engine: their serving questions state none, so the bands that
// widen infer --engine vllm do not widen theirs, and the basis says no engine was stated.
TEST(BandGroundCli, CommandsWithoutAnEngineStateNoneAndNoEngineWidensTheirBands) {
  const std::string cat = " --catalog " + engine_overlay("1.2");
  auto expect_no_engine = [](const nlohmann::json& basis, const std::string& what) {
    EXPECT_EQ(basis.value("engine", ""), "not stated") << what << basis.dump();
    EXPECT_FALSE(has(basis["widened_by"].dump(), "engine")) << what << basis.dump();
  };
  // infer with the engine the bands hardly saw widens; the same bands on compare's sides do not.
  const auto inf = run_gpuplan("infer --model llama3.1-70b --system hgx-h100 --engine vllm --json" + cat);
  ASSERT_EQ(inf.exit_code, 0) << inf.err;
  EXPECT_TRUE(has(inf.json()["band"]["tpot_s"]["basis"]["widened_by"].dump(), "engine vllm"));
  const auto cmp = run_gpuplan("compare hgx-h100 hgx-h200 --model llama3.1-70b --task infer --json" + cat);
  ASSERT_EQ(cmp.exit_code, 0) << cmp.err;
  const auto mb = cmp.json()["models"][0]["band"];
  for (const char* r : {"serving_ratio_relative", "serving_ratio_at_interactivity"}) {
    ASSERT_TRUE(mb.contains(r)) << r << mb.dump();
    expect_no_engine(mb[r]["basis"], r);
  }
  const auto cmp_text = run_gpuplan("compare hgx-h100 hgx-h200 --model llama3.1-70b --task infer" + cat);
  ASSERT_EQ(cmp_text.exit_code, 0) << cmp_text.err;
  EXPECT_TRUE(has(cmp_text.out, "no serving engine stated")) << cmp_text.out;
  const auto rec = run_gpuplan("recommend --model llama3.1-70b --task infer --system hgx-h100 --json" + cat);
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  bool banded = false;
  const auto ranked = rec.json()["ranked"];
  for (const auto& r : ranked)
    if (r.contains("band")) {
      banded = true;
      expect_no_engine(r["band"]["basis"], "recommend");
    }
  EXPECT_TRUE(banded) << rec.out;
  const auto sz = run_gpuplan("size --model llama3.1-70b --system hgx-h100 --requests-per-s 20 --json" + cat);
  ASSERT_EQ(sz.exit_code, 0) << sz.err;
  for (const char* fig : {"tpot_s", "ttft_s"}) expect_no_engine(sz.json()["options"][0]["band_basis"][fig], fig);
  // An engine is not taken silently where the command cannot state it.
  for (const std::string args : {"compare hgx-h100 hgx-h200 --model llama3.1-70b --task infer --engine vllm",
                                 "recommend --model llama3.1-70b --task infer --system hgx-h100 --engine vllm"})
    EXPECT_NE(run_gpuplan(args).exit_code, 0) << args;
  // size states one (--engine): its bands then say it, and widen for it as infer's do.
  const auto sz_vllm =
      run_gpuplan("size --model llama3.1-70b --system hgx-h100 --requests-per-s 20 --engine vllm --json" + cat);
  ASSERT_EQ(sz_vllm.exit_code, 0) << sz_vllm.err;
  EXPECT_EQ(sz_vllm.json()["engine"], "vllm");
  for (const char* fig : {"tpot_s", "ttft_s"}) {
    const auto basis = sz_vllm.json()["options"][0]["band_basis"][fig];
    EXPECT_EQ(basis.value("engine", ""), "vllm") << fig << basis.dump();
    EXPECT_TRUE(has(basis["widened_by"].dump(), "engine vllm")) << fig << basis.dump();
  }
}

TEST(BandGroundCli, GoodputWarnsWhenTheChosenPlanComputesForLittleOfItsStep) {
  // 1,536 sequences over 16,384 GPUs: three per data-parallel replica; the step is mostly communication.
  const auto thin = run_gpuplan("goodput --model deepseek-v3 --system hgx-b200 --gpus 16384 --json");
  ASSERT_EQ(thin.exit_code, 0) << thin.err;
  const auto s = thin.json()["systems"][0];
  ASSERT_EQ(s["warnings"].size(), 1u) << s.dump();
  const std::string w = s["warnings"][0];
  EXPECT_TRUE(has(w, "under half the best published for blackwell bf16")) << w;
  EXPECT_TRUE(has(w, "data-parallel replicas")) << w;
  EXPECT_LT(s["mfu_6n_bf16"].get<double>(), 0.1);
  const auto text = run_gpuplan("goodput --model deepseek-v3 --system hgx-b200 --gpus 16384");
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_TRUE(has(text.out, "Warning (hgx-b200): MFU")) << text.out;
  // A plan that computes for most of its step is not flagged.
  const auto busy = run_gpuplan("goodput --model llama3.1-70b --system hgx-h100 --gpus 64 --json");
  ASSERT_EQ(busy.exit_code, 0) << busy.err;
  EXPECT_TRUE(busy.json()["systems"][0]["warnings"].empty());
}

}  // namespace
