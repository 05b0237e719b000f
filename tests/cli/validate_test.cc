// End-to-end: validate reports each row's band, the coverage and the skip reasons; calibrate --bands
// writes a band file the catalog reads back; every figure command carries a band; bad input exits 2.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>
#include <unistd.h>

#include "run_cli.h"

namespace {

const std::string kData = std::string(GPUPLAN_SHARED_DATA_DIR) + "/benchmarks/";


TEST(ValidateCli, TrainingRowsCarryBandsCoverageAndSkipReasons) {
  auto r = run_gpuplan("validate --dataset " + kData + "training.csv --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = r.json();
  ASSERT_TRUE(j.contains("coverage"));
  ASSERT_TRUE(j.contains("skip_reasons"));
  const double share = j["coverage"]["all"]["share"].get<double>();
  EXPECT_GE(share, 0.70);
  EXPECT_LE(share, 0.90);
  EXPECT_EQ(j["coverage_by_file"]["training.csv"]["all"]["rows"], j["coverage"]["all"]["rows"]);
  for (const auto& row : j["rows"]) {
    EXPECT_LE(row["low"].get<double>(), row["predicted"].get<double>());
    EXPECT_GE(row["high"].get<double>(), row["predicted"].get<double>());
    EXPECT_GT(row["basis"]["rows"].get<int>(), 0);
  }
  auto text = run_gpuplan("validate --dataset " + kData + "training.csv");
  EXPECT_TRUE(has(text.out, "inside their error band")) << text.out;
}

// validate scores each row against the band its question gets: on the band's ground (a source family
// it was fitted on) the fitted band; a row of another source (a new source, or a known one's new round) the
// band widened by the source factor, with the reason, as a planner's question would be.
TEST(ValidateBands, ARowOfANewSourceGetsTheBandWidenedOffTheGround) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("gpuplan_validate_sources_" + std::to_string(::getpid()));
  fs::create_directories(dir / "catalog");
  {
    std::ofstream f(dir / "catalog" / "error_bands.yaml");
    f << "error_bands:\n  - kind: training_dense\n    generation: hopper\n    low_log: -0.1\n    high_log: 0.1\n"
      << "    rows: 100\n    families: 4\n    sources:\n      - \"nemo-24.07\"\n    widen_source: 1.5\n";
  }
  std::ifstream in(kData + "training.csv");
  std::string header, line;
  std::getline(in, header);
  std::vector<std::string> nemo;
  while (std::getline(in, line) && nemo.size() < 3)
    if (line.rfind("NEMO-24.07,", 0) == 0 && has(line, "H100")) nemo.push_back(line);
  ASSERT_EQ(nemo.size(), 3u);
  for (const char* src : {"NEMO-24.07", "NEWLAB-24.07"}) {
    std::ofstream f(dir / (std::string(src) + ".csv"));
    f << header << "\n";
    for (const auto& l : nemo) f << src << l.substr(std::string("NEMO-24.07").size()) << "\n";
  }
  const std::string cat = " --catalog " + (dir / "catalog").string() + " --json";
  const auto known = run_gpuplan("validate --dataset " + (dir / "NEMO-24.07.csv").string() + cat);
  const auto fresh = run_gpuplan("validate --dataset " + (dir / "NEWLAB-24.07.csv").string() + cat);
  ASSERT_EQ(known.exit_code, 0) << known.err;
  ASSERT_EQ(fresh.exit_code, 0) << fresh.err;
  const auto a = known.json()["rows"], b = fresh.json()["rows"];
  ASSERT_EQ(a.size(), 3u);
  ASSERT_EQ(b.size(), 3u);
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_TRUE(a[i]["basis"]["widened_by"].empty()) << a[i].dump();
    EXPECT_NEAR(a[i]["high"].get<double>() / a[i]["predicted"].get<double>(), std::exp(0.1), 1e-9);
    // Each edge moves out by (1.5 - 1) x the half-width 0.1.
    EXPECT_NEAR(b[i]["high"].get<double>() / b[i]["predicted"].get<double>(), std::exp(0.15), 1e-9);
    EXPECT_NEAR(b[i]["low"].get<double>() / b[i]["predicted"].get<double>(), std::exp(-0.15), 1e-9);
    const std::string why = b[i]["basis"]["widened_by"].dump();
    EXPECT_TRUE(has(why, "source NEWLAB-24.07 not among the 1 the band was fitted on")) << why;
  }
  // The text says how many rows lie off the ground, and why.
  const auto text = run_gpuplan("validate --dataset " + (dir / "NEWLAB-24.07.csv").string() + " --catalog " +
                                (dir / "catalog").string());
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_TRUE(has(text.out, "3 rows lie off the ground the bands were fitted on")) << text.out;
  EXPECT_TRUE(has(text.out, "3  source NEWLAB-24.07 not among the 1 the band was fitted on")) << text.out;
  EXPECT_FALSE(has(run_gpuplan("validate --dataset " + (dir / "NEMO-24.07.csv").string() + " --catalog " +
                               (dir / "catalog").string())
                       .out,
                   "off the ground"));
  fs::remove_all(dir);
}

