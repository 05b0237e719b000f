// gpuplan infer end to end: text and JSON of one operating point, the sweep's frontier, limits,
// and bad input -> exit 2 naming the option; validate on the inference schema.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "run_cli.h"

namespace {

TEST(InferCli, OperatingPointText) {
  auto r = run_gpuplan("infer --model llama3.1-70b --system hgx-h200 --gpus 8 --isl 1024 --osl 1024 --concurrency 64");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(has(r.out, "tokens/s per GPU")) << r.out;
  EXPECT_TRUE(has(r.out, "TTFT"));
  EXPECT_TRUE(has(r.out, "TPOT"));
  EXPECT_TRUE(has(r.out, "Decode step"));
}

TEST(InferCli, OperatingPointJson) {
  auto r = run_gpuplan("infer --model llama3.1-8b --system h100-sxm --isl 1000 --osl 1000 --precision fp8 --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = r.json();
  EXPECT_EQ(j["schema"], "gpuplan.infer/v1");
  EXPECT_EQ(j["parallel"]["tp"], 1);
  EXPECT_GT(j["tokens_per_s_per_gpu"].get<double>(), 1000);
  EXPECT_GT(j["max_concurrency"].get<long long>(), 16);
  EXPECT_NEAR(j["tokens_per_s_per_user"].get<double>() * j["tpot_s"].get<double>(), 1.0, 1e-9);
}

// The 4-GPU HGX H100 board wires its GPUs directly (no NVSwitch): a TP2 pair talks over a third of the
// GPU's NVLinks, so the same deployment is slower there than on the 8-GPU board; TP1 does not notice.
TEST(InferCli, ADirectMeshSlowsTensorParallelPairs) {
  const auto at = [](const std::string& system, int tp) {
    auto r = run_gpuplan(fmt::format("infer --model llama2-70b --system {} --gpus 4 --tp {} --precision fp8 "
                                     "--isl 1024 --osl 256 --concurrency 256 --json",
                                     system, tp));
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return r.exit_code == 0 ? r.json()["tokens_per_s_per_gpu"].get<double>() : 0.0;
  };
  EXPECT_LT(at("hgx-h100-4gpu", 2), 0.95 * at("hgx-h100", 2));
  EXPECT_DOUBLE_EQ(at("hgx-h100-4gpu", 1), at("hgx-h100", 1));
}

TEST(InferCli, TpotLimit) {
  auto r = run_gpuplan("infer --model llama3.1-70b --system hgx-h200 --gpus 8 --tpot-ms 20 --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_LE(r.json()["tpot_s"].get<double>(), 0.020);
}

TEST(InferCli, SweepFrontier) {
  auto r = run_gpuplan("infer --model llama3.1-70b --system hgx-h200 --gpus 8 --sweep --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = r.json();
  ASSERT_TRUE(j["frontier"].is_array());
  EXPECT_GE(j["frontier"].size(), 3u);
  auto t = run_gpuplan("infer --model mixtral-8x7b --system hgx-h100 --gpus 8 --sweep --ttft-ms 500");
  ASSERT_EQ(t.exit_code, 0) << t.err;
  EXPECT_TRUE(has(t.out, "Pareto frontier")) << t.out;
}

TEST(InferCli, SweepDefaultsToTheSystemsUnitOrTheFewestUnitsThatHoldTheModel) {
  // Without --gpus a sweep covers the system's unit: one HGX node, one NVL72 rack.
  for (const auto& [sys, gpus] : std::vector<std::pair<std::string, int>>{{"hgx-h200", 8}, {"gb300-nvl72", 72}}) {
    auto r = run_gpuplan("infer --model llama3.1-70b --system " + sys + " --sweep --json");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.json()["gpus"], gpus) << sys;
    EXPECT_EQ(r.json()["units"], 1) << sys;
  }
  // DeepSeek-R1 FP8 (~700 GB) does not fit one 8 x 80 GB H100 node: the sweep says so on 8 GPUs given,
  // and without --gpus runs on two nodes (as compare, cost and recommend serve it) and says why.
  auto one = run_gpuplan("infer --model deepseek-r1 --system hgx-h100 --sweep --gpus 8 --json");
  ASSERT_EQ(one.exit_code, 0) << one.err;
  EXPECT_TRUE(one.json()["frontier"].empty());
  EXPECT_TRUE(has(one.json()["why_empty"].get<std::string>(), "fits in memory on 8 GPUs")) << one.out;
  EXPECT_TRUE(one.json()["units"].is_null());
  auto text = run_gpuplan("infer --model deepseek-r1 --system hgx-h100 --sweep --gpus 8");
  EXPECT_TRUE(has(text.out, "No frontier: no plan fits in memory on 8 GPUs")) << text.out;
  auto two = run_gpuplan("infer --model deepseek-r1 --system hgx-h100 --sweep --json");
  ASSERT_EQ(two.exit_code, 0) << two.err;
  EXPECT_EQ(two.json()["gpus"], 16);
  EXPECT_EQ(two.json()["units"], 2);
  EXPECT_FALSE(two.json()["frontier"].empty());
  EXPECT_EQ(two.json()["why_empty"], "");
  EXPECT_TRUE(has(run_gpuplan("infer --model deepseek-r1 --system hgx-h100 --sweep").out, "swept on 2 units"));
}

TEST(InferCli, PointModeServesAModelTooLargeForOneNodeOverSeveral) {
  // DeepSeek-R1 FP8 does not fit one 8 x 80 GB H100 node: with nothing fixed the point spans two nodes
  // (TP 16), as the sweep does; on the 8 GPUs given the error names --gpus, not an option never given.
  auto r = run_gpuplan("infer --model deepseek-r1 --system hgx-h100 --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.json()["gpus"], 16) << r.out;
  EXPECT_EQ(r.json()["parallel"]["tp"], 16) << r.out;
  auto eight = run_gpuplan("infer --model deepseek-r1 --system hgx-h100 --gpus 8");
  EXPECT_EQ(eight.exit_code, 2) << eight.out;
  EXPECT_TRUE(has(eight.err, "--gpus")) << eight.err;
  EXPECT_TRUE(has(eight.err, "raise --gpus")) << eight.err;
  // GPT-MoE-1.8T's 16 experts over TP 40 (5 nodes): the experts spread over the 8 ranks they divide, not
  // an EP of 40 the user never asked for.
  auto moe = run_gpuplan("infer --model gpt-moe-1.8t --system hgx-a100 --json");
  ASSERT_EQ(moe.exit_code, 0) << moe.err;
  EXPECT_EQ(moe.json()["parallel"]["ep"], 8) << moe.out;
}

// The deployment the chooser picks replays as the explicit command with its figures: DeepSeek-R1 on H200
// nodes at 50 tokens/s per user is disaggregated (two-batch overlap in the decode pool only) on the 5
// nodes its pools take, and its per-GPU figure is over their 40 GPUs.
TEST(InferCli, TheChosenDisaggregatedDeploymentReplays) {
  auto r = run_gpuplan("infer --model deepseek-r1 --system hgx-h200 --tokens-per-user 50 --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = r.json();
  ASSERT_TRUE(j["disaggregated"].get<bool>()) << r.out;
  const int gpus = j["prefill_gpus"].get<int>() + j["decode_gpus"].get<int>();
  EXPECT_EQ(j["gpus"], gpus);
  EXPECT_EQ(j["units"], (gpus + 7) / 8);
  EXPECT_NEAR(j["tokens_per_s_per_gpu"].get<double>() * gpus, j["tokens_per_s_total"].get<double>(),
              1e-6 * j["tokens_per_s_total"].get<double>());
  const auto& pre = j["prefill_parallel"];
  const auto& dec = j["decode_parallel"];
  std::string cmd = fmt::format(
      "infer --model deepseek-r1 --system hgx-h200 --disagg --prefill-gpus {} --prefill-tp {} --prefill-ep {}{}{} "
      "--decode-gpus {} --decode-tp {} --decode-ep {}{}{} --mtp {} --concurrency {} --json",
      j["prefill_gpus"].get<int>(), pre["tp"].get<int>(), pre["ep"].get<int>(),
      pre["attention_dp"].get<bool>() ? " --prefill-attn-dp" : "",
      pre["two_batch_overlap"].get<bool>() ? " --prefill-two-batch-overlap" : "", j["decode_gpus"].get<int>(),
      dec["tp"].get<int>(), dec["ep"].get<int>(), dec["attention_dp"].get<bool>() ? " --decode-attn-dp" : "",
      dec["two_batch_overlap"].get<bool>() ? " --decode-two-batch-overlap" : "", j["mtp_draft_tokens"].get<int>(),
      j["concurrency"].get<long long>());
  auto again = run_gpuplan(cmd);
  ASSERT_EQ(again.exit_code, 0) << cmd << "\n" << again.err;
  EXPECT_NEAR(again.json()["tokens_per_s_per_user"].get<double>(), j["tokens_per_s_per_user"].get<double>(), 1e-9)
      << cmd;
  EXPECT_NEAR(again.json()["ttft_s"].get<double>(), j["ttft_s"].get<double>(), 1e-9) << cmd;
}

TEST(InferCli, ADisaggregatedPointCarriesTheDisaggregatedBands) {
  auto r = run_gpuplan("infer --model deepseek-r1 --system gb300-nvl72 --disagg --prefill-gpus 8 --decode-gpus 16 "
                       "--decode-ep 16 --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = r.json();
  ASSERT_TRUE(j.contains("band")) << j.dump();
  EXPECT_EQ(j["band"]["tokens_per_s_per_gpu"]["basis"]["kind"], "serving_disaggregated_throughput");
  EXPECT_EQ(j["band"]["ttft_s"]["basis"]["kind"], "serving_disaggregated_ttft");
  EXPECT_EQ(j["band"]["tpot_s"]["basis"]["kind"], "serving_disaggregated_tpot");
  EXPECT_DOUBLE_EQ(j["band"]["tokens_per_s_per_gpu"]["value"].get<double>(), j["tokens_per_s_per_gpu"].get<double>());
  auto text = run_gpuplan("infer --model deepseek-r1 --system gb300-nvl72 --disagg --prefill-gpus 8 --decode-gpus 16 "
                          "--decode-ep 16");
  EXPECT_TRUE(has(text.out, "Error bands")) << text.out;
  // Where the decode pool's step goes, as for an aggregated point; the JSON's decode_step is the same step.
  EXPECT_TRUE(has(text.out, "Decode-pool step")) << text.out;
  char step[48];
  std::snprintf(step, sizeof step, "Decode-pool step %.2f ms", j["decode_step"]["total_s"].get<double>() * 1e3);
  EXPECT_TRUE(has(text.out, step)) << text.out;
}

TEST(InferCli, BadInputNamesTheOption) {
  for (const auto& [args, option] : std::vector<std::pair<std::string, std::string>>{
           {"--isl 0", "--isl"},
           {"--osl -3", "--osl"},
           {"--precision int3", "--precision"},
           {"--kv-precision fp4", "--kv-precision"},
           {"--tp 3", "--tp"},
           {"--gpus 6 --tp 4", "--gpus"},
           {"--concurrency 8 --tpot-ms 20", "--concurrency"},
           {"--arrival sometimes", "--arrival"},
           {"--model llama3.1-8b --attention-dp --tp 2", "--attention-dp"},
           {"--model no-such-model", "--model"}}) {
    auto r = run_gpuplan("infer " + args);
    EXPECT_EQ(r.exit_code, 2) << args << "\n" << r.out;
    EXPECT_TRUE(has(r.err, option)) << args << ": " << r.err;
  }
}

// Each refusal: exit 2, the option named, and the words that say what is allowed or when it applies.
void expect_infer_refused(const std::string& args, const std::vector<std::string>& words) {
  auto r = run_gpuplan("infer " + args);
  EXPECT_EQ(r.exit_code, 2) << args << "\n" << r.out;
  for (const auto& w : words) EXPECT_TRUE(has(r.err, w)) << args << ": '" << w << "' not in " << r.err;
}

// An older release of the engine (--engine-release) runs its MoE kernels at its fitted share of the
// newest's rate: an MoE model serves fewer tokens, a dense one the same; the newest release is the default;
// a release the engine does not list, or one without --engine, is refused naming the option.
TEST(InferCli, AnOlderEngineReleaseSlowsTheMoeKernelsOnly) {
  const std::string moe = "infer --model llama4-scout --system hgx-b200 --precision fp8 --isl 1000 --osl 1000 --gpus 4 "
                          "--tp 4 --ep 4 --attention-dp --engine tensorrt-llm-pytorch --json";
  const std::string dense = "infer --model llama3.1-70b --system hgx-b200 --precision fp8 --isl 1000 --osl 1000 "
                            "--tp 4 --engine tensorrt-llm-pytorch --json";
  auto tps = [](const std::string& args) {
    auto r = run_gpuplan(args);
    EXPECT_EQ(r.exit_code, 0) << args << "\n" << r.err;
    return r.exit_code == 0 ? r.json()["tokens_per_s_total"].get<double>() : 0.0;
  };
  const double newest = tps(moe), v10 = tps(moe + " --engine-release 1.0");
  EXPECT_LT(v10, 0.95 * newest);
  EXPECT_DOUBLE_EQ(tps(moe + " --engine-release 1.x"), newest);
  EXPECT_DOUBLE_EQ(tps(dense + " --engine-release 1.0"), tps(dense));
  // The output says which share applied.
  auto j = run_gpuplan(moe + " --engine-release 1.0");
  ASSERT_EQ(j.exit_code, 0) << j.err;
  EXPECT_GT(j.json()["moe_kernel_share"].get<double>(), 0.05);
  EXPECT_LT(j.json()["moe_kernel_share"].get<double>(), 1.0);
  auto text = run_gpuplan(moe.substr(0, moe.size() - 7) + " --engine-release 1.0");
  EXPECT_TRUE(has(text.out, "tensorrt-llm-pytorch 1.0: MoE kernels at")) << text.out;
  expect_infer_refused(moe.substr(6) + " --engine-release 0.9", {"--engine-release", "1.x, 1.0"});
  expect_infer_refused("--model llama4-scout --engine-release 1.0", {"--engine-release", "--engine"});
  expect_infer_refused("--model llama4-scout --engine sglang --engine-release 1.0", {"--engine-release", "sglang"});
}

// A pool's GPUs, given, are the pool's: 0 and negatives are refused with the multiples allowed, as 3 is.
TEST(InferCli, DisaggregatedPoolGpusGivenAreChecked) {
  for (const char* pool : {"--prefill-gpus", "--decode-gpus"})
    for (const char* bad : {"-8", "0", "3"})
      expect_infer_refused(std::string("--disagg ") + pool + " " + bad,
                           {pool, "must be a positive multiple", std::string("got ") + bad});
  EXPECT_EQ(run_gpuplan("infer --disagg --prefill-gpus 16 --decode-gpus 8 --json").exit_code, 0);
  expect_infer_refused("--disagg --decode-ep 0 --model deepseek-r1 --system gb200-nvl72", {"--decode-ep", "got 0"});
}

// Options a dense model has no use for are refused in disaggregated pools as --ep and --attention-dp are.
TEST(InferCli, DisaggregatedPoolsOfADenseModelRefuseExpertOptions) {
  expect_infer_refused("--ep 3", {"--ep"});
  for (const char* ep : {"--prefill-ep 3", "--decode-ep 3"})
    expect_infer_refused(std::string("--disagg ") + ep,
                         {std::string(ep).substr(0, std::string(ep).find(' ')), "dense model llama3.1-70b", "got 3"});
  for (const char* adp : {"--prefill-attn-dp", "--decode-attn-dp"})
    expect_infer_refused(std::string("--disagg ") + adp, {adp, "MoE", "llama3.1-70b is dense"});
  // EP 1 is a dense pool's (what validate's replayed rows state).
  EXPECT_EQ(run_gpuplan("infer --disagg --prefill-ep 1 --decode-ep 1 --json").exit_code, 0);
}

// Options that apply to a mode, a model or a precision say when they apply, rather than being ignored.
TEST(InferCli, OptionsOutsideWhereTheyApplyAreRefused) {
  expect_infer_refused("--aggregated-only", {"--aggregated-only", "--sweep"});
  expect_infer_refused("--aggregated-only --tp 8 --tpot-ms 50", {"--aggregated-only", "--sweep"});
  EXPECT_EQ(run_gpuplan("infer --model llama3.1-8b --system hgx-h100 --aggregated-only --tpot-ms 20 --json").exit_code,
            0);
  expect_infer_refused("--full-attention-window", {"--full-attention-window", "window", "llama3.1-70b has none"});
  EXPECT_EQ(run_gpuplan("infer --model gpt-oss-120b --system hgx-b200 --full-attention-window --json").exit_code, 0);
  expect_infer_refused("--precision bf16 --fp8-weight-block 128", {"--fp8-weight-block", "FP8", "bf16 weights"});
  expect_infer_refused("--precision bf16 --fp8-weight-block 0", {"--fp8-weight-block", "FP8"});
  EXPECT_EQ(run_gpuplan("infer --precision fp8 --fp8-weight-block 128 --json").exit_code, 0);
}

// An error names the option at fault: the pool's width, or the recipe whose pools do not fit the system given.
TEST(InferCli, ErrorsNameThePoolOrTheRecipe) {
  expect_infer_refused("--disagg --prefill-tp 3", {"--prefill-tp: 3 must divide", "allowed"});
  expect_infer_refused("--disagg --decode-tp 3", {"--decode-tp: 3 must divide", "allowed"});
  const std::string recipe = "--recipe sglang/b200-fp4/1k1k/mtp/low-latency-dep4-1p-tep8-5d";
  auto r = run_gpuplan("infer " + recipe + " --system hgx-h100");
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_TRUE(has(r.err, "error: --system: recipe sglang/b200-fp4")) << r.err;
  EXPECT_TRUE(has(r.err, "hgx-h100")) << r.err;
  EXPECT_FALSE(has(r.err, "error: --decode-tp")) << r.err;
  // --as-of is a day the calendar has.
  for (const char* day : {"2026-02-30", "2026-02-99", "2026-13-01"})
    expect_infer_refused(recipe + " --as-of " + day, {"--as-of", "must be a date YYYY-MM-DD"});
}

// fp16 is no precision infer runs (not reported as bf16), for the weights or the KV cache.
TEST(InferCli, Fp16IsRefusedNotReadAsBf16) {
  expect_infer_refused("--precision fp16", {"--precision", "bf16, fp8", "'fp16'"});
  expect_infer_refused("--kv-precision fp16", {"--kv-precision", "must be bf16 or fp8", "'fp16'"});
  for (const char* cmd : {"train --model llama3.1-8b --system hgx-h100 --gpus 8",
                          "search --model llama3.1-8b --system hgx-h100 --gpus 8",
                          "recommend --model llama3.1-8b", "goodput --model llama3.1-8b --system hgx-h100 --gpus 8",
                          "compare hgx-h100 hgx-h200 --model llama3.1-8b --task train"}) {
    auto r = run_gpuplan(std::string(cmd) + " --precision fp16");
    EXPECT_EQ(r.exit_code, 2) << cmd << "\n" << r.out;
    EXPECT_TRUE(has(r.err, "--precision")) << cmd << ": " << r.err;
  }
}

TEST(InferCli, ValidateInferenceSchema) {
  auto r = run_gpuplan(std::string("validate --dataset ") + GPUPLAN_SHARED_DATA_DIR +
                       "/benchmarks/mlperf-inference-v4.1-v5.0.csv --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = r.json();
  EXPECT_EQ(j["schema"], "gpuplan.validate/v1");
  EXPECT_GT(j["rows_scored"].get<int>(), 190);
  EXPECT_TRUE(j["groups"].contains("accelerator"));
  EXPECT_TRUE(j["groups"].contains("framework"));
  EXPECT_TRUE(j["rows"][0].contains("ape_pct"));
}

// DeepSeek-R1's checkpoint is block-scaled FP8: its prompts run at the generation's block-scaled FP8
// rate; --fp8-weight-block 0 asks for per-tensor scales (the same weights requantized), whose prefill is
// faster on a generation whose block share is below 1 (hopper), and the same one answer through
// --json and text.
TEST(InferCli, Fp8WeightBlock) {
  const std::string base = "infer --model deepseek-r1 --system hgx-h200 --tp 8 --isl 8192 --osl 64 --concurrency 1 --json";
  auto block = run_gpuplan(base);
  auto tensor = run_gpuplan(base + " --fp8-weight-block 0");
  auto stated = run_gpuplan(base + " --fp8-weight-block 128");
  ASSERT_EQ(block.exit_code, 0) << block.err;
  ASSERT_EQ(tensor.exit_code, 0) << tensor.err;
  ASSERT_EQ(stated.exit_code, 0) << stated.err;
  EXPECT_LT(tensor.json()["prefill_s"].get<double>(), block.json()["prefill_s"].get<double>());
  EXPECT_DOUBLE_EQ(stated.json()["prefill_s"].get<double>(), block.json()["prefill_s"].get<double>());
}

// --fp8-gemm-backend triton runs the dense block-FP8 GEMMs on SGLang's Triton kernel: slower B200
// prompts (Blackwell's fitted share is below its block-scaled one), also in --disagg's prefill pool;
// anything but auto or triton is refused naming the option (exit 2).
TEST(InferCli, Fp8GemmBackend) {
  const std::string base = "infer --model deepseek-r1 --system hgx-b200 --tp 8 --isl 8192 --osl 64 --concurrency 1 --json";
  auto fast = run_gpuplan(base);
  auto triton = run_gpuplan(base + " --fp8-gemm-backend triton");
  auto stated = run_gpuplan(base + " --fp8-gemm-backend auto");
  ASSERT_EQ(fast.exit_code, 0) << fast.err;
  ASSERT_EQ(triton.exit_code, 0) << triton.err;
  EXPECT_GT(triton.json()["prefill_s"].get<double>(), fast.json()["prefill_s"].get<double>());
  EXPECT_DOUBLE_EQ(stated.json()["prefill_s"].get<double>(), fast.json()["prefill_s"].get<double>());
  const std::string disagg = "infer --model deepseek-r1 --system hgx-b200 --disagg --prefill-tp 8 --decode-tp 8 "
                             "--isl 8192 --osl 64 --concurrency 4 --json";
  auto d_fast = run_gpuplan(disagg);
  auto d_triton = run_gpuplan(disagg + " --fp8-gemm-backend triton");
  ASSERT_EQ(d_triton.exit_code, 0) << d_triton.err;
  EXPECT_GT(d_triton.json()["prefill_s"].get<double>(), d_fast.json()["prefill_s"].get<double>());
  // The prefill pool's own kernel (its workers' environment): the same prompt as both pools on Triton.
  auto d_prefill = run_gpuplan(disagg + " --prefill-fp8-gemm-backend triton");
  ASSERT_EQ(d_prefill.exit_code, 0) << d_prefill.err;
  EXPECT_DOUBLE_EQ(d_prefill.json()["prefill_s"].get<double>(), d_triton.json()["prefill_s"].get<double>());
  EXPECT_EQ(run_gpuplan(disagg + " --prefill-fp8-gemm-backend cutlass").exit_code, 2);
  auto aggregated = run_gpuplan(base + " --prefill-fp8-gemm-backend triton");
  EXPECT_EQ(aggregated.exit_code, 2);
  EXPECT_TRUE(has(aggregated.err, "add --disagg")) << aggregated.err;
  // The text says which pools run it.
  auto text = run_gpuplan(disagg.substr(0, disagg.rfind(" --json")) + " --prefill-fp8-gemm-backend triton");
  EXPECT_TRUE(has(text.out, "dense block-FP8 GEMMs on SGLang's Triton kernel: prefill pool")) << text.out;
  // Where it would change nothing it is refused, not ignored: FP4 weights, per-tensor FP8 scales, a chip
  // without FP8 math (A100), and the prefill pool's option alike.
  for (const std::string& other : {base + " --precision fp4", base + " --fp8-weight-block 0",
                                    std::string("infer --model deepseek-r1 --system hgx-a100 --tp 8 --pp 2 --isl 1024 --osl 64 "
                                                "--concurrency 1")}) {
    auto none = run_gpuplan(other + " --fp8-gemm-backend triton");
    EXPECT_EQ(none.exit_code, 2) << other;
    EXPECT_TRUE(has(none.err, "block-scaled FP8 GEMMs")) << none.err;
  }
  auto fp4_prefill = run_gpuplan(disagg + " --precision fp4 --prefill-fp8-gemm-backend triton");
  EXPECT_EQ(fp4_prefill.exit_code, 2);
  EXPECT_TRUE(has(fp4_prefill.err, "--prefill-fp8-gemm-backend")) << fp4_prefill.err;
  auto bad = run_gpuplan(base + " --fp8-gemm-backend deepgemm");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_TRUE(has(bad.err, "--fp8-gemm-backend")) << bad.err;
  EXPECT_TRUE(has(bad.err, "auto or triton")) << bad.err;
}

// A disaggregated closed loop reports the opening wave's p99 TTFT beside the median-load TTFT.
TEST(InferCli, OpeningWaveP99Ttft) {
  auto r = run_gpuplan("infer --model deepseek-r1 --system hgx-h200 --disagg --prefill-tp 8 --decode-tp 8 "
                       "--isl 7373 --osl 922 --concurrency 128 --arrival closed_loop --requests-per-client 10 --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = r.json();
  EXPECT_GT(j["ttft_p99_s"].get<double>(), j["ttft_s"].get<double>());
  auto t = run_gpuplan("infer --model deepseek-r1 --system hgx-h200 --disagg --prefill-tp 8 --decode-tp 8 "
                       "--isl 7373 --osl 922 --concurrency 128 --arrival closed_loop --requests-per-client 10");
  EXPECT_TRUE(has(t.out, "TTFT p99")) << t.out;
}

}  // namespace
