// One question, one right answer (issue 18): plans the frameworks reject, plans that do not fit,
// formats the hardware lacks and errors in JSON, checked end to end on the binary.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "run_cli.h"

namespace {

TEST(ConsistencyCli, InterleavingWithTooFewMicrobatchesIsRejectedWithTheReason) {
  // One micro-batch through 8 stages cannot be interleaved (Megatron needs a multiple of pp).
  auto r = run_gpuplan("train --model llama3.1-70b --system hgx-h100 --gpus 64 --global-batch 1 --seq 8192 "
                       "--plan tp=8,pp=8,vp=10");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(has(r.err, "--plan.vp")) << r.err;
  EXPECT_TRUE(has(r.err, "multiple of pp=8")) << r.err;
  // Plain 1F1B runs it, and the bubble is 7/8 of the pipeline's time.
  r = run_gpuplan("train --model llama3.1-70b --system hgx-h100 --gpus 64 --global-batch 1 --seq 8192 "
                  "--plan tp=8,pp=8 --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto b = r.json()["breakdown"];
  const double work = b["gemm_s"].get<double>() + b["attention_s"].get<double>() + b["memory_bound_s"].get<double>() +
                      b["recompute_s"].get<double>() + b["tp_comm_s"].get<double>() + b["cp_comm_s"].get<double>() +
                      b["ep_comm_s"].get<double>();
  EXPECT_NEAR(b["bubble_s"].get<double>() / (b["bubble_s"].get<double>() + work), 7.0 / 8.0, 1e-9);
}

TEST(ConsistencyCli, SearchNeverProposesAnInterleavedPlanWithFewerMicrobatchesThanStages) {
  auto r = run_gpuplan("search --model llama3.1-405b --system hgx-h100 --gpus 16384 --global-batch 2048 --seq 8192 "
                       "--top 5 --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto doc = r.json();
  for (const auto& c : doc["top"]) {
    const auto& p = c["plan"];
    const long long pp = p["pp"].get<long long>(), vp = p["vp"].get<long long>();
    const long long nmb = 2048 / (p["dp"].get<long long>() * p["mbs"].get<long long>());
    if (vp > 1) {
      EXPECT_EQ(nmb % pp, 0) << c.dump();
    }
  }
}

TEST(ConsistencyCli, ContradictoryGpusAndDpNameBoth) {
  auto r = run_gpuplan("train --gpus 64 --plan tp=8,pp=4,dp=4");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(has(r.err, "--gpus")) << r.err;
  EXPECT_TRUE(has(r.err, "dp=4")) << r.err;
  EXPECT_TRUE(has(r.err, "128 GPUs")) << r.err;
  // A dp that agrees is fine.
  EXPECT_EQ(run_gpuplan("train --gpus 64 --plan tp=8,pp=4,dp=2").exit_code, 0);
}

TEST(ConsistencyCli, TrainWithoutAPlanUsesTheBestPlanThatFits) {
  auto r = run_gpuplan("train --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = r.json();
  EXPECT_EQ(j["plan_source"], "search");
  EXPECT_TRUE(j["fits"].get<bool>());
  EXPECT_TRUE(j["memory"]["fits"].get<bool>());
  // Both without --global-batch: the model's one default batch.
  auto s = run_gpuplan("search --model llama3.1-70b --system hgx-h100 --gpus 64 --seq 8192 --top 1 --json");
  ASSERT_EQ(s.exit_code, 0) << s.err;
  EXPECT_NEAR(j["step_time_s"].get<double>(), s.json()["top"][0]["step_time_s"].get<double>(), 1e-9);
  auto t = run_gpuplan("train");
  EXPECT_TRUE(has(t.out, "plan chosen")) << t.out;
}

TEST(ConsistencyCli, MoeTrainSearchAndCompareGiveOneFigure) {
  // The search ranks MoE plans with the expert all-to-all overlapped where train runs them overlapped,
  // so train's figure is the search's first, and compare's training row is train's.
  auto t = run_gpuplan("train --model mixtral-8x7b --system hgx-h100 --gpus 64 --seq 4096 --json");
  ASSERT_EQ(t.exit_code, 0) << t.err;
  auto s = run_gpuplan("search --model mixtral-8x7b --system hgx-h100 --gpus 64 --seq 4096 --top 1 --json");
  ASSERT_EQ(s.exit_code, 0) << s.err;
  EXPECT_TRUE(t.json()["ep_overlap"].get<bool>());
  EXPECT_DOUBLE_EQ(t.json()["tokens_per_s_per_gpu"].get<double>(), s.json()["top"][0]["tokens_per_s_per_gpu"].get<double>());
  // More scale-up bandwidth (H100's NVLink against H800's) is never slower.
  auto h800 = run_gpuplan("train --model mixtral-8x7b --system hgx-h800 --gpus 64 --seq 4096 --json");
  ASSERT_EQ(h800.exit_code, 0) << h800.err;
  EXPECT_GE(t.json()["tokens_per_s_per_gpu"].get<double>(), h800.json()["tokens_per_s_per_gpu"].get<double>());
  auto c = run_gpuplan("compare --json");
  ASSERT_EQ(c.exit_code, 0) << c.err;
  auto r1 = run_gpuplan("train --model deepseek-r1 --system gb300-nvl72 --gpus 576 --seq 8192 --json");
  ASSERT_EQ(r1.exit_code, 0) << r1.err;
  bool seen = false;
  const auto doc = c.json();
  for (const auto& y : doc["yardsticks"])
    if (y["key"].get<std::string>() == "train_tokens_per_s:deepseek-r1") {
      seen = true;
      EXPECT_DOUBLE_EQ(y["a"].get<double>(), r1.json()["tokens_per_s_per_gpu"].get<double>());
    }
  EXPECT_TRUE(seen) << c.out.substr(0, 2000);
}

TEST(ConsistencyCli, AUserPlanThatDoesNotFitIsReportedFirstAndExitsThree) {
  const std::string args = "train --model llama3.1-70b --system hgx-h100 --gpus 8 --global-batch 8 --plan tp=1";
  auto r = run_gpuplan(args);
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(r.out.rfind("DOES NOT FIT", 0), 0u) << r.out;
  auto j = run_gpuplan(args + " --json");
  EXPECT_EQ(j.exit_code, 3);
  EXPECT_FALSE(j.json()["fits"].get<bool>());
  EXPECT_EQ(j.json()["status"]["code"], "memory.does_not_fit");
  EXPECT_GT(j.json()["status"]["short_bytes"].get<double>(), 0);
}

TEST(ConsistencyCli, WhenNoPlanFitsTheGpuCountThatWouldIsOneThatDoes) {
  // DeepSeek-V3 at 4K does not fit 64 H800 under any plan; the answer names the doubling of --gpus
  // that fits, and train on that count finds a plan that fits (the same global batch).
  const std::string args = "train --model deepseek-v3 --system hgx-h800 --gpus 64 --seq 4096 --global-batch 3072";
  auto r = run_gpuplan(args + " --json");
  ASSERT_EQ(r.exit_code, 3) << r.err;
  const auto j = r.json();
  EXPECT_EQ(j["status"]["code"], "memory.no_plan_fits");
  const int from = j["fits_from"]["gpus"].get<int>();
  EXPECT_GT(from, 64);
  EXPECT_EQ(from % 64, 0);
  auto at = run_gpuplan("train --model deepseek-v3 --system hgx-h800 --gpus " + std::to_string(from) +
                        " --seq 4096 --global-batch 3072 --json");
  ASSERT_EQ(at.exit_code, 0) << at.err;
  EXPECT_TRUE(at.json()["memory"]["fits"].get<bool>());
  auto half = run_gpuplan("train --model deepseek-v3 --system hgx-h800 --gpus " + std::to_string(from / 2) +
                          " --seq 4096 --global-batch 3072 --json");
  EXPECT_EQ(half.exit_code, 3);  // the first doubling that fits, not a later one
  auto t = run_gpuplan(args);
  EXPECT_TRUE(has(t.out, "It fits from " + std::to_string(from) + " GPUs")) << t.out;
  // search says the same.
  auto s = run_gpuplan("search --model deepseek-v3 --system hgx-h800 --gpus 64 --seq 4096 --global-batch 3072 --json");
  ASSERT_EQ(s.exit_code, 3) << s.err;
  EXPECT_EQ(s.json()["fits_from"]["gpus"].get<int>(), from);
}

TEST(ConsistencyCli, WhenNoPlanDividesTheJobAHalvedGpuCountThatRunsIsNamed) {
  // 576 sequences cannot spread over 16,384 GPUs of Qwen3-30B-A3B: not a memory shortfall, and the
  // answer names the halving of --gpus whose search finds a plan, which train then runs.
  const std::string job = "--model qwen3-30b-a3b --system hgx-h100 --seq 8192 --global-batch 576";
  auto r = run_gpuplan("train " + job + " --gpus 16384 --json");
  ASSERT_EQ(r.exit_code, 3) << r.err;
  const auto j = r.json();
  EXPECT_EQ(j["status"]["code"], "plan.no_plan_divides");
  EXPECT_FALSE(j.contains("closest"));
  const int gpus = j["fits_from"]["gpus"].get<int>();
  EXPECT_LT(gpus, 16384);
  auto at = run_gpuplan("train " + job + " --gpus " + std::to_string(gpus) + " --json");
  EXPECT_EQ(at.exit_code, 0) << at.err;
  auto t = run_gpuplan("train " + job + " --gpus 16384");
  EXPECT_TRUE(has(t.out, "divides 16384 GPUs")) << t.out;
  EXPECT_TRUE(has(t.out, "It runs on " + std::to_string(gpus) + " GPUs")) << t.out;
}

TEST(ConsistencyCli, GoodputChoosesAFittingPlanOrReportsTheUsersPlanDoesNotFit) {
  auto r = run_gpuplan("goodput --system hgx-h100 --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto doc = r.json();
  for (const auto& s : doc["systems"]) EXPECT_TRUE(s["fits"].get<bool>()) << s["plan"];
  // Llama 3.1 405B with tp=8,pp=8 needs ~103 GB per H100: reported, exit 3.
  auto bad = run_gpuplan("goodput --system hgx-h100 --plan tp=8,pp=8 --json");
  EXPECT_EQ(bad.exit_code, 3);
  EXPECT_FALSE(bad.json()["systems"][0]["fits"].get<bool>());
}

TEST(ConsistencyCli, FormatsTheHardwareLacks) {
  // Training: an error naming the formats the accelerator has.
  auto r = run_gpuplan("train --system hgx-h100 --precision nvfp4");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(has(r.err, "--precision")) << r.err;
  EXPECT_TRUE(has(r.err, "fp8, int8, bf16")) << r.err;
  for (const char* cmd : {"search --model llama3.1-8b --system hgx-a100 --gpus 8 --global-batch 8 --precision fp8",
                          "scale --model llama3.1-8b --system hgx-a100 --gpus 8,16 --mode strong --global-batch 64 --precision fp8",
                          "goodput --system hgx-a100 --gpus 1024 --precision fp8"}) {
    auto e = run_gpuplan(cmd);
    EXPECT_EQ(e.exit_code, 2) << cmd << "\n" << e.out;
    EXPECT_TRUE(has(e.err, "lacks")) << cmd << "\n" << e.err;
  }
  auto c = run_gpuplan("cost --system hgx-a100 --model llama3.1-8b --precision fp8 --json");
  ASSERT_EQ(c.exit_code, 0) << c.err;
  EXPECT_TRUE(has(c.json()["systems"][0]["workload"]["why_not"].get<std::string>(), "lacks"));
  // Serving: the real fallback (weights stored FP4, math BF16: the weight-only Triton / Marlin kernels),
  // stated; native FP4 where it exists.
  auto h = run_gpuplan("infer --system hgx-h100 --precision fp4 --concurrency 8 --json");
  ASSERT_EQ(h.exit_code, 0) << h.err;
  EXPECT_EQ(h.json()["math_format"], "bf16");
  EXPECT_TRUE(has(h.json()["precision_note"].get<std::string>(), "weights stored in fp4, math in bf16"));
  auto f8 = run_gpuplan("infer --system hgx-h100 --precision fp8 --concurrency 8 --json");
  ASSERT_EQ(f8.exit_code, 0) << f8.err;
  // Same concurrency: FP4 weights halve the bytes streamed, nothing more (no FP4 tensor cores).
  EXPECT_LT(h.json()["tokens_per_s_per_gpu"].get<double>(), 2.0 * f8.json()["tokens_per_s_per_gpu"].get<double>());
  EXPECT_TRUE(has(run_gpuplan("infer --system hgx-h100 --precision fp4").out, "no fp4 tensor cores"));
  // A demand in requests/s is served by the same fallback `size` buys with, and on the same deployment.
  const std::string demand = "--model llama3.1-70b --requests-per-s 10 --isl 2000 --osl 500 --draws 200 --json";
  auto open = run_gpuplan("infer --system hgx-a100 --precision fp8 " + demand);
  ASSERT_EQ(open.exit_code, 0) << open.err;
  EXPECT_TRUE(has(open.json()["precision_note"].get<std::string>(), "weights stored in fp8, math in bf16"));
  auto sized = run_gpuplan("size --systems hgx-a100 --precision fp8 " + demand);
  ASSERT_EQ(sized.exit_code, 0) << sized.err;
  EXPECT_EQ(open.json()["deployment"]["plan"], sized.json()["options"][0]["deployment"]);
  // cost and site serve it too, with the note; the point mode's figure is cost's.
  const std::string point = "--model llama3.1-8b --isl 1024 --osl 1024 --tokens-per-user-per-s 50";
  auto ci = run_gpuplan("cost --system hgx-a100 --task infer --precision fp8 --json " + point);
  ASSERT_EQ(ci.exit_code, 0) << ci.err;
  const nlohmann::json cw = ci.json()["systems"][0]["workload"];
  ASSERT_FALSE(cw.contains("why_not")) << cw.dump();
  EXPECT_TRUE(has(cw["precision_note"].get<std::string>(), "weights stored in fp8, math in bf16"));
  auto pi = run_gpuplan("infer --system hgx-a100 --precision fp8 --json " + point);
  ASSERT_EQ(pi.exit_code, 0) << pi.err;
  EXPECT_DOUBLE_EQ(pi.json()["tokens_per_s_per_gpu"].get<double>(), cw["tokens_per_s_per_gpu"].get<double>());
  auto si = run_gpuplan("site --power-mw 2 --systems hgx-a100 --infer-model llama3.1-8b --infer-precision fp8 --json");
  ASSERT_EQ(si.exit_code, 0) << si.err;
  const nlohmann::json ss = si.json()["budget"]["systems"][0]["serving"];
  EXPECT_TRUE(ss["feasible"].get<bool>()) << ss.dump();
  EXPECT_TRUE(has(ss["precision_note"].get<std::string>(), "weights stored in fp8")) << ss.dump();
  auto b = run_gpuplan("infer --system gb200-nvl72 --precision fp4 --concurrency 8 --json");
  ASSERT_EQ(b.exit_code, 0) << b.err;
  EXPECT_EQ(b.json()["math_format"], "fp4");
  EXPECT_EQ(b.json()["precision_note"], "");
}

// The deployment with the most tokens/s per GPU can sit within the model's error of the per-user speed
// (here TP1 on GB300 NVL72, whose bands are wide off their ground): no number of its replicas reaches the
// confidence. size then buys a deployment faster per request that does, and infer --requests-per-s buys
// the same one.
TEST(ConsistencyCli, SizeBuysADeploymentWithRoomForTheModelsError) {
  const std::string demand =
      "--model llama3.1-70b --requests-per-s 10 --isl 2000 --osl 500 --tokens-per-user-per-s 30 --draws 300 --json";
  auto sized = run_gpuplan("size --systems gb300-nvl72 --ttft-p99-ms 2000 " + demand);
  ASSERT_EQ(sized.exit_code, 0) << sized.err;
  const nlohmann::json o = sized.json()["options"][0];
  ASSERT_GT(o.value("units", 0), 0) << o.dump();
  EXPECT_GE(o["p_meets_sla"].get<double>(), 0.9) << o.dump();
  bool short_of_the_confidence = false;
  for (const auto& alt : o["alternatives"])
    if (alt["units"].get<long long>() == 0 && has(alt["why_not"].get<std::string>(), "of the draws meet the SLA"))
      short_of_the_confidence = true;
  EXPECT_TRUE(short_of_the_confidence) << o.dump();
  auto open = run_gpuplan("infer --system gb300-nvl72 --ttft-ms 2000 " + demand);
  ASSERT_EQ(open.exit_code, 0) << open.err;
  EXPECT_EQ(open.json()["deployment"]["plan"], o["deployment"]);
  EXPECT_EQ(open.json()["replicas"].get<long long>() * open.json()["deployment"]["units"].get<long long>(),
            o["units"].get<long long>());
}

// One question, one answer: the deployment infer --requests-per-s buys, asked again as a stated deployment
// at one replica's share of the rate, gives the replica's figures and meets the SLA it was bought for.
TEST(ConsistencyCli, TheOpenLoopOnTheDeploymentBoughtIsTheReplicas) {
  const std::string demand = "--model llama3.1-70b --system hgx-h100 --isl 2000 --osl 500 --tokens-per-user-per-s 30 "
                             "--draws 100 --json";
  auto bought = run_gpuplan("infer --requests-per-s 10 " + demand);
  ASSERT_EQ(bought.exit_code, 0) << bought.err;
  const nlohmann::json b = bought.json();
  ASSERT_EQ(b["deployment"]["kind"], "aggregated") << b.dump();
  const std::string plan = b["deployment"]["plan"].get<std::string>();  // "tp=T ep=E pp=P"
  int tp = 0, ep = 0, pp = 0;
  ASSERT_EQ(std::sscanf(plan.c_str(), "tp=%d ep=%d pp=%d", &tp, &ep, &pp), 3) << plan;
  const auto ask = [&](double rate) {
    char line[256];
    std::snprintf(line, sizeof line, "infer --requests-per-s %.17g --gpus %d --tp %d --ep %d --pp %d ", rate,
                  b["deployment"]["gpus"].get<int>(), tp, ep, pp);
    return run_gpuplan(line + demand);
  };
  const double rate = b["rate_per_replica_per_s"].get<double>();
  auto stated = ask(rate);
  ASSERT_EQ(stated.exit_code, 0) << stated.err;
  const nlohmann::json s = stated.json();
  EXPECT_EQ(s["deployment"], plan);
  for (const char* f : {"ttft_p99_s", "tpot_p50_s", "tpot_p99_s", "tokens_per_s_per_user"})
    EXPECT_NEAR(s[f].get<double>(), b[f].get<double>(), 1e-9 * b[f].get<double>()) << f;
  EXPECT_TRUE(s["met"].get<bool>()) << s.dump();
  // A higher rate on the same deployment is never faster.
  auto busier = ask(2 * rate);
  ASSERT_NE(busier.exit_code, 2) << busier.err;
  if (busier.json()["stable"].get<bool>())
    EXPECT_GE(busier.json()["tpot_p99_s"].get<double>(), s["tpot_p99_s"].get<double>());
  EXPECT_GE(busier.json()["load"].get<double>(), s["load"].get<double>());
}

TEST(ConsistencyCli, ErrorsAreJsonWithJson) {
  auto r = run_gpuplan("train --gpus 0 --json");
  EXPECT_EQ(r.exit_code, 2);
  const auto j = r.json();
  EXPECT_EQ(j["schema"], "gpuplan.error/v1");
  EXPECT_EQ(j["field"], "--gpus");
  EXPECT_TRUE(has(j["message"].get<std::string>(), "must be 1 to")) << j.dump();
  EXPECT_TRUE(has(r.err, "error:")) << r.err;  // stderr keeps the human line
  auto u = run_gpuplan("train --no-such-option 3 --json");
  EXPECT_EQ(u.exit_code, 2);
  EXPECT_EQ(u.json()["schema"], "gpuplan.error/v1");
  auto c = run_gpuplan("trian --json");
  EXPECT_EQ(c.exit_code, 2);
  EXPECT_EQ(c.json()["field"], "command");
  // Without --json, stdout stays empty on errors.
  EXPECT_EQ(run_gpuplan("train --gpus 0").out, "");
}

}  // namespace

namespace {

TEST(ConsistencyCli, OneNameAndOneDefaultPerOption) {
  // --tokens-per-user-per-s everywhere; --tokens-per-user an alias of it.
  auto a = run_gpuplan("compare --model llama3.1-8b --task infer --tokens-per-user 40 --json");
  auto b = run_gpuplan("compare --model llama3.1-8b --task infer --tokens-per-user-per-s 40 --json");
  ASSERT_EQ(a.exit_code, 0) << a.err;
  ASSERT_EQ(b.exit_code, 0) << b.err;
  EXPECT_EQ(a.json(), b.json());
  EXPECT_EQ(run_gpuplan("infer --tokens-per-user 50 --json").exit_code, 0);
  EXPECT_EQ(run_gpuplan("cost --system hgx-h100 --model llama3.1-8b --task infer --tokens-per-user-per-s 50 --json")
                .exit_code, 0);
  // Serving: ISL/OSL 1024/1024 and 50 tokens/s per user (= 20 ms TPOT) by default in every command.
  auto r = run_gpuplan("recommend --model llama3.1-8b --task infer --users 16 --system hgx-h100 --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NEAR(r.json()["spec"]["tpot_s"].get<double>(), 0.02, 1e-12);
  EXPECT_EQ(r.json()["spec"]["isl"], 1024);
  auto c = run_gpuplan("compare --model llama3.1-8b --json");
  ASSERT_EQ(c.exit_code, 0) << c.err;
  const std::string cj = c.json().dump();
  EXPECT_TRUE(has(cj, "ISL/OSL 1024/1024")) << cj.substr(0, 2000);
  // Training: bf16 and sequence 8192 by default in train, search, cost and compare.
  auto t = run_gpuplan("cost --system hgx-h100 --model llama3.1-8b --json");
  ASSERT_EQ(t.exit_code, 0) << t.err;
  EXPECT_EQ(t.json()["systems"][0]["workload"]["precision"], "bf16");
  EXPECT_EQ(t.json()["systems"][0]["workload"]["seq_len"], 8192);
  EXPECT_TRUE(has(run_gpuplan("search --help").out, "8192"));
  // ... printed in each command's header line.
  const std::string ct = run_gpuplan("compare --model llama3.1-8b").out;
  EXPECT_TRUE(has(ct, "training bf16, seq 8192; serving fp8, ISL/OSL 1024/1024, 50 tokens/s per user")) << ct;
  EXPECT_TRUE(has(run_gpuplan("infer").out, "fp8, ISL 1024 / OSL 1024"));
  // Fractions throughout: --headroom 25 (a percent) is an error that says so.
  auto h = run_gpuplan("site --power-mw 10 --headroom 25");
  EXPECT_EQ(h.exit_code, 2);
  EXPECT_TRUE(has(h.err, "fraction")) << h.err;
  EXPECT_EQ(run_gpuplan("site --power-mw 10 --headroom 0.25").exit_code, 0);
}

TEST(ConsistencyCli, HbmCapacityIsWhatTheDriverReports) {
  auto r = run_gpuplan("catalog show h100-sxm --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string j = r.json().dump();
  EXPECT_TRUE(has(j, "\"memory_basis\":\"driver\"")) << j.substr(0, 1500);
  EXPECT_TRUE(has(j, std::to_string(81559LL * 1048576LL))) << j.substr(0, 1500);
  // Training memory checks use it: an 85.5e9-byte H100.
  auto t = run_gpuplan("train --model llama3.1-8b --system hgx-h100 --gpus 8 --global-batch 8 --plan tp=8 --json");
  ASSERT_EQ(t.exit_code, 0) << t.err;
  EXPECT_DOUBLE_EQ(t.json()["memory"]["capacity_bytes"].get<double>(), 81559.0 * 1048576.0);
}

TEST(ConsistencyCli, OnePriceBasisAndTheCostsCommandsShare) {
  auto r = run_gpuplan("cost --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto doc = r.json();
  double h100 = 0, b200 = 0;
  for (const auto& s : doc["systems"]) {
    if (!s["priced"].get<bool>()) continue;
    // Every price says its kind; server prices are grossed up to all-in capex like the all-in ones.
    const std::string kind = s["price_kind"].get<std::string>();
    EXPECT_TRUE(kind == "server" || kind == "all-in") << s["system"] << " " << kind;
    EXPECT_GT(s["capex_usd"]["network_storage"].get<double>(), 0) << s["system"];
    if (s["system"] == "hgx-h100") h100 = s["capex_usd"]["per_gpu"].get<double>();
    if (s["system"] == "hgx-b200") b200 = s["capex_usd"]["per_gpu"].get<double>();
  }
  // HGX B200 no longer carries the DGX B200 list price (software and support bundled: 2.7x H100's capex).
  ASSERT_GT(h100, 0);
  EXPECT_LT(b200 / h100, 2.0) << b200 << " vs " << h100;
  // goodput costs the run at the TCO `cost` computes unless a price is typed.
  auto c = run_gpuplan("cost --system hgx-h100 --json");
  auto g = run_gpuplan("goodput --system hgx-h100 --json");
  ASSERT_EQ(c.exit_code, 0) << c.err;
  ASSERT_EQ(g.exit_code, 0) << g.err;
  EXPECT_NEAR(g.json()["systems"][0]["usd_per_gpu_hour"].get<double>(),
              c.json()["systems"][0]["usd_per_gpu_hour"]["total"].get<double>(), 1e-9);
  EXPECT_GT(g.json()["systems"][0]["with_spares"]["cost_usd"].get<double>(), 0);
  auto typed = run_gpuplan("goodput --system hgx-h100 --usd-per-gpu-hour 2 --json");
  EXPECT_DOUBLE_EQ(typed.json()["systems"][0]["usd_per_gpu_hour"].get<double>(), 2.0);
}

TEST(ConsistencyCli, RecommendRanksServingByCostPerHourFittedFirst) {
  auto r = run_gpuplan("recommend --model llama3.1-8b --task infer --users 64 --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto ranked = r.json()["ranked"];
  bool seen_unfitted = false;
  double last_usd = 0;
  for (const auto& x : ranked) {
    if (!x["feasible"].get<bool>() || !x["priced"].get<bool>()) break;
    if (!x["calibrated"].get<bool>()) {
      if (!seen_unfitted) last_usd = 0;  // a new tier
      seen_unfitted = true;
    } else {
      EXPECT_FALSE(seen_unfitted) << "a fitted system ranked after an unfitted one: " << x["name"];
    }
    EXPECT_GE(x["usd_per_hour"].get<double>(), last_usd) << x["name"];
    last_usd = x["usd_per_hour"].get<double>();
    EXPECT_GE(x["gpus_bought"].get<int>(), x["gpus"].get<int>()) << x["name"];
  }
  auto t = run_gpuplan("recommend --model llama3.1-8b --task infer --users 64 --system hgx-h100");
  EXPECT_TRUE(has(t.out, "GPUs of")) << t.out;
}

TEST(ConsistencyCli, RecommendTrainingDaysIncludeFailures) {
  auto r = run_gpuplan("recommend --model llama3.1-70b --task train --system hgx-h100 --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = r.json();
  const auto& x = j["ranked"][0];
  bool said = false;
  for (const auto& why : x["reasons"]) said = said || has(why.get<std::string>(), "include failures");
  EXPECT_TRUE(said) << x.dump();
}

// One training run, one cost: the run recommend picks, priced by cost with its GPUs, plan and tokens, takes
// as long and costs as much (both charge the failures' goodput).
TEST(ConsistencyCli, CostAndRecommendChargeOneTrainingRunAlike) {
  auto r = run_gpuplan("recommend --model llama3.1-70b --task train --system hgx-h100 --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = r.json();
  const auto& x = j["ranked"][0];
  auto c = run_gpuplan("cost --model llama3.1-70b --system hgx-h100 --gpus " + std::to_string(x["gpus"].get<int>()) +
                       " --plan " + x["plan"].get<std::string>() + " --tokens " +
                       std::to_string(static_cast<long long>(j["spec"]["tokens"].get<double>())) + " --json");
  ASSERT_EQ(c.exit_code, 0) << c.err;
  const auto run = c.json()["systems"][0]["workload"]["run"];
  EXPECT_NEAR(run["wall_s"].get<double>(), x["wall_s"].get<double>(), 1e-9 * x["wall_s"].get<double>()) << c.out;
  EXPECT_NEAR(run["usd"].get<double>(), x["usd"].get<double>(), 1e-9 * x["usd"].get<double>());
  EXPECT_GT(run["goodput"].get<double>(), 0.9);
  EXPECT_LT(run["goodput"].get<double>(), 1.0);
}

TEST(ConsistencyCli, NumbersReadLikeAPlannerWritesThem) {
  auto r = run_gpuplan("cost --system hgx-h100 --model gpt3-175b --gpus 128 --precision fp8 --seq 2048 --tokens 300e9");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(has(r.out, "300 B tokens")) << r.out;
  EXPECT_TRUE(has(r.out, "GPU-hours")) << r.out;
  EXPECT_FALSE(has(r.out, "e+")) << r.out;
  auto g = run_gpuplan("goodput --system hgx-h100");
  EXPECT_TRUE(has(g.out, "15 T tokens")) << g.out;
  auto s = run_gpuplan("site --power-mw 5000");
  EXPECT_TRUE(has(s.err, "warning")) << s.err;
}

}  // namespace

namespace {

TEST(ConsistencyCli, SitePerPositionPowerIsWhatThePlacementPut) {
  // 40 kW air positions take three 10.2 kW HGX nodes (four fit the rack space, at 40.8 kW: over).
  const std::string path = "/tmp/gpuplan_consistency_site40.yaml";
  {
    FILE* f = std::fopen(path.c_str(), "w");
    ASSERT_NE(f, nullptr);
    std::fputs("schema: gpuplan.site/v1\nname: colo-40kw\ntotal_power_mw: 10\npositions:\n"
               "  - name: cage\n    count: 100\n    cooling: air\n    max_kw: 40\n", f);
    std::fclose(f);
  }
  const std::string args = "site --cluster " + std::string(GPUPLAN_SOURCE_DIR) +
                           "/examples/clusters/hgx-h100-256.yaml --site " + path;
  auto r = run_gpuplan(args + " --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = r.json();
  const auto& g = j["cluster"]["groups"][0];
  EXPECT_EQ(g["units_per_position"], 3);
  EXPECT_LE(g["per_position_w"].get<double>(), 40e3);
  auto t = run_gpuplan(args);
  EXPECT_TRUE(has(t.out, "30.6 kW")) << t.out;
  EXPECT_FALSE(has(t.out, "40.8 kW")) << t.out;
  std::remove(path.c_str());
}

}  // namespace

namespace {

TEST(ConsistencyCli, SiteTakesAnItBudgetBesideTheFacilityBudget) {
  // IT 7.5 MW at PUE 1.3 with 25% headroom is a 13 MW facility budget: the same answer either way.
  auto it = run_gpuplan("site --it-mw 7.5 --json");
  auto fac = run_gpuplan("site --power-mw 13 --json");
  ASSERT_EQ(it.exit_code, 0) << it.err;
  ASSERT_EQ(fac.exit_code, 0) << fac.err;
  EXPECT_NEAR(it.json()["budget"]["power_w"].get<double>(), 13e6, 1e-3);
  EXPECT_EQ(it.json()["budget"]["systems"], fac.json()["budget"]["systems"]);
  EXPECT_EQ(run_gpuplan("site --it-mw 5 --power-mw 10").exit_code, 2);
  EXPECT_FALSE(has(run_gpuplan("site --power-mw 10").err, "warning"));
}

}  // namespace

namespace {

// One deployment through `infer` and through validation gives one figure: SGLang's speculative worker
// on Hopper (FlashInfer MLA: host work in series with the GPU) applies in both. The published point:
// InferenceX H200 Dynamo + SGLang FP8 8K/1K, 8 clients, one TP8 prefill and six TP8 decode workers
// (16 sequences each), MTP 2: TPOT 8.04 ms, 124 tokens/s per user measured.
TEST(ConsistencyCli, SiteServesTheWorkloadCostDoes) {
  // One serving question through `site --power-mw` and `cost`: the same deployment (aggregated or
  // disaggregated, EP width, MTP) on the same number of GPUs, so the same tokens/s per GPU. DeepSeek-R1
  // FP8 does not fit one 8 x 80 GB H100 node: both serve it on the units its best deployment needs.
  auto site = run_gpuplan("site --power-mw 10 --systems gb300-nvl72,hgx-h100 --infer-model deepseek-r1 "
                          "--tokens-per-user-per-s 50 --json");
  ASSERT_EQ(site.exit_code, 0) << site.err;
  auto cost = run_gpuplan("cost --model deepseek-r1 --task infer --system gb300-nvl72 --system hgx-h100 "
                          "--tokens-per-user-per-s 50 --json");
  ASSERT_EQ(cost.exit_code, 0) << cost.err;
  const auto sj = site.json(), cj = cost.json();
  for (const std::string sys : {"gb300-nvl72", "hgx-h100"}) {
    nlohmann::json sv, cw;
    for (const auto& s : sj["budget"]["systems"])
      if (s["system"] == sys) sv = s["serving"];
    for (const auto& s : cj["systems"])
      if (s["name"] == sys || s["system"] == sys) cw = s["workload"];
    ASSERT_FALSE(sv.is_null()) << sj.dump();
    ASSERT_FALSE(cw.is_null()) << cj.dump();
    ASSERT_TRUE(sv["feasible"].get<bool>()) << sv.dump();
    EXPECT_GE(sv["tokens_per_s_per_user"].get<double>(), 50.0 * 0.999) << sys;
    EXPECT_DOUBLE_EQ(sv["tokens_per_s_per_gpu"].get<double>(), cw["tokens_per_s_per_gpu"].get<double>()) << sys;
    EXPECT_EQ(sv["swept_gpus"], cw["gpus"]) << sys;
    EXPECT_EQ(sv["plan"], cw["plan"]["text"]) << sys;
    EXPECT_EQ(sv["kind"], cw["plan"]["kind"]) << sys;
    // The error band is the deployment kind's, in both.
    EXPECT_EQ(sv["band"]["basis"]["kind"], cw["band"]["tokens_per_s_per_gpu"]["basis"]["kind"]) << sys;
  }
  // compare puts the same figures side by side (H100 on two nodes, not "does not fit").
  auto cmp = run_gpuplan("compare gb300-nvl72 hgx-h100 --model deepseek-r1 --json");
  ASSERT_EQ(cmp.exit_code, 0) << cmp.err;
  const auto cj2 = cmp.json();
  nlohmann::json y;
  for (const auto& ys : cj2["yardsticks"])
    if (ys["key"] == "infer_at_interactivity:deepseek-r1") y = ys;
  ASSERT_FALSE(y.is_null()) << cj2.dump();
  for (const auto& s : sj["budget"]["systems"]) {
    const double v = y[s["system"] == "gb300-nvl72" ? "a" : "b"].get<double>();
    EXPECT_DOUBLE_EQ(v, s["serving"]["tokens_per_s_per_gpu"].get<double>()) << s["system"];
  }
  // H100 needs at least two nodes; the chooser takes as many units as its best deployment needs, as site
  // and cost do.
  EXPECT_GE(cj2["models"][0]["inference"]["at_interactivity_gpus_b"].get<int>(), 16);
  for (const auto& s : sj["budget"]["systems"])
    EXPECT_EQ(cj2["models"][0]["inference"][s["system"] == "gb300-nvl72" ? "at_interactivity_gpus_a"
                                                                         : "at_interactivity_gpus_b"],
              s["serving"]["swept_gpus"])
        << s["system"];
  // Along the curve each side says which deployment serves it there; at 50 tokens/s per user the one
  // site and cost chose.
  for (const auto& r : cj2["models"][0]["inference"]["curve"]) {
    EXPECT_EQ(r["a"].is_null(), r["kind_a"].is_null()) << r.dump();
    EXPECT_EQ(r["b"].is_null(), r["kind_b"].is_null()) << r.dump();
    if (r["tokens_per_s_per_user"] == 50) {
      for (const auto& s : sj["budget"]["systems"])
        EXPECT_EQ(r[s["system"] == "gb300-nvl72" ? "kind_a" : "kind_b"], s["serving"]["kind"]) << s["system"];
    }
  }
  // The ratio's band at the interactivity is of those two points.
  const auto& rb = cj2["models"][0]["band"]["serving_ratio_at_interactivity"];
  EXPECT_NEAR(rb["value"].get<double>(), y["a"].get<double>() / y["b"].get<double>(), 1e-9 * rb["value"].get<double>());
  EXPECT_LT(rb["low"].get<double>(), rb["value"].get<double>());
  EXPECT_GT(rb["high"].get<double>(), rb["value"].get<double>());
}

TEST(ConsistencyCli, SglangMtpOnHopperInInferAsInValidation) {
  auto r = run_gpuplan("infer --model deepseek-r1 --system hgx-h200 --precision fp8 --disagg --prefill-gpus 8 "
                       "--prefill-tp 8 --prefill-ep 1 --decode-gpus 48 --decode-tp 8 --decode-ep 1 --decode-max-batch 16 "
                       "--isl 7373 --osl 922 --concurrency 8 --mtp 2 --engine dynamo+sglang --kv-precision bf16 --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const double tpot_ms = r.json()["tpot_s"].get<double>() * 1e3;
  EXPECT_NEAR(tpot_ms / 8.04, 1.0, 0.1) << tpot_ms;
  // The same deployment with TensorRT-LLM's worker (overlapped host work) decodes faster.
  auto t = run_gpuplan("infer --model deepseek-r1 --system hgx-h200 --precision fp8 --disagg --prefill-gpus 8 "
                       "--prefill-tp 8 --prefill-ep 1 --decode-gpus 48 --decode-tp 8 --decode-ep 1 --decode-max-batch 16 "
                       "--isl 7373 --osl 922 --concurrency 8 --mtp 2 --mtp-accept 0.62 --engine dynamo+tensorrt-llm "
                       "--kv-precision bf16 --json");
  ASSERT_EQ(t.exit_code, 0) << t.err;
  EXPECT_LT(t.json()["tpot_s"].get<double>() * 1e3, tpot_ms);
}

// validate's predicted TTFT (ms) of each data row of an InferenceX-schema CSV `text`, by row (0: none).
std::vector<double> validated_ttft_ms(const std::string& text, const std::string& tag) {
  const std::string path = std::filesystem::temp_directory_path() /
                           ("gpuplan_consistency_" + tag + "_" + std::to_string(::getpid()) + ".csv");
  std::ofstream(path) << text;
  auto v = run_gpuplan("validate --dataset " + path + " --json");
  std::remove(path.c_str());
  EXPECT_EQ(v.exit_code, 0) << v.err;
  std::vector<double> out(static_cast<size_t>(std::count(text.begin(), text.end(), '\n')), 0.0);
  if (v.exit_code != 0) return out;
  const auto doc = v.json();
  for (const auto& row : doc["rows"])
    if (row["metric"] == "ttft_ms") out.at(row["row"].get<size_t>()) = row["predicted"].get<double>();
  return out;
}

// The same serving point through validate (an InferenceX-schema row) and infer (its deployment as
// flags: SGLang's receive interval, TensorRT-LLM's attention-DP balancer) gives one median TTFT.
TEST(ConsistencyCli, InferAndValidateGiveOneTtftForTheEngineSchedulers) {
  const std::vector<double> ttft_ms = validated_ttft_ms(
      "date,gpu,framework,model,precision,spec_decode,disaggregated,decode_workers,decode_tp,decode_ep,"
      "decode_attention_dp,gpus,isl,osl,concurrency,output_tok_s_per_gpu,median_tok_s_per_user,median_ttft_ms,"
      "median_tpot_ms\n"
      "2026-05-22,B200,SGLang,DeepSeek-R1-0528,NVFP4,none,no,1,4,4,no,4,8192,1024,128,587,18,1683,53\n"
      "2026-05-19,B200,TensorRT-LLM,DeepSeek-R1-0528,NVFP4,mtp,no,1,4,4,yes,4,8192,1024,256,1190,15,2192,50\n",
      "ix");
  const std::string common = "infer --model deepseek-r1 --system hgx-b200 --gpus 4 --tp 4 --isl 7373 --osl 922 "
                             "--precision nvfp4 --kv-precision fp8 --arrival closed_loop --json ";
  auto sg = run_gpuplan(common + "--engine sglang --concurrency 128 --scheduler-recv-interval 30");
  ASSERT_EQ(sg.exit_code, 0) << sg.err;
  EXPECT_NEAR(sg.json()["ttft_s"].get<double>() * 1e3, ttft_ms[0], 1e-6 * ttft_ms[0]);
  auto trt = run_gpuplan(common + "--engine tensorrt-llm --attention-dp --mtp 1 --concurrency 256 "
                                  "--adp-balance-timeout-iters 60");
  ASSERT_EQ(trt.exit_code, 0) << trt.err;
  EXPECT_NEAR(trt.json()["ttft_s"].get<double>() * 1e3, ttft_ms[1], 1e-6 * ttft_ms[1]);
  // The run as the row states it (10 requests a client, lengths in [0.8, 1] x nominal): its median
  // request is a steady-state one, the figure validate scores; the mean carries the opening wave,
  // and the text names both.
  const std::string run_flags = "--engine sglang --concurrency 128 --scheduler-recv-interval 30 "
                                "--requests-per-client 10 --length-low 0.8 ";
  auto run = run_gpuplan(common + run_flags);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NEAR(run.json()["ttft_median_s"].get<double>() * 1e3, ttft_ms[0], 1e-6 * ttft_ms[0]);
  EXPECT_GT(run.json()["ttft_s"].get<double>(), 1.1 * run.json()["ttft_median_s"].get<double>());
  EXPECT_EQ(sg.json()["ttft_median_s"].get<double>(), 0.0);  // no run described: no median modelled
  auto run_text = run_gpuplan(common.substr(0, common.rfind("--json")) + run_flags);
  ASSERT_EQ(run_text.exit_code, 0) << run_text.err;
  EXPECT_TRUE(has(run_text.out, "TTFT median")) << run_text.out;
  EXPECT_TRUE(has(run_text.out, "the opening wave included")) << run_text.out;
  // Without the settings the answer differs (they are what the rows' recipes run), and bad values
  // exit 2 naming the flag.
  auto plain = run_gpuplan(common + "--engine sglang --concurrency 128");
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  EXPECT_LT(plain.json()["ttft_s"].get<double>() * 1e3, 0.9 * ttft_ms[0]);
  // The result names the receive interval's part of that TTFT (14.5 decode steps at 30), and the
  // text says it.
  EXPECT_NEAR(sg.json()["receive_wait_s"].get<double>(), 14.5 * sg.json()["decode_step"]["total_s"].get<double>(),
              1e-9);
  EXPECT_EQ(plain.json()["receive_wait_s"].get<double>(), 0.0);
  auto text = run_gpuplan(common.substr(0, common.rfind("--json")) +
                          "--engine sglang --concurrency 128 --scheduler-recv-interval 30");
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_TRUE(has(text.out, "of which receive interval")) << text.out;
  for (const char* bad : {"--scheduler-recv-interval 0", "--adp-balance-timeout-iters -1"}) {
    auto r = run_gpuplan(common + bad);
    EXPECT_EQ(r.exit_code, 2) << bad;
    EXPECT_TRUE(has(r.err, std::string(bad).substr(0, std::string(bad).find(' ')))) << r.err;
  }
}

// SGLang's --mem-fraction-static as InferenceX's B200 FP8 MTP script passes it (0.82): validate's row
// replays as its command, which carries the share; the pool it leaves (450 sequences, not 577) queues
// 512 clients, so without it the TTFT differs; values outside 0.05-1 exit 2 naming the flag.
TEST(ConsistencyCli, InferAndValidateGiveOneTtftForSglangMemFraction) {
  const std::string path = std::filesystem::temp_directory_path() /
                           ("gpuplan_consistency_memfrac_" + std::to_string(::getpid()) + ".csv");
  std::ofstream(path)
      << "date,gpu,framework,model,precision,spec_decode,disaggregated,decode_workers,decode_tp,decode_ep,"
         "decode_attention_dp,gpus,isl,osl,concurrency,output_tok_s_per_gpu,median_tok_s_per_user,median_ttft_ms,"
         "median_tpot_ms\n"
         "2026-03-25,B200,SGLang,DeepSeek-R1-0528,FP8,mtp,no,1,8,1,no,8,1024,8192,512,955.4,23.7,199460,42.2\n";
  auto v = run_gpuplan("validate --dataset " + path + " --json");
  std::remove(path.c_str());
  ASSERT_EQ(v.exit_code, 0) << v.err;
  std::string cmd;
  double ttft_ms = 0;
  const auto doc = v.json();
  for (const auto& row : doc["rows"])
    if (row["metric"] == "ttft_ms") {
      cmd = row["command"].get<std::string>();
      ttft_ms = row["predicted"].get<double>();
    }
  ASSERT_TRUE(has(cmd, "--mem-fraction-static 0.82")) << cmd;
  auto replay = run_gpuplan(cmd.substr(cmd.find(' ') + 1));
  ASSERT_EQ(replay.exit_code, 0) << replay.err;
  EXPECT_NEAR(replay.json()["ttft_median_s"].get<double>() * 1e3, ttft_ms, 1e-6 * ttft_ms);
  std::string without = cmd.substr(cmd.find(' ') + 1);
  without.erase(without.find("--mem-fraction-static 0.82"), 27);
  auto plain = run_gpuplan(without);
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  EXPECT_LT(plain.json()["ttft_median_s"].get<double>() * 1e3, 0.5 * ttft_ms);
  EXPECT_GT(plain.json()["max_concurrency"].get<long long>(), replay.json()["max_concurrency"].get<long long>());
  for (const char* bad : {" --mem-fraction-static 1.5", " --mem-fraction-static 0.01"}) {
    auto r = run_gpuplan(without + bad);
    EXPECT_EQ(r.exit_code, 2) << bad;
    EXPECT_TRUE(has(r.err, "--mem-fraction-static")) << r.err;
  }
}

// The engine's KV pool rule: vLLM's gpu_memory_utilization (0.9 of the whole memory for the weights,
// activations and pool) holds fewer sequences than TensorRT-LLM's 0.9 of what the weights leave, which
// --kv-pool free_share restores; --kv-pool sglang takes SGLang's default share, the same as stating it;
// bad names exit 2.
TEST(ConsistencyCli, EngineKvPoolRules) {
  const std::string common = "infer --model llama3.1-70b --system hgx-h200 --gpus 1 --tp 1 --isl 128 --osl 2048 "
                             "--precision fp8 --json ";
  auto vllm = run_gpuplan(common + "--engine vllm");
  auto free = run_gpuplan(common + "--engine vllm --kv-pool free_share");
  auto sglang = run_gpuplan(common + "--engine vllm --kv-pool sglang");
  auto stated = run_gpuplan(common + "--engine vllm --mem-fraction-static 0.907");
  for (const auto* r : {&vllm, &free, &sglang, &stated}) ASSERT_EQ(r->exit_code, 0) << r->err;
  const auto slots = [](const auto& r) { return r.json()["max_concurrency"].template get<long long>(); };
  EXPECT_LT(slots(vllm), slots(free));
  EXPECT_EQ(slots(stated), slots(sglang));  // SGLang's default on one H200 at TP 1 is 0.907
  // The rule's share: vLLM's gpu_memory_utilization 0.8 holds fewer than its default 0.9.
  auto lower = run_gpuplan(common + "--engine vllm --kv-mem-fraction 0.8");
  ASSERT_EQ(lower.exit_code, 0) << lower.err;
  EXPECT_LT(slots(lower), slots(vllm));
  // A share that leaves the weights no room names the share: SGLang's default (0.835) for Llama 3.1 70B FP8
  // on one H100, or a stated one.
  const std::string h100 = "infer --model llama3.1-70b --system hgx-h100 --gpus 1 --tp 1 --precision fp8 ";
  auto no_room = run_gpuplan(h100 + "--engine sglang --kv-pool sglang");
  EXPECT_EQ(no_room.exit_code, 2);
  EXPECT_TRUE(has(no_room.err, "--kv-pool") && has(no_room.err, "raise --mem-fraction-static")) << no_room.err;
  auto stated_no_room = run_gpuplan(h100 + "--mem-fraction-static 0.5");
  EXPECT_EQ(stated_no_room.exit_code, 2);
  EXPECT_TRUE(has(stated_no_room.err, "--mem-fraction-static 0.5")) << stated_no_room.err;
  for (const char* bad_opt : {"--kv-pool vllm", "--kv-mem-fraction 0", "--kv-mem-fraction 1.2"}) {
    auto bad = run_gpuplan(common + bad_opt);
    EXPECT_EQ(bad.exit_code, 2) << bad_opt;
    EXPECT_TRUE(has(bad.err, std::string(bad_opt).substr(0, std::string(bad_opt).find(' ')))) << bad.err;
  }
}

// TensorRT-LLM's batch waiting as InferenceX's B200 FP8 script sets it (1K/1K at 64+ clients from
// 2026-01-29: 40 iterations, 0.8 x max_num_tokens): validate's row and infer's flags give one median
// TTFT, the text names the hold, and the flags are refused where TensorRT-LLM would not hold.
TEST(ConsistencyCli, InferAndValidateGiveOneTtftForTrtllmBatchWaiting) {
  const std::vector<double> ttft_ms = validated_ttft_ms(
      "date,gpu,framework,model,precision,spec_decode,disaggregated,decode_workers,decode_tp,decode_ep,"
      "decode_attention_dp,gpus,isl,osl,concurrency,output_tok_s_per_gpu,median_tok_s_per_user,median_ttft_ms,"
      "median_tpot_ms\n"
      "2026-01-29,B200,TensorRT-LLM,DeepSeek-R1-0528,FP8,none,no,1,8,1,no,8,1024,1024,128,557.7,36.7,532.1,27.2\n"
      "2026-01-28,B200,TensorRT-LLM,DeepSeek-R1-0528,FP8,none,no,1,8,1,no,8,1024,1024,128,557.7,36.7,532.1,27.2\n",
      "batchwait");
  const std::string point = "infer --model deepseek-r1 --system hgx-b200 --gpus 8 --tp 8 --ep 1 --isl 922 --osl 922 "
                            "--precision fp8 --kv-precision fp8 --concurrency 128 ";
  const std::string run = "--arrival closed_loop --requests-per-client 10 --length-low 0.8 ";
  const std::string common = point + run + "--engine tensorrt-llm ";
  const std::string wait = "--batch-wait-iters 40 --batch-wait-tokens-ratio 0.8 ";
  auto held = run_gpuplan(common + wait + "--json");
  ASSERT_EQ(held.exit_code, 0) << held.err;
  EXPECT_NEAR(held.json()["ttft_median_s"].get<double>() * 1e3, ttft_ms[0], 1e-6 * ttft_ms[0]);
  EXPECT_GT(held.json()["batch_wait_s"].get<double>(), 0.0);
  auto plain = run_gpuplan(common + "--json");  // the day before the script set it
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  EXPECT_NEAR(plain.json()["ttft_median_s"].get<double>() * 1e3, ttft_ms[1], 1e-6 * ttft_ms[1]);
  EXPECT_EQ(plain.json()["batch_wait_s"].get<double>(), 0.0);
  auto text = run_gpuplan(common + wait);
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_TRUE(has(text.out, "of which batch waiting")) << text.out;
  for (const std::string& bad : {std::string("--batch-wait-iters 40"), std::string("--batch-wait-tokens-ratio 0.8"),
                                wait + "--attention-dp",
                                std::string("--batch-wait-iters 40 --batch-wait-tokens-ratio 2"),
                                std::string("--batch-wait-iters -1")}) {
    auto r = run_gpuplan(common + bad);
    EXPECT_EQ(r.exit_code, 2) << bad;
    EXPECT_TRUE(has(r.err, "--batch-wait-")) << bad << ": " << r.err;
  }
  auto sync = run_gpuplan(point + wait + "--engine tensorrt-llm --arrival synchronized");
  EXPECT_EQ(sync.exit_code, 2);
  EXPECT_TRUE(has(sync.err, "--batch-wait-iters")) << sync.err;
  auto sglang = run_gpuplan(point + run + wait + "--engine sglang");
  EXPECT_EQ(sglang.exit_code, 2);
  EXPECT_TRUE(has(sglang.err, "forwards of its own")) << sglang.err;
  // The attention-DP balancer needs attention-DP.
  auto adp = run_gpuplan(common + "--adp-balance-timeout-iters 60");
  EXPECT_EQ(adp.exit_code, 2);
  EXPECT_TRUE(has(adp.err, "--adp-balance-timeout-iters")) << adp.err;
}

// The same for a disaggregated run whose decode recipe sets a receive interval: row 184's deployment
// (GB200 FP8 Dynamo + SGLang, one TP4 prefill and one TP4 decode worker, 1K/1K at 4 clients, the
// srt-slurm low-latency recipe: 128 sequences, 512 prefill requests and 8,192 tokens, decode workers
// polling every 10 steps) gives one median TTFT through validate and through infer's flags.
TEST(ConsistencyCli, InferAndValidateGiveOneTtftForADecodeReceiveInterval) {
  const double ttft_ms = validated_ttft_ms(
      "date,gpu,framework,model,precision,spec_decode,disaggregated,prefill_workers,prefill_tp,prefill_ep,"
      "prefill_attention_dp,decode_workers,decode_tp,decode_ep,decode_attention_dp,prefill_gpus,decode_gpus,gpus,"
      "isl,osl,concurrency,output_tok_s_per_gpu,median_tok_s_per_user,median_ttft_ms,median_tpot_ms\n"
      "2026-02-09,GB200,Dynamo + SGLang,DeepSeek-R1-0528,FP8,none,yes,1,4,1,no,1,4,1,no,4,4,8,1024,1024,4,48.2,"
      "101.5,237.7,9.85\n",
      "disagg").at(0);
  ASSERT_GT(ttft_ms, 0);
  const std::string common =
      "infer --model deepseek-r1 --system gb200-nvl72 --precision fp8 --kv-precision fp8 --engine dynamo+sglang "
      "--disagg --prefill-gpus 4 --prefill-tp 4 --prefill-ep 1 --decode-gpus 4 --decode-tp 4 --decode-ep 1 "
      "--decode-max-batch 128 --prefill-max-batch 512 --prefill-max-tokens 8192 --isl 922 --osl 922 --concurrency 4 "
      "--arrival closed_loop --requests-per-client 10 --length-low 0.8 --prefill-fp8-gemm-backend triton --json ";
  // (the row's recipe, gb200-fp8/1k1k/low-latency.yaml, runs its prefill workers' block-FP8 GEMMs on
  // SGLang's Triton kernel and its decode workers' on FlashInfer's)
  auto ten = run_gpuplan(common + "--scheduler-recv-interval 10");
  ASSERT_EQ(ten.exit_code, 0) << ten.err;
  EXPECT_NEAR(ten.json()["ttft_median_s"].get<double>() * 1e3, ttft_ms, 1e-6 * ttft_ms);
  auto one = run_gpuplan(common);
  ASSERT_EQ(one.exit_code, 0) << one.err;
  EXPECT_LT(one.json()["ttft_median_s"].get<double>() * 1e3, ttft_ms - 20.0);  // 4.5 decode steps of ~9 ms
  // The result names the wait: 4.5 decode steps with the interval, none without; the text breakdown
  // of TTFT lists it beside the front end, prefill, hand-off, first step and queue.
  const double step_s = ten.json()["decode_step"]["total_s"].get<double>();
  EXPECT_NEAR(ten.json()["receive_wait_s"].get<double>(), 4.5 * step_s, 1e-9);
  EXPECT_EQ(one.json()["receive_wait_s"].get<double>(), 0.0);
  std::string text_cmd = common.substr(0, common.rfind("--json"));
  auto text = run_gpuplan(text_cmd + "--scheduler-recv-interval 10");
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_TRUE(has(text.out, "decode receive interval")) << text.out;
  char front_end[32];
  std::snprintf(front_end, sizeof front_end, "front end %.1f,", ten.json()["request_overhead_s"].get<double>() * 1e3);
  EXPECT_TRUE(has(text.out, front_end)) << text.out;  // the engine's front end, as the JSON states it
  auto plain_text = run_gpuplan(text_cmd);
  EXPECT_FALSE(has(plain_text.out, "decode receive interval")) << plain_text.out;
}

}  // namespace
