// Serving rows read as written: the notes' attention-DP and MTP vocabulary, lengths from the MLPerf
// benchmark's rules when the row leaves them blank, rows that contradict themselves flagged (not
// scored), and a latency-limited row with a blank TP run at the TP that meets its scenario's limits.
#include <gtest/gtest.h>

#include <string>

#include "catalog/catalog.h"
#include "core/csv.h"
#include "inference/chooser.h"
#include "validate/inference_cases.h"
#include "validate/inference_rows_testing.h"
#include "validate/notes_deployment.h"
#include "validate/row_command.h"
#include "validate/row_contradiction.h"
#include "validate/row_scenario.h"
#include "validate/scenario_rules.h"

namespace gpuplan {
namespace {

using inference_rows_testing::inference_rows;  // rows of inference.csv's schema written inline
using inference_rows_testing::row_says;

bool contains_text(const std::string& s, const std::string& what) { return s.find(what) != std::string::npos; }

TEST(NotesServing, AttentionDpVocabulary) {
  for (const char* on : {"attention-DP on 8 GPUs", "with attention DP", "attention_dp enabled",
                         "attention data-parallel", "Attention data parallelism", "attn-DP", "attn DP 8", "ADP + EP8",
                         "enable_attention_dp: true", "enable_attention_dp=true", "DP attention enabled",
                         "SGLang --enable-dp-attention", "enable_dp_attention=true", "with dp-attention"}) {
    const NotesServing n = read_notes_serving(on);
    EXPECT_EQ(n.attention_dp, 1) << on;
    EXPECT_FALSE(n.said.empty()) << on;
  }
  for (const char* off : {"no attention-DP", "without attention DP", "w/o ADP", "non-ADP", "attention-DP off",
                          "attention dp disabled", "enable_attention_dp=false", "enable_attention_dp: 0",
                          "no DP attention", "enable_dp_attention=false", "dp-attention off"})
    EXPECT_EQ(read_notes_serving(off).attention_dp, 0) << off;
  const NotesServing dep = read_notes_serving("DEP8 = attention data-parallel 8 + expert-parallel 8");
  EXPECT_EQ(dep.attention_dp, 1);
  EXPECT_EQ(dep.attention_dp_ranks, 8);
  const NotesServing tep = read_notes_serving("TEP4 on B200");
  EXPECT_EQ(tep.attention_dp, 0);
  EXPECT_EQ(tep.tp_ep, 4);
  // Not statements: AIConfigurator's key, a bare recipe option, words containing the letters.
  for (const char* none : {"attn_dp=4 moe_ep=4", "attention-DP not stated in table", "doc uses --ep $ep_size and enable_attention_dp for MoE",
                           "loadpoint", "adaptive batching", "dep19 is not a layout", ""})
    EXPECT_EQ(read_notes_serving(none).attention_dp, none == std::string("dep19 is not a layout") ? 1 : -1) << none;
}

TEST(NotesServing, MtpVocabulary) {
  struct Case {
    const char* notes;
    int mtp, drafts;
  };
  const Case cases[] = {
      {"MTP", 1, 0},
      {"with MTP=3", 1, 3},
      {"MTP 2 (spec decode)", 1, 2},
      {"mtp3", 1, 3},
      {"multi-token prediction, 3 draft tokens", 1, 3},
      {"speculative decoding: EAGLE with the MTP head, draft_tokens=1", 1, 1},
      {"num_nextn_predict_layers=3", 1, 3},
      {"nextn: 2", 1, 2},
      {"num_speculative_tokens=3", 1, 3},
      {"no MTP", 0, 0},
      {"without MTP", 0, 0},
      {"MTP off", 0, 0},
      {"mtp=0", 0, 0},
      {"non-MTP baseline", 0, 0},
      {"MTP not used", 0, 0},
      {"mtp: none", 0, 0},
      {"MTP n/a", 0, 0},
      {"MTP not stated in the table", -1, 0},  // unknown: neither on nor off
      {"dsr1_fp8_b200_mtp.sh", -1, 0},  // a script name, not a statement
      {"MTP 99", 1, 0},                 // a count beyond 16 is not read
      {"", -1, 0},
  };
  for (const Case& c : cases) {
    const NotesServing n = read_notes_serving(c.notes);
    EXPECT_EQ(n.mtp, c.mtp) << c.notes;
    EXPECT_EQ(n.mtp_draft_tokens, c.drafts) << c.notes;
  }
}

TEST(NotesServing, MeasuredAcceptanceAndTwoBatchOverlap) {
  // A stated acceptance becomes the per-draft acceptance a that gives it: length 1 + a + ... + a^k,
  // rate (a + ... + a^k) / k.
  const NotesServing len = read_notes_serving("MTP=3, mean acceptance length 2.8");
  EXPECT_DOUBLE_EQ(len.mtp_accept_length, 2.8);
  const double a = notes_mtp_accept(len, 3);
  EXPECT_NEAR(1 + a + a * a + a * a * a, 2.8, 1e-9);
  const NotesServing rate = read_notes_serving("EAGLE, 3 draft tokens, acceptance rate 62%");
  EXPECT_DOUBLE_EQ(rate.mtp_accept_rate, 0.62);
  const double r = notes_mtp_accept(rate, 3);
  EXPECT_NEAR((r + r * r + r * r * r) / 3, 0.62, 1e-9);
  EXPECT_NEAR(notes_mtp_accept(read_notes_serving("MTP 1, acceptance 0.7"), 1), 0.7, 1e-9);  // one draft: the rate
  EXPECT_DOUBLE_EQ(read_notes_serving("MTP, acceptance 2.4").mtp_accept_length, 2.4);         // more than one: a length
  EXPECT_EQ(notes_mtp_accept(read_notes_serving("MTP=1, acceptance length 5"), 1), 0.0);      // out of reach at 1 draft
  EXPECT_EQ(read_notes_serving("no MTP; acceptance 0.7").mtp_accept_rate, 0.0);               // read with MTP on only
  EXPECT_EQ(notes_mtp_accept(read_notes_serving("MTP=3"), 3), 0.0);                          // none stated
  for (const char* on : {"two-batch overlap", "SGLang TBO", "Two batch overlap enabled"})
    EXPECT_EQ(read_notes_serving(on).two_batch_overlap, 1) << on;
  for (const char* off : {"no TBO", "two-batch overlap off", "without two-batch overlap"})
    EXPECT_EQ(read_notes_serving(off).two_batch_overlap, 0) << off;
  for (const char* none : {"", "tbox", "TBO not stated"}) EXPECT_EQ(read_notes_serving(none).two_batch_overlap, -1) << none;
}

TEST(NotesServing, RowsHonourTheirNotes) {
  const std::string row = "X,x,DeepSeek-R1,671,37,B200,8,,,1,FP4,FP8,TensorRT-LLM,1024,1024,64,server,"
                          "tokens_per_sec_per_gpu,1000,";
  const CsvTable t = inference_rows(row + "DEP8 with MTP=2\n" + row + "TEP8; no MTP\n" + row +
                                        "\"attention-DP, MTP\"\n" +
                                        "X,x,Llama-3.1-70B,70,70,H100-SXM,8,8,,1,FP8,FP8,TensorRT-LLM,1024,1024,64,server,"
                                        "tokens_per_sec_per_gpu,1000,attention-DP; MTP 3\n");
  std::vector<SkippedRow> skipped;
  const auto cases = map_inference_cases(t, Catalog::load({}), skipped);
  ASSERT_EQ(cases.size(), 4u) << (skipped.empty() ? "" : skipped[0].reason);
  EXPECT_TRUE(cases[0].parallel.attention_dp);
  EXPECT_EQ(cases[0].parallel.tp, 8);
  EXPECT_EQ(cases[0].parallel.ep, 8);
  EXPECT_EQ(cases[0].workload.mtp_draft_tokens, 2);
  EXPECT_EQ(cases[0].spec_decode, "mtp");
  EXPECT_FALSE(cases[1].parallel.attention_dp);
  EXPECT_EQ(cases[1].parallel.tp, 8);
  EXPECT_EQ(cases[1].workload.mtp_draft_tokens, 0);
  EXPECT_TRUE(cases[2].parallel.attention_dp);
  EXPECT_EQ(cases[2].parallel.tp, 8);  // attention-DP over the row's GPUs
  EXPECT_GT(cases[2].workload.mtp_draft_tokens, 0);
  // A dense model: attention-DP ranks are instances; no MTP module: said, not modelled.
  EXPECT_FALSE(cases[3].parallel.attention_dp);
  EXPECT_EQ(cases[3].workload.mtp_draft_tokens, 0);
  EXPECT_TRUE(row_says(cases[3], "no MTP module"));
  EXPECT_TRUE(row_says(cases[3], "dense model"));
  // The replay command states what the notes said.
  EXPECT_GT(predict_inference_case(cases[0]), 0);
}

// The concurrency cell as written: a count ("1k", "~100" read as 100), a word for the maximum load, or a
// reason not to read the row; stated two-batch overlap runs on an MoE layout with EP.
TEST(ServingRows, ConcurrencyCellsAndStatedTwoBatchOverlap) {
  const auto row = [](const std::string& conc, const std::string& notes) {
    return "X,x,DeepSeek-R1,671,37,B200,8,8,8,1,FP8,FP8,SGLang,1024,1024," + conc +
           ",offline,tokens_per_sec_total,1000," + notes + "\n";
  };
  const CsvTable t = inference_rows(row("1k", "") + row("~100", "") + row("max", "") + row("about a hundred", "") +
                                    row("64", "DP attention with two-batch overlap"));
  std::vector<SkippedRow> skipped;
  const auto cases = map_inference_cases(t, Catalog::load({}), skipped);
  ASSERT_EQ(cases.size(), 4u);
  EXPECT_EQ(cases[0].workload.concurrency, 1024);
  EXPECT_EQ(cases[1].workload.concurrency, 100);
  EXPECT_TRUE(row_says(cases[1], "read as 100"));
  EXPECT_EQ(cases[2].workload.concurrency, 0);  // the maximum load
  ASSERT_EQ(skipped.size(), 1u);
  EXPECT_EQ(skipped[0].row, 3);
  EXPECT_TRUE(contains_text(skipped[0].reason, "not a count")) << skipped[0].reason;
  EXPECT_TRUE(cases[3].parallel.attention_dp);
  EXPECT_TRUE(cases[3].parallel.two_batch_overlap);
}

// A source whose recipe runs every MoE model with attention-DP (TensorRT-LLM's perf overview: "For MoE
// models ... enable_attention_dp: true", its rows leaving EP blank) is read with it, GQA and MLA models
// alike; a dense model, a stated EP or notes that turn it off are read as written.
TEST(NotesServing, ARecipesAttentionDpForMoeRunsIsRead) {
  const std::string recipe =
      "\"MoE model: EP size not stated in table (doc uses --ep $ep_size and enable_attention_dp for MoE)\"\n";
  const std::string tail = ",1,FP8,,TensorRT-LLM v1.0 (PyTorch backend),128,2048,,offline,tokens_per_sec_total,40000,";
  const std::string maverick = "X,x,Llama-4-Maverick-17B-128E,400,17,H200-SXM,8,8,";
  const CsvTable t = inference_rows(maverick + tail + recipe +                                   // GQA MoE
                                    "X,x,DeepSeek-R1,671,37,B200,8,8," + tail + recipe +        // MLA MoE
                                    "X,x,Llama-3.3-70B,70,70,H200-SXM,8,8," + tail + recipe +   // dense
                                    maverick + "8" + tail + recipe +                            // EP stated
                                    maverick + tail + "enable_attention_dp=false\n");          // turned off
  std::vector<SkippedRow> skipped;
  const auto cases = map_inference_cases(t, Catalog::load({}), skipped);
  ASSERT_EQ(cases.size(), 5u) << (skipped.empty() ? "" : skipped[0].reason);
  for (int i : {0, 1}) {
    EXPECT_TRUE(cases[i].parallel.attention_dp) << i;
    EXPECT_EQ(cases[i].parallel.tp, 8) << i;
    EXPECT_EQ(cases[i].parallel.ep, 8) << i;
    EXPECT_TRUE(row_says(cases[i], "enable_attention_dp in the source's recipe: attention-DP 8 + EP 8")) << i;
  }
  EXPECT_FALSE(cases[2].parallel.attention_dp);
  EXPECT_FALSE(cases[3].parallel.attention_dp);
  EXPECT_FALSE(cases[4].parallel.attention_dp);
}

// AIConfigurator's dump states a single-node InferenceX run of TP t with EP e as tp (or attn_dp) = t x e,
// moe_tp = t, moe_ep = e (data/serving/source_conventions.yaml): a width beyond the 8-GPU node that is
// moe_tp x moe_ep with moe_tp = moe_ep is read as TP (or attention-DP) moe_ep, EP moe_ep on moe_ep
// GPUs, and says so. Another source, or a width the node holds, is read as written.
TEST(SourceConventionRows, ASingleNodeRunStatedAsTpTimesEpIsReadOnOneNode) {
  const std::string tail = ",1,FP4,FP8,sglang 0.5.9,1024,1024,32,server,tpot_ms,15.9,";
  const std::string notes16 = "agg: tp=16 pp=1 attn_dp=1 moe_tp=4 moe_ep=4 batch=32\n";
  const std::string dp16 = "agg: tp=1 pp=1 attn_dp=16 moe_tp=4 moe_ep=4 batch=32\n";
  const CsvTable t = inference_rows(
      "AIC-silicon-sample,x,DeepSeek-R1,671,37,B200,16,16,4" + tail + notes16 +                  // read on 4 GPUs
      "AIC-silicon-sample,x,DeepSeek-R1,671,37,B200,16,1,4" + tail + dp16 +                      // attention-DP 4
      "OTHER-lab,x,DeepSeek-R1,671,37,B200,16,16,4" + tail + notes16 +                           // another source
      "AIC-silicon-sample,x,DeepSeek-R1,671,37,B200,8,8,8" + tail +
      "agg: tp=8 pp=1 attn_dp=1 moe_tp=1 moe_ep=8 batch=32\n");                                 // one node already
  std::vector<SkippedRow> skipped;
  const auto cases = map_inference_cases(t, Catalog::load({}), skipped);
  ASSERT_EQ(cases.size(), 4u) << (skipped.empty() ? "" : skipped[0].reason);
  EXPECT_EQ(cases[0].parallel.tp, 4);
  EXPECT_EQ(cases[0].parallel.ep, 4);
  EXPECT_FALSE(cases[0].parallel.attention_dp);
  EXPECT_EQ(cases[0].workload.num_gpus, 4);
  EXPECT_TRUE(row_says(cases[0], "tp 16 = moe_tp 4 x moe_ep 4 beyond one 8-GPU node"));
  EXPECT_EQ(cases[1].parallel.tp, 4);
  EXPECT_TRUE(cases[1].parallel.attention_dp);
  EXPECT_EQ(cases[1].parallel.ep, 4);
  EXPECT_EQ(cases[1].workload.num_gpus, 4);
  EXPECT_EQ(cases[2].parallel.tp, 16);
  EXPECT_EQ(cases[2].workload.num_gpus, 16);
  EXPECT_EQ(cases[3].parallel.tp, 8);
  EXPECT_EQ(cases[3].workload.num_gpus, 8);
  EXPECT_FALSE(row_says(cases[3], "beyond one"));
}

TEST(ScenarioRules, TheDataFileListsTheBenchmarksWithTheirLimits) {
  const auto& all = mlperf_benchmarks();
  ASSERT_GE(all.size(), 8u);
  const MlperfBenchmark* l70 = find_mlperf_benchmark(true, "", "", "Llama-2-70B", "server");
  ASSERT_TRUE(l70);
  EXPECT_EQ(l70->name, "llama2-70b");
  EXPECT_DOUBLE_EQ(l70->server.ttft_ms, 2000);
  EXPECT_DOUBLE_EQ(l70->server.tpot_ms, 200);
  EXPECT_DOUBLE_EQ(l70->osl_mean, 294.45);
  const MlperfBenchmark* l70i = find_mlperf_benchmark(true, "", "", "Llama-2-70B", "interactive");
  ASSERT_TRUE(l70i);
  EXPECT_EQ(l70i->name, "llama2-70b-interactive");
  EXPECT_DOUBLE_EQ(l70i->limits("interactive").tpot_ms, 40);
  const MlperfBenchmark* l8 =
      find_mlperf_benchmark(false, "", "benchmark llama3_1-8b-interactive-99", "Llama-3.1-8B", "server");
  ASSERT_TRUE(l8);
  EXPECT_DOUBLE_EQ(l8->limits("server").tpot_ms, 30);
  const MlperfBenchmark* r1 = find_mlperf_benchmark(true, "", "", "DeepSeek-R1", "server");
  ASSERT_TRUE(r1);
  EXPECT_DOUBLE_EQ(r1->server.tpot_ms, 80);
  EXPECT_EQ(r1->isl_max, 3136);
  // Mixtral has no Interactive scenario: its Server limits stand.
  const MlperfBenchmark* mx = find_mlperf_benchmark(true, "", "", "Mixtral-8x7B", "interactive");
  ASSERT_TRUE(mx);
  EXPECT_DOUBLE_EQ(mx->limits("interactive").tpot_ms, 200);
  // Not an MLPerf row: its URL naming a model is no benchmark.
  EXPECT_FALSE(find_mlperf_benchmark(false, "https://x/deepseek-r1/blog", "", "DeepSeek-R1", "server"));
}

TEST(ScenarioRules, BlankLengthsComeFromTheBenchmark) {
  const CsvTable t = inference_rows(
          "MLPerf-v5.1,x,DeepSeek-R1,671,37,B200,8,,,,FP4,,TensorRT-LLM,,,,offline,tokens_per_sec_total,20000,\n"
          "MLPerf-v5.1,x,Llama-3.1-8B,8,8,H200-SXM,8,1,,,FP8,,TensorRT-LLM,,,,offline,tokens_per_sec_total,20000,\n"
          "MLPerf-v5.1,x,Llama-2-70B,70,70,H200-SXM,8,1,,,FP8,,TensorRT-LLM,,,,offline,tokens_per_sec_total,20000,"
          "samples/s 10 (implies 290.5 output tokens/sample)\n"
          "Blog,x,Llama-2-70B,70,70,H200-SXM,8,1,,,FP8,,vLLM,,128,,offline,tokens_per_sec_total,20000,\n");
  std::vector<SkippedRow> skipped;
  const auto cases = map_inference_cases(t, Catalog::load({}), skipped);
  ASSERT_EQ(cases.size(), 3u);
  EXPECT_EQ(cases[0].workload.isl, 800);
  EXPECT_EQ(cases[0].workload.osl, 3886);
  EXPECT_TRUE(row_says(cases[0], "deepseek-r1 dataset mean input tokens"));
  EXPECT_EQ(cases[1].workload.isl, 800);
  EXPECT_EQ(cases[1].workload.osl, 128);
  EXPECT_EQ(cases[2].workload.isl, 300);
  EXPECT_EQ(cases[2].workload.osl, 291);  // the run's own output length, from its notes
  ASSERT_EQ(skipped.size(), 1u);
  EXPECT_EQ(skipped[0].row, 3u);
  EXPECT_TRUE(contains_text(skipped[0].reason, "isl blank")) << skipped[0].reason;
  EXPECT_TRUE(skipped[0].flag.empty());
}

// An MLPerf Open-division result whose system names a change to the model (depth-pruned, 2:4 sparse)
// ran another network than its model column's: skipped with the reason. A Closed result, and an Open
// one whose system names no change (whatever its notes say), are read as the model named.
TEST(ScenarioRules, AnOpenDivisionResultOfAChangedModelIsNotScored) {
  const std::string base = "https://github.com/mlcommons/inference_results_v4.1/blob/main/";
  const std::string row = ",Llama-2-70B,70,70,H200-SXM,1,,,,FP8,FP8,TensorRT,,,,offline,tokens_per_sec_total,4000,\n";
  const CsvTable t = inference_rows(
      "MLPerf-v4.1," + base + "open/NVIDIA/results/H200-SXM-141GBx1_TRT_DepthPruned/llama2-70b-99/Offline" + row +
      "MLPerf-v4.1," + base + "open/NVIDIA/results/H200-SXM-141GBx1_TRT_Sparse/llama2-70b-99/Offline" + row +
      "MLPerf-v4.1," + base + "open/NVIDIA/results/H200-SXM-141GBx1_TRT/llama2-70b-99/Offline" + row +
      "MLPerf-v4.1," + base + "closed/NVIDIA/results/H200-SXM-141GBx1_TRT/llama2-70b-99/Offline" + row +
      "MLPerf-v4.1," + base + "open/NVIDIA/results/H200-SXM-141GBx1_TRT/llama2-70b-99/Offline" +
      row.substr(0, row.size() - 1) + "a model's own sparse attention in the notes\n");
  std::vector<SkippedRow> skipped;
  const auto cases = map_inference_cases(t, Catalog::load({}), skipped);
  EXPECT_EQ(cases.size(), 3u);
  ASSERT_EQ(skipped.size(), 2u);
  EXPECT_EQ(skipped[0].row, 0u);
  EXPECT_TRUE(contains_text(skipped[0].reason, "Open-division result of a changed model ('pruned'")) << skipped[0].reason;
  EXPECT_EQ(skipped[1].row, 1u);
  EXPECT_TRUE(contains_text(skipped[1].reason, "('sparse'")) << skipped[1].reason;
  EXPECT_FALSE(mlperf_open_model_change(nullptr, base + "open/X/results/Y_Sparse/z").has_value());
}

MlperfHarnessQuery harness_query(const std::string& engine, const std::string& framework, const std::string& vendor,
                                 const std::string& accelerator, const std::string& scenario,
                                 const std::string& benchmark = "llama2-70b", const std::string& round = "v5.1") {
  return {engine, framework, vendor, accelerator, scenario, benchmark, round};
}

// AMD's MLPerf harness runs vLLM's V0 engine with multi-step scheduling in the Server scenario: the
// data file's harness applies by engine, vendor, scenario and the framework cell's release, nowhere else.
TEST(ScenarioRules, ASubmittersHarnessAppliesByEngineVendorScenarioAndRelease) {
  const MlperfHarness* h =
      find_mlperf_harness(harness_query("vllm", "vLLM 0.9.0.2.dev108+g71faa1880.rocm641, ROCm 6.4", "AMD", "MI325X",
                                        "server"));
  ASSERT_NE(h, nullptr);
  EXPECT_EQ(h->scheduler_steps, 9);
  EXPECT_FALSE(h->sets_deployment());
  EXPECT_EQ(find_mlperf_harness(harness_query("vllm", "vLLM v0.6.5", "AMD", "MI300X", "Server")), h);
  // before multi-step scheduling; the V0 engine removed; no release stated; another vendor; another engine
  EXPECT_FALSE(find_mlperf_harness(harness_query("vllm", "vLLM 0.4.3+rocm614", "AMD", "MI300X", "server")));
  EXPECT_FALSE(find_mlperf_harness(harness_query("vllm", "vLLM 0.11.0", "AMD", "MI300X", "server")));
  EXPECT_FALSE(find_mlperf_harness(harness_query("vllm", "vLLM (ROCm)", "AMD", "MI300X", "server")));
  EXPECT_FALSE(find_mlperf_harness(harness_query("vllm", "vLLM 0.9.0", "NVIDIA", "H200-SXM", "server")));
  EXPECT_FALSE(find_mlperf_harness(harness_query("tensorrt-llm", "TensorRT-LLM 0.9.0", "AMD", "MI300X", "server")));
  // The Interactive configuration is MI300X's alone (MI325X's runs chunked prefill, one step at a time).
  const MlperfHarness* i = find_mlperf_harness(harness_query("vllm", "vLLM 0.9.0", "AMD", "MI300X", "interactive"));
  ASSERT_NE(i, nullptr);
  EXPECT_EQ(i->scheduler_steps, 8);
  EXPECT_FALSE(find_mlperf_harness(harness_query("vllm", "vLLM 0.9.0", "AMD", "MI325X", "interactive")));

  // NVIDIA's harness: the round's configuration of a benchmark on an accelerator, for its round only.
  const MlperfHarness* n = find_mlperf_harness(
      harness_query("tensorrt-llm", "TensorRT 10.11, CUDA 12.9", "NVIDIA", "h200-sxm", "server", "llama3_1-8b"));
  ASSERT_NE(n, nullptr);
  EXPECT_EQ(n->tp, 1);
  EXPECT_EQ(n->max_num_tokens, 1536);
  EXPECT_EQ(n->kv_admission, "current_length");
  EXPECT_FALSE(find_mlperf_harness(
      harness_query("tensorrt-llm", "TensorRT 10.2.0", "NVIDIA", "h200-sxm", "server", "llama3_1-8b", "v4.1")));
  EXPECT_FALSE(find_mlperf_harness(
      harness_query("tensorrt-llm", "TensorRT 10.11", "NVIDIA", "h200-sxm", "server", "llama3_1-8b", "")));
  const MlperfHarness* r1 = find_mlperf_harness(
      harness_query("tensorrt-llm", "TensorRT 10.11", "NVIDIA", "b200", "offline", "deepseek-r1"));
  ASSERT_NE(r1, nullptr);
  EXPECT_TRUE(r1->attention_dp);
  EXPECT_EQ(r1->ep, 8);
  // Red Hat's vLLM harness (v5.1 Llama 3.1 8B on H100): its README's token budget and sequence cap per
  // scenario; on another engine, vendor or round, not.
  const MlperfHarness* rh = find_mlperf_harness(
      harness_query("vllm", "vLLM 0.10.0, RHEL 9.6", "NVIDIA", "h100-sxm", "server", "llama3_1-8b"));
  ASSERT_NE(rh, nullptr);
  EXPECT_EQ(rh->max_num_tokens, 1024);
  EXPECT_EQ(rh->max_batch_size, 512);
  EXPECT_FALSE(rh->sets_deployment());
  EXPECT_FALSE(find_mlperf_harness(
      harness_query("vllm", "vLLM 0.10.0", "NVIDIA", "h100-sxm", "server", "llama3_1-8b", "v5.0")));
  // The interactive variant of a benchmark is the benchmark's.
  const MlperfHarness* l405 = find_mlperf_harness(
      harness_query("tensorrt-llm", "TensorRT 10.11", "NVIDIA", "b200", "interactive", "llama3_1-405b-interactive"));
  ASSERT_NE(l405, nullptr);
  EXPECT_EQ(l405->tp, 4);
  // The prompts' attention in FP8 where the round's configurations enable it (use_fp8_context_fmha):
  // Llama's, not Mixtral's Offline; DeepSeek-R1's MLA prompts keep their fitted rate (not set).
  EXPECT_TRUE(n->fp8_context_attention);
  EXPECT_TRUE(l405->fp8_context_attention);
  const MlperfHarness* mixtral = find_mlperf_harness(
      harness_query("tensorrt-llm", "TensorRT 10.11", "NVIDIA", "b200", "offline", "mixtral-8x7b"));
  ASSERT_NE(mixtral, nullptr);
  EXPECT_FALSE(mixtral->fp8_context_attention);
  EXPECT_FALSE(r1->fp8_context_attention);

  EXPECT_EQ(mlperf_round("https://github.com/mlcommons/inference_results_v5.1/blob/main/closed/x", ""), "v5.1");
  EXPECT_EQ(mlperf_round("", "MLPerf-v5.1"), "v5.1");
  EXPECT_EQ(mlperf_round("https://github.com/mlcommons/inference_results_v5.10/x", "blog"), "v5.10");
  EXPECT_EQ(mlperf_round("https://example.com/x", "vendor blog"), "");

  const std::string url = "https://github.com/mlcommons/inference_results_v5.1/blob/main/closed/AMD/results/"
                          "8xMI325X_2xEPYC_9575F/llama2-70b-99/";
  const CsvTable t = inference_rows(
      "MLPerf-v5.1," + url + "Server/x,Llama-2-70B,70,70,MI325X,8,,,,FP8,,vLLM 0.9.0.2.dev108+rocm641,,,,"
      "server,ttft_ms,900,\n"
      "MLPerf-v5.1," + url + "Offline/x,Llama-2-70B,70,70,MI325X,8,,,,FP8,,vLLM 0.9.0.2.dev108+rocm641,,,,"
      "offline,tokens_per_sec_total,30000,\n"
      "MLPerf-v4.1," + url + "Server/x,Llama-2-70B,70,70,MI300X,8,,,,FP8,,vLLM 0.4.3+rocm614,,,,"
      "server,ttft_ms,900,\n");
  std::vector<SkippedRow> skipped;
  const auto cases = map_inference_cases(t, Catalog::load({}), skipped);
  ASSERT_EQ(cases.size(), 3u) << (skipped.empty() ? "" : skipped[0].reason);
  EXPECT_EQ(cases[0].workload.scheduler_recv_interval, 9);
  EXPECT_TRUE(row_says(cases[0], "multi-step scheduling in the server scenario"));
  EXPECT_TRUE(contains_text(serving_row_command(Catalog::load({}), cases[0]), "--scheduler-recv-interval 9"));
  EXPECT_EQ(cases[1].workload.scheduler_recv_interval, 1);
  EXPECT_EQ(cases[2].workload.scheduler_recv_interval, 1);
  // New requests wait for the end of a run of decode steps: the first token comes later, the load is the same.
  InferenceCase every = cases[0];
  every.workload.scheduler_recv_interval = 1;
  const InferenceResult nine = evaluate_case(cases[0]), one = evaluate_case(every);
  EXPECT_GT(nine.ttft_s, one.ttft_s + 3 * nine.decode_step.total_s);

  // NVIDIA's v5.1 Llama 3.1 8B configuration: its row runs the prompts' attention in FP8, says so and
  // replays it.
  const CsvTable nv = inference_rows(
      "MLPerf-v5.1,https://github.com/mlcommons/inference_results_v5.1/blob/main/closed/NVIDIA/results/"
      "B200-SXM-180GBx8_TRT/llama3.1-8b/Offline/x,Llama-3.1-8B,8,8,B200,8,,,,,,TensorRT 10.11,,,,offline,"
      "tokens_per_sec_total,140000,\n");
  std::vector<SkippedRow> nv_skipped;
  const auto nv_cases = map_inference_cases(nv, Catalog::load({}), nv_skipped);
  ASSERT_EQ(nv_cases.size(), 1u) << (nv_skipped.empty() ? "" : nv_skipped[0].reason);
  EXPECT_TRUE(nv_cases[0].workload.fp8_context_attention);
  EXPECT_TRUE(row_says(nv_cases[0], "the prompts' attention in FP8"));
  EXPECT_TRUE(contains_text(serving_row_command(Catalog::load({}), nv_cases[0]), "--context-attention fp8"));
  EXPECT_TRUE(nv_cases[0].engine_release.empty());  // Llama's engines: the C++ executor, no release stated
}

// NVIDIA's v5.1 harness serves DeepSeek-R1 through trtllm-serve on TensorRT-LLM's PyTorch backend at
// release 1.0 although its rows' framework cells name TensorRT only: the row runs that engine entry and
// release (its MoE kernels at the release's fitted share), says so and replays it; every `runs` the data
// file states names a catalog engine and one of its releases.
TEST(ScenarioRules, AHarnessStatesTheEngineAndReleaseItRuns) {
  const Catalog cat = Catalog::load({});
  for (const MlperfHarness& h : mlperf_harnesses()) {
    if (h.runs.empty()) continue;
    const ServingEngine* e = cat.find_serving_engine(h.runs);
    ASSERT_NE(e, nullptr) << h.runs;
    EXPECT_NE(find_engine_release(*e, framework_release(h.runs)), nullptr) << h.runs;
  }
  for (const std::string accelerator : {"b200", "gb300", "h200-sxm"}) {
    const MlperfHarness* r1 = find_mlperf_harness(
        harness_query("tensorrt-llm", "TensorRT 10.11", "NVIDIA", accelerator, "server", "deepseek-r1"));
    ASSERT_NE(r1, nullptr) << accelerator;
    EXPECT_EQ(r1->runs, "TensorRT-LLM PyTorch 1.0") << accelerator;
  }
  const std::string row = "MLPerf-v5.1,https://github.com/mlcommons/inference_results_v5.1/blob/main/closed/NVIDIA/"
                          "results/B200-SXM-180GBx8_TRT/deepseek-r1/Offline/x,DeepSeek-R1,671,37,B200,8,,,,FP4,,"
                          "TensorRT 10.11,,,,offline,tokens_per_sec_total,30000,\n";
  std::vector<SkippedRow> skipped;
  const auto cases = map_inference_cases(inference_rows(row), cat, skipped);
  ASSERT_EQ(cases.size(), 1u) << (skipped.empty() ? "" : skipped[0].reason);
  EXPECT_EQ(cases[0].engine_release, "1.0");
  EXPECT_TRUE(row_says(cases[0], "runs TensorRT-LLM PyTorch 1.0"));
  const std::string cmd = serving_row_command(cat, cases[0]);
  EXPECT_TRUE(contains_text(cmd, "--engine tensorrt-llm-pytorch")) << cmd;
  EXPECT_TRUE(contains_text(cmd, "--engine-release 1.0")) << cmd;
  // The release's MoE kernels are slower than the newest's: the same row at the newest release gives more.
  InferenceCase newest = cases[0];
  newest.workload.moe_kernel_share = 1.0;
  EXPECT_GT(evaluate_case(newest).tokens_per_s_total, 1.1 * evaluate_case(cases[0]).tokens_per_s_total);
}

TEST(RowContradiction, FiguresOfOneRun) {
  RunFigures f;
  add_metric_figure(f, "tokens_per_sec_per_gpu", 1000, 8, "row 1");
  add_notes_figures(f, "interactivity 25 tok/s/user at this point");
  EXPECT_DOUBLE_EQ(f.per_user, 25);
  EXPECT_FALSE(figures_contradiction(f, 320, 8));  // 25 x 320 / 8 = 1000
  // The per-user rate implies 40x the per-GPU figure.
  const auto why = figures_contradiction(f, 320 * 40, 8);
  ASSERT_TRUE(why);
  EXPECT_TRUE(contains_text(*why, "40x")) << *why;
  // And a per-GPU figure the users cannot receive.
  ASSERT_TRUE(figures_contradiction(f, 100, 8));
  EXPECT_TRUE(contains_text(*figures_contradiction(f, 100, 8), "cannot give more")) << *figures_contradiction(f, 100, 8);
  // TPOT stands for the per-user rate; missing figures are no contradiction.
  RunFigures g;
  add_notes_figures(g, "Mean TPOT=20 ms; 812.5 output tokens/s per GPU");
  EXPECT_DOUBLE_EQ(g.per_user, 50);
  EXPECT_DOUBLE_EQ(g.per_gpu, 812.5);
  EXPECT_FALSE(figures_contradiction(g, 130, 8));
  EXPECT_FALSE(figures_contradiction(RunFigures{}, 100, 8));
  // A known TTFT explains a long wait: 25 tok/s/user, 1000 output tokens (40 s decode), a 30-minute
  // queue for the first token: 46x is what that run gives.
  RunFigures queued = f;
  add_metric_figure(queued, "ttft_ms", 1800e3, 8, "row 2");
  EXPECT_FALSE(figures_contradiction(queued, 320 * 40, 8, 1000));
  EXPECT_TRUE(figures_contradiction(queued, 320 * 40, 8, 0));  // without the lengths, the bound stands
  MlperfBenchmark b;
  b.name = "llama2-70b";
  b.isl_max = 1024;
  b.osl_max = 1024;
  EXPECT_TRUE(lengths_contradiction(8192, 128, b));
  EXPECT_TRUE(lengths_contradiction(300, 2048, b));
  EXPECT_FALSE(lengths_contradiction(1024, 1024, b));
}

TEST(RowContradiction, FlaggedRowsAreListedNotScored) {
  const std::string run = "Blog,x,Llama-3.1-70B,70,70,H100-SXM,8,8,,1,FP8,FP8,vLLM,1024,1024,256,server,";
  const CsvTable t = inference_rows(run + "tokens_per_sec_per_gpu,100,\n" + run + "tokens_per_sec_per_user,125,\n" +
          // per-user 125 x 256 / 8 = 4000: 40x the 100 per GPU of the same run (both rows flagged)
          "Blog,x,Llama-3.1-70B,70,70,H100-SXM,8,8,,1,FP8,FP8,vLLM,1024,1024,64,server,tokens_per_sec_per_gpu,400,"
          "each user 50 tok/s/user\n"  // 50 x 64 / 8 = 400: consistent
          "MLPerf-v5.0,x,Llama-2-70B,70,70,H100-SXM,8,1,,1,FP8,,TensorRT-LLM,8192,,,offline,tokens_per_sec_total,"
          "20000,\n");
  std::vector<SkippedRow> skipped;
  const auto cases = map_inference_cases(t, Catalog::load({}), skipped);
  ASSERT_EQ(cases.size(), 1u);
  ASSERT_EQ(skipped.size(), 3u);
  for (const auto& s : skipped) {
    EXPECT_EQ(s.flag, "contradiction") << s.reason;
    EXPECT_TRUE(contains_text(s.reason, "contradicts")) << s.reason;
  }
  EXPECT_TRUE(contains_text(skipped[0].reason, "40x")) << skipped[0].reason;
  EXPECT_TRUE(contains_text(skipped[2].reason, "input maximum")) << skipped[2].reason;
  const ValidationReport rep = validate_inference(cases, skipped, "inline");
  EXPECT_EQ(rep.rows.size(), 1u);
  EXPECT_EQ(rep.skipped.size(), 3u);
}

// The golden: an MLPerf-like Interactive row that leaves TP blank. The smallest TP holding the KV
// cache misses the Interactive limits even at one sequence per instance; the row runs at a TP that
// meets them, as `gpuplan infer --gpus 8 --ttft-ms --tpot-ms` without --tp would choose.
TEST(ServingOperatingPoint, InteractiveRowWithBlankTpMeetsItsLimits) {
  const CsvTable t = inference_rows("MLPerf-v5.0,x,Llama-2-70B,70,70,MI300X,8,,,,FP8,,vLLM,,,,Interactive,"
                                        "tokens_per_sec_total,3000,\n");
  std::vector<SkippedRow> skipped;
  const auto cases = map_inference_cases(t, Catalog::load({}), skipped);
  ASSERT_EQ(cases.size(), 1u) << (skipped.empty() ? "" : skipped[0].reason);
  const InferenceCase& c = cases[0];
  EXPECT_EQ(c.mode, InferenceMode::under_limits);
  EXPECT_DOUBLE_EQ(c.tpot_limit_s, 0.040 / 1.25);
  EXPECT_TRUE(row_says(c, "tp blank under the scenario's limits")) << c.assumptions.back();
  const InferenceResult r = evaluate_case(c);
  ASSERT_GT(r.tokens_per_s_total, 0);
  EXPECT_LE(r.tpot_s, c.tpot_limit_s * (1 + 1e-9));
  EXPECT_LE(r.ttft_s, c.ttft_limit_s * (1 + 1e-9));
  EXPECT_GT(r.concurrency, r.instances);  // more than one sequence per instance: not the fallback
  // The filled TP alone misses the limits at one sequence per instance.
  EXPECT_TRUE(row_says(c, "tp blank: 1 (smallest"));
  InferenceCase filled = c;
  filled.parallel.tp = 1;
  filled.parallel.ep = 1;
  const RowScenario rs = row_scenario(filled);
  SweepPoint p;
  EXPECT_GT(c.parallel.tp, 1);
  EXPECT_FALSE(solve_load(rs.scenario, rs.deployment, p));
}

}  // namespace
}  // namespace gpuplan