// The shipped bands record the source families they were fitted on: every row of a shared file is
// known ground, and none is widened for its source.
TEST(ValidateBands, TheSharedFilesRowsAreOnTheShippedBandsSources) {
  auto r = run_gpuplan("validate --dataset " + kData + "mlperf-inference-v4.1-v5.0.csv --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const auto& row : r.json()["rows"])
    EXPECT_FALSE(has(row["basis"]["widened_by"].dump(), "source")) << row.dump();
}

TEST(ValidateCli, SkipReasonsAreCounted) {
  const std::string path = std::filesystem::temp_directory_path() / ("gpuplan_validate_skips_" + std::to_string(::getpid()) + ".csv");
  {
    std::ofstream f(path);
    f << "source_id,source_url_or_path,model,params_B,layers,hidden,ffn_hidden,heads,kv_heads,vocab,seq_len,"
         "moe_experts,moe_topk,gpu,num_gpus,precision,tp,pp,vp,cp,ep,dp,mbs,gbs,recompute,reported_metric,"
         "reported_value,notes\n"
         "X,u,GPT-7B,7,32,4096,,32,,50257,2048,,,A100 (Ampere),8,TF32,1,1,,1,,,1,64,,step_time_s,3.0,\n"
         "X,u,GPT-7B,7,32,4096,,32,,50257,2048,,,A100 (Ampere),8,tf32,1,1,,1,,,1,64,,step_time_s,3.0,\n"
         "X,u,GPT-7B,7,32,4096,,32,,50257,2048,,,NoSuchGPU,8,BF16,1,1,,1,,,1,64,,step_time_s,3.0,\n"
         "X,u,GPT-7B,7,32,4096,,32,,50257,2048,,,A100 (Ampere),8,BF16 (amp),1,1,,1,,,1,64,,step_time_s,3.0,\n";
  }
  auto r = run_gpuplan("validate --dataset " + path + " --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = r.json();
  EXPECT_EQ(j["rows_scored"].get<int>(), 1);
  EXPECT_EQ(j["rows_skipped"].get<int>(), 3);
  size_t counted = 0, tf32 = 0;
  for (const auto& [why, n] : j["skip_reasons"].items()) {
    counted += n.get<size_t>();
    if (has(why, "TF32")) tf32 = n.get<size_t>();
  }
  EXPECT_EQ(counted, 3u);
  EXPECT_EQ(tf32, 2u);  // one reason, counted twice, whatever the spelling
  std::remove(path.c_str());
}

// A serving row whose per-user rate implies 40x its per-GPU figure is flagged, not scored: listed in
// `skipped` with its flag and reason, counted in `rows_flagged` and in the text summary.
TEST(ValidateCli, RowsThatContradictThemselvesAreFlagged) {
  const std::string path =
      std::filesystem::temp_directory_path() / ("gpuplan_validate_flag_" + std::to_string(::getpid()) + ".csv");
  {
    std::ofstream f(path);
    f << "source_id,source_url_or_path,model,params_B,active_params_B,gpu,num_gpus,tp,ep,pp,precision_weights,"
         "precision_kv,framework,isl,osl,concurrency_or_batch,scenario,metric,value,notes\n"
         "B,x,Llama-3.1-70B,70,70,H100-SXM,8,8,,1,FP8,FP8,vLLM,1024,1024,256,server,tokens_per_sec_per_gpu,100,"
         "125 tok/s/user\n"
         "B,x,Llama-3.1-70B,70,70,H100-SXM,8,8,,1,FP8,FP8,vLLM,1024,1024,64,server,tokens_per_sec_per_gpu,400,\n";
  }
  auto r = run_gpuplan("validate --dataset " + path + " --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = r.json();
  EXPECT_EQ(j["rows_scored"].get<int>(), 1);
  EXPECT_EQ(j["rows_flagged"].get<int>(), 1);
  ASSERT_EQ(j["skipped"].size(), 1u);
  EXPECT_EQ(j["skipped"][0]["flag"].get<std::string>(), "contradiction");
  EXPECT_TRUE(has(j["skipped"][0]["reason"].get<std::string>(), "40x")) << j["skipped"][0]["reason"];
  auto text = run_gpuplan("validate --dataset " + path);
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_TRUE(has(text.out, "1 skipped (1 flagged: the row contradicts itself)")) << text.out;
  std::remove(path.c_str());
}

// An InferenceX-schema table with its cells in other forms: flags as True/1, blank disaggregated and
// gpus columns, a Hugging Face model id; an unreadable flag, a GPU total that contradicts its pools and
// an unknown model are skipped with the column named, never read as a default.
TEST(ValidateCli, InferenceXCellFormsAndSkipReasons) {
  const std::string path =
      std::filesystem::temp_directory_path() / ("gpuplan_validate_ix_" + std::to_string(::getpid()) + ".csv");
  {
    std::ofstream f(path);
    const std::string head =
        "date,gpu,framework,model,precision,spec_decode,disaggregated,prefill_workers,prefill_tp,prefill_ep,"
        "prefill_attention_dp,decode_workers,decode_tp,decode_ep,decode_attention_dp,prefill_gpus,decode_gpus,gpus,"
        "isl,osl,concurrency,output_tok_s_per_gpu,median_tok_s_per_user,median_ttft_ms,median_tpot_ms\n";
    // One run's figures agree: 64 users at 100 tokens/s give 400 tokens/s per GPU on 16 GPUs (800 on 8).
    const std::string tail = ",1024,1024,64,400,100,300,10\n";
    f << head
      << "2026-02-05,H200-SXM,Dynamo + SGLang,deepseek-ai/DeepSeek-R1,FP8,None,,1,8,8,1,1,8,8,0,8,8," << tail
      << "2026-02-05,H200-SXM,SGLang,DeepSeek-R1-0528,FP8,MTP,False,,,,,1,8,1,no,,,8" << tail
      << "2026-02-05,H200-SXM,SGLang,DeepSeek-R1-0528,FP8,none,sometimes,,,,,1,8,1,no,,,8" << tail
      << "2026-02-05,H200-SXM,Dynamo + SGLang,DeepSeek-R1-0528,FP8,none,yes,1,8,8,no,1,8,8,no,8,8,24" << tail
      << "2026-02-05,H200-SXM,SGLang,NoSuchModel-7B,FP8,none,no,,,,,1,8,1,no,,,8" << tail;
  }
  auto r = run_gpuplan("validate --dataset " + path + " --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = r.json();
  EXPECT_EQ(j["rows_scored"].get<int>(), 8);  // two rows, four figures each
  EXPECT_EQ(j["rows_skipped"].get<int>(), 3);
  std::string reasons;  // grouped: numbers read N, quoted cells '*'

  for (const auto& [why, n] : j["skip_reasons"].items()) reasons += why + "\n";
  EXPECT_TRUE(has(reasons, "disaggregated '*' is not yes or no")) << reasons;
  EXPECT_TRUE(has(reasons, "gpus N differs from prefill_gpus N + decode_gpus N")) << reasons;
  EXPECT_TRUE(has(reasons, "model '*' is not a built-in model")) << reasons;
  bool disaggregated_row = false, mtp_row = false;
  for (const auto& row : j["rows"]) {
    const std::string plan = row["plan"].get<std::string>();
    if (row["row"].get<int>() == 0) disaggregated_row = has(plan, "disagg prefill 1x");
    if (row["row"].get<int>() == 1) mtp_row = has(plan, "mtp=");
  }
  EXPECT_TRUE(disaggregated_row);
  EXPECT_TRUE(mtp_row);
  std::remove(path.c_str());
}

TEST(ValidateCli, CalibrateBandsWritesAFileTheCatalogReads) {
  const auto dir = std::filesystem::temp_directory_path() / ("gpuplan_bands_cli_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string out = (dir / "error_bands.yaml").string();
  auto r = run_gpuplan("calibrate --bands --dataset " + kData + "training.csv --write-bands " + out + " --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = r.json();
  EXPECT_GT(j["bands"].size(), 4u);
  const double p90 = j["training_held_out"]["p90_ape_pct"].get<double>();
  EXPECT_GT(p90, 0.0);
  EXPECT_LE(p90, 30.0);
  // Nominal 80% bands hold 70-90% of each file's and kind's rows on known ground; each source family
  // against bands fitted without it, widened as a new source, at least 70% and at most 92%: the widening
  // is fitted to hold 80% of the families' effective sample (docs/training-model.md, "Error bands off the
  // data"), so where the many-row families are the well-predicted ones their rows sit a little above 90%.
  const auto& by_file = j["coverage_lofo_by_file"];
  ASSERT_TRUE(by_file.contains("training.csv")) << by_file.dump();
  for (const auto& [kind, c] : by_file["training.csv"].items()) {
    EXPECT_GE(c["share"].get<double>(), 0.70) << kind;
    EXPECT_LE(c["share"].get<double>(), 0.92) << kind;
  }
  for (const auto& [kind, c] : j["coverage_known_ground"]["by_file"]["training.csv"].items()) {
    EXPECT_GE(c["share"].get<double>(), 0.70) << kind;
    EXPECT_LE(c["share"].get<double>(), 0.90) << kind;
  }
  EXPECT_EQ(by_file["training.csv"]["all"]["rows"], j["coverage_lofo"]["all"]["rows"]);
  auto v = run_gpuplan("validate --dataset " + kData + "training.csv --catalog " + dir.string() + " --json");
  ASSERT_EQ(v.exit_code, 0) << v.err;
  EXPECT_GT(v.json()["coverage"]["all"]["rows"].get<int>(), 190);
  std::filesystem::remove_all(dir);
}

// Rows of a source the model was not built on (data/new_ground/) widen a new source's band to what they
// need where the left-out families need less: the serving throughput source factor rises, the unseen rows'
// coverage with it, and the nested check (the factor fitted without them) stays near it.
TEST(ValidateCli, CalibrateBandsWidensToWhatUnseenSourcesNeed) {
  const std::string unseen = std::string(GPUPLAN_SOURCE_DIR) + "/data/new_ground/mlperf-inference-v5.1.csv";
  const std::string known =
      "calibrate --bands --dataset " + kData + "training.csv --serving " + kData + "inference.csv";
  auto base = run_gpuplan(known + " --json", 300);
  auto r = run_gpuplan(known + " --new-ground " + unseen + " --json", 300);
  ASSERT_EQ(base.exit_code, 0) << base.err;
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = r.json(), jb = base.json();
  const auto& c = j["coverage_unseen_sources"];
  const auto& mine = c["by_file"]["mlperf-inference-v5.1.csv"]["all"];
  EXPECT_GT(mine["rows"].get<int>(), 700);
  EXPECT_GE(mine["share"].get<double>(), 0.78);
  EXPECT_LT(c["unwidened_by_file"]["mlperf-inference-v5.1.csv"]["all"]["share"].get<double>(), 0.7);
  EXPECT_GE(c["nested_by_file"]["mlperf-inference-v5.1.csv"]["all"]["share"].get<double>(), 0.75);
  EXPECT_GT(j["widening"]["serving_throughput"]["source"].get<double>(),
            jb["widening"]["serving_throughput"]["source"].get<double>() + 0.3);
  // The files' own known-ground bands are untouched.
  EXPECT_EQ(j["coverage_known_ground"]["by_file"]["inference.csv"],
            jb["coverage_known_ground"]["by_file"]["inference.csv"]);
  EXPECT_FALSE(j["coverage_lofo_by_file"].contains("mlperf-inference-v5.1.csv"));
  auto bad = run_gpuplan("calibrate --bands --dataset " + kData + "training.csv --new-ground " +
                         std::string(GPUPLAN_SOURCE_DIR) + "/data/catalog/efficiency.yaml");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_TRUE(has(bad.err, "--new-ground")) << bad.err;
}

// A training file the efficiency fit did not see (data/benchmarks/) joins the known ground: its rows are
// held out by construction, its source family is left out in turn like the training file's.
TEST(ValidateCli, CalibrateBandsReadsFurtherTrainingFiles) {
  const std::string more = std::string(GPUPLAN_SOURCE_DIR) + "/data/benchmarks/mosaicml-llm-foundry.csv";
  auto r = run_gpuplan("calibrate --bands --dataset " + kData + "training.csv --training " + more + " --json", 300);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = r.json();
  const auto& known = j["coverage_known_ground"]["by_file"]["mosaicml-llm-foundry.csv"]["all"];
  EXPECT_GT(known["rows"].get<int>(), 200);
  EXPECT_GE(known["share"].get<double>(), 0.7);
  EXPECT_LE(known["share"].get<double>(), 0.9);
  const auto& left_out = j["coverage_lofo_by_file"]["mosaicml-llm-foundry.csv"]["all"];
  EXPECT_GE(left_out["share"].get<double>(), 0.7);
  EXPECT_LT(left_out["share_unwidened"].get<double>(), left_out["share"].get<double>());
  auto bad = run_gpuplan("calibrate --bands --dataset " + kData + "training.csv --training " + kData + "inference.csv");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_TRUE(has(bad.err, "--training")) << bad.err;
}

// calibrate --engines refits data/catalog/serving_engines.yaml: the file it writes is read back by the
// catalog, and --engine in infer takes its front end from the catalog given (overlays apply).
TEST(ValidateCli, CalibrateEnginesWritesAFileTheCatalogReads) {
  const std::string data = kData + "inferencex-deepseek-r1.csv";
  if (!std::filesystem::exists(data)) GTEST_SKIP() << data << " not present";
  const auto dir = std::filesystem::temp_directory_path() / ("gpuplan_engines_cli_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string out = (dir / "serving_engines.yaml").string();
  auto r = run_gpuplan("calibrate --engines --dataset " + data + " --write " + out + " --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = r.json();
  ASSERT_GE(j["engines"].size(), 6u);
  for (const auto& e : j["engines"]) {
    EXPECT_GT(e["fit_rows"].get<int>(), 0) << e.dump();
    EXPECT_GT(e["held_out_rows"].get<int>(), 0) << e.dump();
  }
  auto cat = run_gpuplan("catalog list --catalog " + dir.string() + " --json");
  ASSERT_EQ(cat.exit_code, 0) << cat.err;
  {
    // The PyTorch backend shares TensorRT-LLM's front end: written as a reference, not a stale copy.
    std::ifstream f(out);
    const std::string text((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    const auto at = text.find("name: tensorrt-llm-pytorch");
    ASSERT_NE(at, std::string::npos) << text;
    const std::string entry = text.substr(at, text.find("- name:", at) - at);
    EXPECT_NE(entry.find("front_end_of: tensorrt-llm"), std::string::npos) << entry;
    EXPECT_EQ(entry.find("request_overhead_s"), std::string::npos) << entry;
  }
  // An overlay with a slower SGLang front end lengthens `infer --engine sglang`'s TTFT by the difference.
  const std::string slow = (dir / "slow").string();
  std::filesystem::create_directories(slow);
  {
    std::ofstream f(slow + "/serving_engines.yaml");
    f << "serving_engines:\n  - name: sglang\n    match: [\"sglang\"]\n    request_overhead_s: 1.5\n";
  }
  const std::string args = "infer --model deepseek-r1 --system hgx-h200 --engine sglang --concurrency 4 --json";
  auto base = run_gpuplan(args), over = run_gpuplan(args + " --catalog " + slow);
  ASSERT_EQ(base.exit_code, 0) << base.err;
  ASSERT_EQ(over.exit_code, 0) << over.err;
  EXPECT_GT(over.json()["ttft_s"].get<double>(), base.json()["ttft_s"].get<double>() + 1.0);
  auto both = run_gpuplan("calibrate --engines --inference --dataset " + data);
  EXPECT_EQ(both.exit_code, 2);
  std::filesystem::remove_all(dir);
}

// calibrate --engines --front-end-engines on the AIConfigurator file fits vLLM's front end on its dense
// rows, then the MoE GEMM shares at it, and writes the kept share (vLLM's) with it; the option is refused
// on the InferenceX file (which fits every engine's front end) and for an engine the catalog lacks (exit 2).
TEST(ValidateCli, CalibrateEnginesFrontEndEngines) {
  const std::string aic = kData + "aiconfigurator-silicon-sample-ttft-tpot.csv";
  const std::string ix = kData + "inferencex-deepseek-r1.csv";
  if (!std::filesystem::exists(aic) || !std::filesystem::exists(ix)) GTEST_SKIP() << "data not present";
  const auto dir = std::filesystem::temp_directory_path() / ("gpuplan_front_end_cli_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string out = (dir / "serving_engines.yaml").string();
  auto r = run_gpuplan("calibrate --engines --dataset " + aic + " --front-end-engines vllm --write " + out + " --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = r.json();
  ASSERT_EQ(j["engines"].size(), 1u);
  EXPECT_EQ(j["engines"][0]["engine"], "vllm");
  EXPECT_GT(j["engines"][0]["request_overhead_s"].get<double>(), 0.0);
  bool vllm_kept = false;
  for (const auto& f : j["moe_gemm_eff_fits"])
    if (f["engine"] == "vllm") vllm_kept = f["kept"].get<bool>();
  EXPECT_TRUE(vllm_kept);
  auto cat = run_gpuplan("catalog list --catalog " + dir.string() + " --json");
  ASSERT_EQ(cat.exit_code, 0) << cat.err;
  auto on_ix = run_gpuplan("calibrate --engines --dataset " + ix + " --front-end-engines vllm");
  EXPECT_EQ(on_ix.exit_code, 2);
  EXPECT_NE(on_ix.err.find("--front-end-engines"), std::string::npos) << on_ix.err;
  auto unknown = run_gpuplan("calibrate --engines --dataset " + aic + " --front-end-engines nosuch");
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_NE(unknown.err.find("--front-end-engines"), std::string::npos) << unknown.err;
  std::filesystem::remove_all(dir);
}

// calibrate --engines on the InferenceX file reports each non-TensorRT-LLM engine's MoE GEMM share
// fitted on its prefill pools' opening waves without writing it; --moe-gemm-waves writes it, for SGLang
// and the Dynamo deployment of its workers alike; the flag is refused elsewhere (exit 2, named).
TEST(ValidateCli, CalibrateEnginesMoeGemmWaves) {
  const std::string data = kData + "inferencex-deepseek-r1.csv";
  if (!std::filesystem::exists(data)) GTEST_SKIP() << data << " not present";
  const auto dir = std::filesystem::temp_directory_path() / ("gpuplan_moe_waves_cli_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  auto entry_of = [](const std::string& file, const std::string& name) {
    std::ifstream f(file);
    const std::string text((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    const auto at = text.find("- name: " + name + "\n");
    return at == std::string::npos ? std::string() : text.substr(at, text.find("- name:", at + 1) - at);
  };
  const std::string kept = (dir / "kept.yaml").string(), written = (dir / "written.yaml").string();
  auto r = run_gpuplan("calibrate --engines --dataset " + data + " --write " + kept + " --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  bool sglang = false;
  const auto j = r.json();
  for (const auto& f : j["moe_gemm_eff_fits"])
    if (f["engine"] == "sglang") {
      sglang = true;
      EXPECT_LT(f["moe_gemm_eff"].get<double>(), 0.9) << f.dump();
      EXPECT_GT(f["fit_rows"].get<int>(), 0) << f.dump();
    }
  EXPECT_TRUE(sglang) << j["moe_gemm_eff_fits"].dump();
  EXPECT_EQ(entry_of(kept, "sglang").find("moe_gemm_eff"), std::string::npos) << entry_of(kept, "sglang");
  auto w = run_gpuplan("calibrate --engines --moe-gemm-waves --dataset " + data + " --write " + written);
  ASSERT_EQ(w.exit_code, 0) << w.err;
  const std::string sg = entry_of(written, "sglang"), dyn = entry_of(written, "dynamo+sglang");
  ASSERT_NE(sg.find("moe_gemm_eff"), std::string::npos) << sg;
  EXPECT_EQ(sg.substr(sg.find("moe_gemm_eff"), 20), dyn.substr(dyn.find("moe_gemm_eff"), 20)) << dyn;
  EXPECT_EQ(entry_of(written, "dynamo+tensorrt-llm").find("moe_gemm_eff"), std::string::npos);
  auto wrong = run_gpuplan("calibrate --engines --moe-gemm-waves --dataset " + kData + "inference.csv");
  EXPECT_EQ(wrong.exit_code, 2);
  EXPECT_TRUE(has(wrong.err, "--moe-gemm-waves")) << wrong.err;
  std::filesystem::remove_all(dir);
}

// calibrate --inference --prefill fits each generation's MLA prefill rate on the InferenceX file's
// TTFTs at 1-8 clients (the rest held out) jointly with the engines' front ends, and writes an
// efficiency file the catalog reads back; an overlay with a slower MLA prefill lengthens DeepSeek's
// TTFT and leaves a GQA model's alone. Misused options exit 2 naming the option.
TEST(ValidateCli, CalibratePrefillWritesAFileTheCatalogReads) {
  const std::string data = kData + "inferencex-deepseek-r1.csv";
  if (!std::filesystem::exists(data)) GTEST_SKIP() << data << " not present";
  const auto dir = std::filesystem::temp_directory_path() / ("gpuplan_prefill_cli_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string out = (dir / "efficiency.yaml").string();
  auto r = run_gpuplan("calibrate --inference --prefill --dataset " + data + " --write " + out + " --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = r.json();
  EXPECT_GT(j["fit_rows"].get<int>(), 100);
  EXPECT_GT(j["held_out_rows"].get<int>(), j["fit_rows"].get<int>());
  ASSERT_EQ(j["generations"].size(), 5u);
  for (const auto& g : j["generations"]) {
    EXPECT_GE(g["fitted"]["infer_mla_prefill_eff"].get<double>(), 0.10) << g.dump();
    // The catalog already holds the fit, so the loss stays (a generation's can rise a little: the
    // front ends it shares with other generations move with their fits).
    EXPECT_LE(g["loss_after"].get<double>(), g["loss_before"].get<double>() + 0.01) << g.dump();
  }
  EXPECT_GE(j["engines"].size(), 5u);
  auto cat = run_gpuplan("catalog list --catalog " + dir.string() + " --json");
  ASSERT_EQ(cat.exit_code, 0) << cat.err;
  // An overlay with a slower MLA prefill on Hopper.
  const std::string slow = (dir / "slow").string();
  std::filesystem::create_directories(slow);
  {
    std::ofstream f(slow + "/efficiency.yaml");
    f << "efficiencies:\n  - generation: hopper\n    gemm_max: 0.6464\n    gemm_half_dim: 156.7\n"
         "    gemm_fp8_scale: 0.8209\n    attention_eff: 0.4678\n    hbm_eff: 0.6499\n    scaleup_eff: 0.5244\n"
         "    scaleout_eff: 0.8257\n    kernel_overhead_s: 4.361e-06\n    infer_hbm_eff: 0.7866\n"
         "    infer_step_overhead_s: 0.001155\n    infer_kernel_overhead_s: 5.235e-06\n"
         "    infer_mla_prefill_eff: 0.1\n";
  }
  for (const char* model : {"deepseek-r1", "llama3.1-70b"}) {
    const std::string args = std::string("infer --model ") + model +
                             " --system hgx-h200 --tp 8 --isl 8192 --osl 256 --concurrency 1 --json";
    auto base = run_gpuplan(args), over = run_gpuplan(args + " --catalog " + slow);
    ASSERT_EQ(base.exit_code, 0) << base.err;
    ASSERT_EQ(over.exit_code, 0) << over.err;
    if (std::string(model) == "deepseek-r1")
      EXPECT_GT(over.json()["ttft_s"].get<double>(), 1.2 * base.json()["ttft_s"].get<double>());
    else
      EXPECT_DOUBLE_EQ(over.json()["ttft_s"].get<double>(), base.json()["ttft_s"].get<double>());
  }
  auto no_inference = run_gpuplan("calibrate --prefill --dataset " + data);
  EXPECT_EQ(no_inference.exit_code, 2);
  EXPECT_NE(no_inference.err.find("--prefill"), std::string::npos) << no_inference.err;
  auto bad_param = run_gpuplan("calibrate --inference --prefill --params infer_hbm_eff --dataset " + data);
  EXPECT_EQ(bad_param.exit_code, 2);
  EXPECT_NE(bad_param.err.find("--params"), std::string::npos) << bad_param.err;
  auto bad_value = run_gpuplan("calibrate --inference --prefill --dataset " + data + " --catalog " + slow + "x");
  EXPECT_EQ(bad_value.exit_code, 2);
  {
    const std::string badcat = (dir / "bad").string();
    std::filesystem::create_directories(badcat);
    std::ofstream f(badcat + "/efficiency.yaml");
    f << "efficiencies:\n  - generation: hopper\n    infer_mla_prefill_eff: 1.5\n";
    f.close();
    auto bad = run_gpuplan("infer --model deepseek-r1 --system hgx-h200 --catalog " + badcat);
    EXPECT_EQ(bad.exit_code, 2);
    EXPECT_NE(bad.err.find("infer_mla_prefill_eff"), std::string::npos) << bad.err;
  }
  std::filesystem::remove_all(dir);
}

// calibrate --engines on the inference.csv schema fits each engine's host work per sequence per step
// on the named sources' maximum-load rows; the file it writes holds the catalog's values (the
// catalog is that fit), `infer --engine tensorrt-llm-pytorch` applies it, and --fit-sources on the
// InferenceX schema is an error naming the option.
// calibrate --inference --params infer_mla_decode_eff: the MLA decode attention rate of the named
// generations on the TPOT of MLA models, written to a file the catalog reads; it is fitted on its own.
TEST(ValidateCli, CalibrateMlaDecodeRate) {
  const std::string data = kData + "inferencex-deepseek-r1.csv";
  if (!std::filesystem::exists(data)) GTEST_SKIP() << data << " not present";
  const auto dir = std::filesystem::temp_directory_path() / ("gpuplan_mla_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string out = (dir / "efficiency.yaml").string();
  auto r = run_gpuplan("calibrate --inference --params infer_mla_decode_eff --generation cdna4 --json --dataset " +
                       data + " --write " + out);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = r.json();
  ASSERT_EQ(j["generations"].size(), 1u);
  EXPECT_GT(j["generations"][0]["rows"].get<int>(), 100);
  const double rate = j["generations"][0]["fitted"]["infer_mla_decode_eff"].get<double>();
  EXPECT_GE(rate, 0.05);
  EXPECT_LE(rate, 0.95);
  auto cat = run_gpuplan("catalog list --catalog " + dir.string() + " --json");
  EXPECT_EQ(cat.exit_code, 0) << cat.err;
  auto both = run_gpuplan("calibrate --inference --params infer_mla_decode_eff,infer_hbm_eff --dataset " + data);
  EXPECT_EQ(both.exit_code, 2);
  EXPECT_NE(both.err.find("--params"), std::string::npos) << both.err;
  auto gen = run_gpuplan("calibrate --inference --params infer_mla_decode_eff --generation ampere --dataset " + data);
  EXPECT_EQ(gen.exit_code, 2);
  EXPECT_NE(gen.err.find("--generation"), std::string::npos) << gen.err;
  std::filesystem::remove_all(dir);
}

TEST(ValidateCli, CalibrateEnginesFitsHostWorkOnMaximumLoadRows) {
  const std::string data = kData + "inference.csv";
  if (!std::filesystem::exists(data)) GTEST_SKIP() << data << " not present";
  auto r = run_gpuplan("calibrate --engines --dataset " + data +
                       " --fit-sources TRTLLM-perf-overview-latest,TRTLLM-perf-overview-v0.17 --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = r.json();
  ASSERT_EQ(j["engines"].size(), 2u);
  for (const auto& e : j["engines"]) {
    EXPECT_GT(e["fit_rows"].get<int>(), 50) << e.dump();
    EXPECT_NEAR(e["host_per_seq_step_s"].get<double>(), e["host_per_seq_step_s_before"].get<double>(), 2e-6)
        << e.dump();
  }
  const std::string args = "infer --model qwen3-30b-a3b --system hgx-b200 --tp 1 --precision fp4 --isl 128 --osl 128 --json";
  auto bare = run_gpuplan(args), host = run_gpuplan(args + " --engine tensorrt-llm-pytorch");
  ASSERT_EQ(bare.exit_code, 0) << bare.err;
  ASSERT_EQ(host.exit_code, 0) << host.err;
  EXPECT_LT(host.json()["tokens_per_s_per_gpu"].get<double>(), bare.json()["tokens_per_s_per_gpu"].get<double>());
  auto wrong = run_gpuplan("calibrate --engines --dataset " + kData + "inferencex-deepseek-r1.csv --fit-sources x");
  EXPECT_EQ(wrong.exit_code, 2);
  EXPECT_NE(wrong.err.find("--fit-sources"), std::string::npos) << wrong.err;
}

TEST(ValidateCli, FiguresCarryBands) {
  auto t = run_gpuplan("train --model llama3.1-8b --system hgx-h100 --gpus 8 --global-batch 64 --seq 4096 "
                       "--plan tp=2,pp=1 --json");
  ASSERT_EQ(t.exit_code, 0) << t.err;
  auto band = t.json()["band"]["tokens_per_s_per_gpu"];
  EXPECT_LT(band["low"].get<double>(), band["value"].get<double>());
  EXPECT_GT(band["high"].get<double>(), band["value"].get<double>());
  EXPECT_GT(band["basis"]["rows"].get<int>(), 10);
  auto text = run_gpuplan("train --model llama3.1-8b --system hgx-h100 --gpus 8 --global-batch 64 --seq 4096 "
                          "--plan tp=2,pp=1");
  EXPECT_TRUE(has(text.out, "+/- ")) << text.out;
}

TEST(ValidateCli, BandOptionsNeedBands) {
  for (const std::string args : {"--serving x.csv", "--training x.csv", "--new-ground x.csv", "--write-bands x.yaml"}) {
    auto r = run_gpuplan("calibrate --dataset " + kData + "training.csv " + args);
    EXPECT_EQ(r.exit_code, 2) << args;
    EXPECT_TRUE(has(r.err, args.substr(0, args.find(' ')))) << r.err;
  }
}

}  // namespace
