// gpuplan train's options for what a published row states (--arch, --framework-release,
// --attention-kernel, --flop-convention), and validate's training rows: each replays as its command; a row whose notes
// contradict its figure is reported with the reason and not scored.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <string>

#include "run_cli.h"

namespace {

TEST(CliTrainRows, BadFrameworkReleaseExits2NamingTheFieldAndRange) {
  for (const char* year : {"2031", "2018", "0"}) {
    const auto r = run_gpuplan(std::string("train --model llama3.1-8b --gpus 8 --framework-release ") + year);
    EXPECT_EQ(r.exit_code, 2) << year << r.out;
    EXPECT_TRUE(has(r.err, "--framework-release")) << r.err;
    EXPECT_TRUE(has(r.err, "2019 to 2026")) << r.err;
  }
  for (const char* bad : {"x", "25.13", "18.05", "2025.09", "25.9"}) {
    const auto j = run_gpuplan(std::string("train --model llama3.1-8b --gpus 8 --framework-release ") + bad + " --json");
    EXPECT_EQ(j.exit_code, 2) << bad;
    EXPECT_TRUE(has(j.out + j.err, "--framework-release")) << j.out << j.err;
    EXPECT_TRUE(has(j.out + j.err, "YY.MM")) << j.out << j.err;  // both allowed forms named
  }
  const auto c = run_gpuplan("train --model llama3.1-8b --gpus 8 --framework-release 25.09 --plan tp=1,pp=1 --json");
  ASSERT_TRUE(c.exit_code == 0 || c.exit_code == 3) << c.err;  // 3: does not fit; the document is printed either way
  EXPECT_EQ(c.json()["framework_release"], 2025);
  EXPECT_EQ(c.json()["framework_container"], "25.09");
}

// The attention kernel: as the release has it, or stated. On Hopper FlashAttention-2 runs slower than the
// native kernels at any release; elsewhere it is refused where no rate of it is known, naming the option.
TEST(CliTrainRows, AttentionKernelIsStatedOrAsTheReleaseHasIt) {
  const std::string base = "train --model llama3.1-8b --system hgx-h100 --gpus 8 --seq 16384 --global-batch 64 "
                           "--plan tp=1,pp=1,mbs=1,recompute=full --json";
  const auto ran = [](const auto& r) { return r.exit_code == 0 || r.exit_code == 3; };
  const auto now = run_gpuplan(base), fa2 = run_gpuplan(base + " --attention-kernel flash-attention-2"),
             y2023 = run_gpuplan(base + " --framework-release 2023"),
             y2023_native = run_gpuplan(base + " --framework-release 2023 --attention-kernel native");
  for (const auto* r : {&now, &fa2, &y2023, &y2023_native}) ASSERT_TRUE(ran(*r)) << r->err;
  EXPECT_EQ(now.json()["attention_kernel"], "native");
  EXPECT_EQ(fa2.json()["attention_kernel"], "flash-attention-2");
  EXPECT_EQ(y2023.json()["attention_kernel"], "flash-attention-2");
  EXPECT_EQ(y2023_native.json()["attention_kernel"], "native");
  EXPECT_LT(now.json()["step_time_s"].get<double>(), fa2.json()["step_time_s"].get<double>());
  EXPECT_DOUBLE_EQ(fa2.json()["step_time_s"].get<double>(), y2023.json()["step_time_s"].get<double>());
  EXPECT_DOUBLE_EQ(now.json()["step_time_s"].get<double>(), y2023_native.json()["step_time_s"].get<double>());
  const auto a100 = run_gpuplan("train --model llama3.1-8b --system hgx-a100 --gpus 8 --plan tp=1,pp=1,mbs=1 --json"),
             a100_fa2 = run_gpuplan("train --model llama3.1-8b --system hgx-a100 --gpus 8 --plan tp=1,pp=1,mbs=1 "
                                    "--attention-kernel fa2 --json");
  ASSERT_TRUE(ran(a100)) << a100.err;
  ASSERT_TRUE(ran(a100_fa2)) << a100_fa2.err;
  EXPECT_DOUBLE_EQ(a100.json()["step_time_s"].get<double>(), a100_fa2.json()["step_time_s"].get<double>());
  for (const char* bad : {"--system hgx-b200 --attention-kernel flash-attention-2", "--attention-kernel fa3",
                          "--attention-kernel ''"}) {
    const auto r = run_gpuplan(std::string("train --model llama3.1-8b --gpus 8 ") + bad);
    EXPECT_EQ(r.exit_code, 2) << bad << r.out;
    EXPECT_TRUE(has(r.err, "--attention-kernel")) << r.err;
  }
}

TEST(CliTrainRows, EpOverlapIsStatedOrAsTheReleaseHasIt) {
  const auto bad = run_gpuplan("train --model deepseek-v3 --ep-overlap yes");
  EXPECT_EQ(bad.exit_code, 2) << bad.out;
  EXPECT_TRUE(has(bad.err, "--ep-overlap")) << bad.err;
  EXPECT_TRUE(has(bad.err, "on or off")) << bad.err;
  const std::string base = "train --model deepseek-v3 --system gb200-nvl72 --gpus 256 --precision mxfp8 --seq 4096 "
                           "--global-batch 4096 --plan tp=1,pp=4,vp=4,ep=64,mbs=1";
  // Exit 0, or 3 when the plan does not fit in memory: the document is printed either way.
  const auto ran = [](const auto& r) { return r.exit_code == 0 || r.exit_code == 3; };
  // Unstated: the newest release overlaps a MoE plan with EP > 1.
  const auto dflt = run_gpuplan(base + " --json");
  const auto off = run_gpuplan(base + " --ep-overlap off --json");
  const auto key_off = run_gpuplan(base + ",ep_overlap=0 --json");
  ASSERT_TRUE(ran(dflt)) << dflt.err;
  ASSERT_TRUE(ran(off)) << off.err;
  ASSERT_TRUE(ran(key_off)) << key_off.err;
  EXPECT_EQ(dflt.json()["ep_overlap"], true);
  EXPECT_EQ(off.json()["ep_overlap"], false);
  EXPECT_EQ(key_off.json()["ep_overlap"], false);
  EXPECT_LT(dflt.json()["step_time_s"].get<double>(), off.json()["step_time_s"].get<double>());
  // Whatever the precision or the model's name: a custom MoE (--arch) overlaps as a built-in one does.
  const std::string custom = "train --model my-moe --arch layers=24,hidden=2048,heads=16,kv_heads=4,vocab=32000,"
                             "ffn_hidden=1024,experts=64,topk=8 --system gb200-nvl72 --gpus 64 --precision bf16 --seq 4096 "
                             "--global-batch 512 --plan tp=1,pp=1,ep=8,mbs=1";
  const auto mine = run_gpuplan(custom + " --json");
  ASSERT_TRUE(ran(mine)) << mine.err;
  EXPECT_EQ(mine.json()["ep_overlap"], true);
  // Before the release that has it (Megatron-Core 0.14, the 25.09 container): off.
  for (const char* before : {"25.07", "2024"}) {
    const auto old = run_gpuplan(custom + " --framework-release " + before + " --json");
    ASSERT_TRUE(ran(old)) << old.err;
    EXPECT_EQ(old.json()["ep_overlap"], false) << before;
  }
  const auto from = run_gpuplan(custom + " --framework-release 25.09 --json");
  ASSERT_TRUE(ran(from)) << from.err;
  EXPECT_EQ(from.json()["ep_overlap"], true);
}

TEST(CliTrainRows, OldReleaseRunsWithoutWhatItLacked) {
  const auto r = run_gpuplan("train --model llama3.1-8b --gpus 16 --global-batch 128 --seq 2048 --framework-release 2021 "
                             "--plan tp=4,pp=1,mbs=1 --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = r.json();
  EXPECT_EQ(j["framework_release"], 2021);
  EXPECT_EQ(j["plan"]["zero"], 0);
  EXPECT_EQ(j["plan"]["sequence_parallel"], false);
  // The newest release keeps them; a plan that states them has them in any release.
  const auto n = run_gpuplan("train --model llama3.1-8b --gpus 16 --global-batch 128 --seq 2048 --plan tp=4,pp=1,mbs=1 --json");
  ASSERT_EQ(n.exit_code, 0) << n.err;
  EXPECT_EQ(n.json()["plan"]["zero"], 1);
  EXPECT_EQ(n.json()["plan"]["sequence_parallel"], true);
  EXPECT_GT(r.json()["step_time_s"].get<double>(), n.json()["step_time_s"].get<double>());
  const auto s = run_gpuplan("train --model llama3.1-8b --gpus 16 --global-batch 128 --seq 2048 --framework-release 2021 "
                             "--plan tp=4,pp=1,mbs=1,sp=1,zero=1,dist_opt=1 --json");
  ASSERT_EQ(s.exit_code, 0) << s.err;
  EXPECT_EQ(s.json()["plan"]["sequence_parallel"], true);
  EXPECT_EQ(s.json()["plan"]["zero"], 1);
  // Without --plan, an old release's plan is chosen among those it could run.
  const auto c = run_gpuplan("train --model llama3.1-8b --gpus 16 --global-batch 128 --seq 2048 --framework-release 2021 --json");
  ASSERT_EQ(c.exit_code, 0) << c.err;
  EXPECT_EQ(c.json()["plan"]["sequence_parallel"], false);
  EXPECT_EQ(c.json()["plan"]["zero"], 0);
}

TEST(CliTrainRows, ArchBuildsAModelNoBuiltInNames) {
  const auto r = run_gpuplan("train --model my-gpt --arch layers=24,hidden=2048,heads=16,vocab=50257 --gpus 8 "
                             "--global-batch 64 --seq 2048 --plan tp=1,pp=1,mbs=1 --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.json()["model"], "my-gpt");
  const auto missing = run_gpuplan("train --model my-gpt --arch layers=24,hidden=2048 --gpus 8");
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_TRUE(has(missing.err, "--arch")) << missing.err;
  const auto bad_key = run_gpuplan("train --model llama3.1-8b --arch layer=24 --gpus 8");
  EXPECT_EQ(bad_key.exit_code, 2);
  EXPECT_TRUE(has(bad_key.err, "--arch.layer")) << bad_key.err;
  const auto range = run_gpuplan("train --model llama3.1-8b --arch hidden=0 --gpus 8");
  EXPECT_EQ(range.exit_code, 2);
  EXPECT_TRUE(has(range.err, "--arch.hidden")) << range.err;
  // A built-in model with a dimension replaced: the same model with more layers is slower.
  const auto base = run_gpuplan("train --model llama3.1-8b --gpus 8 --global-batch 64 --seq 4096 --plan tp=2,mbs=1 --json");
  const auto deeper =
      run_gpuplan("train --model llama3.1-8b --arch layers=40 --gpus 8 --global-batch 64 --seq 4096 --plan tp=2,mbs=1 --json");
  ASSERT_EQ(base.exit_code, 0) << base.err;
  ASSERT_EQ(deeper.exit_code, 0) << deeper.err;
  EXPECT_GT(deeper.json()["step_time_s"].get<double>(), base.json()["step_time_s"].get<double>());
}

TEST(CliTrainRows, FlopConvention) {
  const std::string q = "train --model llama3.1-8b --gpus 8 --global-batch 64 --seq 4096 --plan tp=1,mbs=1,recompute=full --json";
  const auto model = run_gpuplan(q), eq3 = run_gpuplan(q + " --flop-convention narayanan-2021");
  ASSERT_EQ(model.exit_code, 0) << model.err;
  ASSERT_EQ(eq3.exit_code, 0) << eq3.err;
  EXPECT_DOUBLE_EQ(model.json()["tflops_per_gpu"].get<double>(), model.json()["model_tflops_per_gpu"].get<double>());
  EXPECT_GT(eq3.json()["tflops_per_gpu"].get<double>(), model.json()["tflops_per_gpu"].get<double>());  // counts recompute
  EXPECT_EQ(eq3.json()["flop_convention"], "narayanan-2021");
  const auto bad = run_gpuplan("train --model llama3.1-8b --gpus 8 --flop-convention hfu");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_TRUE(has(bad.err, "--flop-convention")) << bad.err;
}

// Two rows of one run: the second's notes state 4x less TFLOP/s than its tokens/s imply.
TEST(CliTrainRows, ContradictingRowIsReportedNotScored) {
  const std::string path = testing::TempDir() + "/train-rows-contradiction.csv";
  {
    std::ofstream f(path);
    f << "source_id,source_url_or_path,model,params_B,layers,hidden,ffn_hidden,heads,kv_heads,vocab,seq_len,moe_experts,"
         "moe_topk,gpu,num_gpus,precision,tp,pp,vp,cp,ep,dp,mbs,gbs,recompute,reported_metric,reported_value,notes,"
         "mfu_basis\n";
    const std::string row = "NEMO-24.07,x,GPT3-5B,5,24,4096,16384,32,32,50257,2048,,,H100-SXM-80GB,64,FP8,1,1,,1,,64,4,2048,,"
                            "tokens_per_sec_per_gpu,23406,";
    f << row << "model TFLOP/s/GPU=765,\n";
    f << row << "model TFLOP/s/GPU=190,\n";
  }
  const auto r = run_gpuplan("validate --dataset " + path + " --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = r.json();
  ASSERT_EQ(j["rows"].size(), 1u);
  ASSERT_EQ(j["skipped"].size(), 1u);
  EXPECT_EQ(j["skipped"][0]["row"], 1);
  EXPECT_TRUE(has(j["skipped"][0]["reason"].get<std::string>(), "contradicts itself")) << j["skipped"][0];
  // The scored row replays as its command.
  const auto& row = j["rows"][0];
  std::string cmd = row["command"].get<std::string>();
  ASSERT_EQ(cmd.rfind("gpuplan train ", 0), 0u) << cmd;
  const auto replay = run_gpuplan(cmd.substr(std::string("gpuplan ").size()));
  ASSERT_EQ(replay.exit_code, 0) << replay.err;
  const double got = replay.json()[row["command_field"].get<std::string>()].get<double>() * row["command_scale"].get<double>();
  EXPECT_NEAR(got, row["predicted"].get<double>(), 1e-6 * row["predicted"].get<double>());
  std::remove(path.c_str());
}

}  // namespace
