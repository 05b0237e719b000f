// Files in and out of the CLI: no output option overwrites an input of the same run (through links
// and ".." too), special files are never read, and the input defects that aborted or misled a run.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "run_cli.h"

namespace {
// The file's helpers by name: the CLI tests build in unity batches, which join files.
namespace inputs_outputs {

namespace fs = std::filesystem;

const std::string kDir = "/tmp/gpuplan_cli_inputs_outputs";

std::string write(const std::string& name, const std::string& text) {
  fs::create_directories(fs::path(kDir + "/" + name).parent_path());
  const std::string path = kDir + "/" + name;
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

std::string slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), {});
}

void expect_refused(const CliResult& r, std::initializer_list<std::string> words) {
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  for (const auto& w : words) EXPECT_NE(r.err.find(w), std::string::npos) << "'" << w << "' not in: " << r.err;
}

const std::string kTraining =
    "source_id,model,gpu,num_gpus,precision,tp,pp,gbs,seq_len,reported_metric,reported_value,notes\n"
    "x,Llama-3.1-8B,H100-SXM,8,BF16,1,1,128,8192,tokens_per_sec_per_gpu,9000,\n";

TEST(InputsOutputs, CalibrateWriteBandsRefusesItsOwnDataset) {
  const auto csv = write("bands/training.csv", kTraining);
  fs::remove(kDir + "/bands/link.csv");
  fs::create_symlink(csv, kDir + "/bands/link.csv");
  for (const std::string& out : {csv, kDir + "/bands/link.csv", kDir + "/bands/../bands/training.csv"}) {
    const auto r = run_gpuplan("calibrate --bands --dataset " + csv + " --write-bands " + out, 120);
    expect_refused(r, {"--write-bands", "input"});
    EXPECT_EQ(slurp(csv), kTraining);
  }
  expect_refused(run_gpuplan("calibrate --bands --dataset " + csv + " --write-bands " + kDir, 120),
                 {"--write-bands", "directory"});
}

TEST(InputsOutputs, ExportOutputDirRefusesToOverwriteTheClusterFile) {
  const std::string cluster = slurp(kSrc + "/examples/clusters/hgx-h100-256.yaml");
  const auto path = write("export/topology.yaml", cluster);
  const auto r = run_gpuplan("export slurm --cluster " + path + " --output-dir " + kDir + "/export", 60);
  expect_refused(r, {"--output-dir", "input"});
  EXPECT_EQ(slurp(path), cluster);
  const auto file = write("export-file", "x");
  expect_refused(run_gpuplan("export slurm --cluster " + path + " --output-dir " + file, 60),
                 {"--output-dir", "not a directory"});
}

TEST(InputsOutputs, ScheduleWriteTraceAndReportOutRefuseTheirInputs) {
  const auto trace = write("sched/trace.csv", "submit_s,duration_s,gpus\n0,3600,8\n10,600,16\n");
  const std::string cluster = kSrc + "/examples/clusters/hgx-h100-256.yaml";
  expect_refused(run_gpuplan("schedule --cluster " + cluster + " --trace " + trace + " --write-trace " + kDir +
                                 "/sched/../sched/trace.csv",
                             120),
                 {"--write-trace", "input"});
  const auto copy = write("report/cluster.yaml", slurp(cluster));
  expect_refused(run_gpuplan("report schedule --cluster " + copy + " --trace generated --jobs 20 --out " + copy, 120),
                 {"--out", "input"});
  EXPECT_EQ(slurp(copy), slurp(cluster));
}

TEST(InputsOutputs, SpecialFilesAreRefusedNotRead) {
  for (const char* dev : {"/dev/zero", "/dev/stdin"}) {
    const auto r = run_gpuplan(std::string("validate --dataset ") + dev + " < /dev/null", 20);
    expect_refused(r, {"--dataset", "not a regular file"});
  }
  expect_refused(run_gpuplan("schedule --cluster /dev/zero --trace generated", 20), {"--cluster", "not a regular file"});
  expect_refused(run_gpuplan("validate --dataset " + kDir, 20), {"--dataset", "directory"});
}

TEST(InputsOutputs, CalibrationDirectoryIsRefusedNotIgnored) {
  fs::create_directories(kDir + "/caldir");
  expect_refused(run_gpuplan("train --model llama3.1-8b --system hgx-h100 --gpus 8 --calibration " + kDir + "/caldir",
                             60),
                 {"--calibration", "directory"});
}

TEST(InputsOutputs, AnEtpInOneRowsNotesSkipsThatRowNotTheRun) {
  const auto csv = write("etp.csv", kTraining + "y,Llama-3.1-8B,H100-SXM,8,BF16,1,1,128,8192,"
                                                "tokens_per_sec_per_gpu,9000,ETP=3\n");
  const auto r = run_gpuplan("validate --json --dataset " + csv, 120);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto doc = r.json();
  EXPECT_EQ(doc["rows_scored"], 1);
  ASSERT_EQ(doc["skipped"].size(), 1u) << r.out;
  EXPECT_NE(doc["skipped"][0]["reason"].get<std::string>().find("ETP=3"), std::string::npos) << r.out;
}

TEST(InputsOutputs, MoeLayerFrequencyOutOfRangeNamesTheField) {
  const auto cfg = write("freq/config.json", R"({"model_type": "deepseek_v3", "hidden_size": 1024,
    "num_hidden_layers": 8, "num_attention_heads": 8, "vocab_size": 1000, "intermediate_size": 2048,
    "kv_lora_rank": 128, "q_lora_rank": 256, "qk_nope_head_dim": 64, "qk_rope_head_dim": 32, "v_head_dim": 64,
    "n_routed_experts": 8, "num_experts_per_tok": 2, "moe_intermediate_size": 512, "moe_layer_freq": 2147483647})");
  expect_refused(run_gpuplan("model show " + cfg, 30), {"moe_layer_freq", "8"});
}

TEST(InputsOutputs, GlobalBatchOutOfRangeIsRefusedNotClamped) {
  for (const char* command : {"train --model llama3.1-8b --system hgx-h100 --gpus 8",
                              "cost --model llama3.1-8b --system hgx-h100 --gpus 8"}) {
    expect_refused(run_gpuplan(std::string(command) + " --global-batch 99999999999", 60),
                   {"--global-batch", "1000000000"});
    expect_refused(run_gpuplan(std::string(command) + " --global-batch 1e20", 60), {"--global-batch"});
  }
}

}  // namespace inputs_outputs
}  // namespace
