// Options that were silently dropped, ignored, clamped or named wrongly: each is now refused with exit 2 and a
// message naming the option and what it allows.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <string>

#include "run_cli.h"

namespace {
// The file's helpers by name: the CLI tests build in unity batches, which join files.
namespace input_checks {

const std::string kDir = "/tmp/gpuplan_cli_input_checks";
const std::string kCluster = kSrc + "/examples/clusters/hgx-h100-256.yaml";

std::string write(const std::string& name, const std::string& text) {
  std::filesystem::create_directories(kDir);
  const std::string path = kDir + "/" + name;
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

// Exit 2, and the message names each of `words`.
void expect_refused(const std::string& args, std::initializer_list<std::string> words) {
  const CliResult r = run_gpuplan(args, 120);
  EXPECT_EQ(r.exit_code, 2) << args << "\n" << r.out.substr(0, 500) << r.err;
  for (const auto& w : words) EXPECT_TRUE(has(r.err, w)) << args << ": '" << w << "' not in: " << r.err;
}

TEST(InputChecks, CostNamesTheReferenceSystem) {
  expect_refused("cost --reference nosuch", {"--reference", "unknown system 'nosuch'"});
}

TEST(InputChecks, ScaleRefusesAStatedDpAGpuCountContradicts) {
  const std::string base = "scale --model llama3.1-8b --system hgx-h100 --mode strong ";
  expect_refused(base + "--gpus 8,16 --plan tp=8,dp=1", {"--plan", "dp=1", "16"});
  const CliResult agrees = run_gpuplan(base + "--gpus 8 --plan tp=8,dp=1 --json", 120);
  ASSERT_EQ(agrees.exit_code, 0) << agrees.err;
  EXPECT_EQ(agrees.json()["points"][0]["plan"]["dp"], 1);
  const CliResult derived = run_gpuplan(base + "--gpus 8,16 --plan tp=8 --json", 120);
  EXPECT_EQ(derived.exit_code, 0) << derived.err;
}

TEST(InputChecks, ScheduleSeedIsZeroOrMore) {
  expect_refused("schedule --cluster " + kCluster + " --jobs 50 --seed -1", {"--seed", "0 or more"});
}

TEST(InputChecks, ScheduleRefusesOptionsThatDoNotApply) {
  const std::string trace = kDir + "/trace.csv";
  std::filesystem::create_directories(kDir);
  const CliResult made = run_gpuplan("schedule --cluster " + kCluster + " --jobs 30 --write-trace " + trace, 120);
  ASSERT_EQ(made.exit_code, 0) << made.err;
  const std::string replay = "schedule --cluster " + kCluster + " --trace " + trace;
  EXPECT_EQ(run_gpuplan(replay, 120).exit_code, 0);
  expect_refused(replay + " --load 0.5", {"--load", "generated"});
  expect_refused(replay + " --seed 7", {"--seed", "generated"});
  expect_refused("schedule --cluster " + kCluster + " --jobs 30 --timeline 10", {"--timeline", "--json"});
  const CliResult timeline = run_gpuplan("schedule --cluster " + kCluster + " --jobs 30 --timeline 10 --json", 120);
  ASSERT_EQ(timeline.exit_code, 0) << timeline.err;
  EXPECT_TRUE(timeline.json()["results"][0].contains("timeline"));
}

TEST(InputChecks, ScheduleNamesTheSlowdownSystem) {
  expect_refused("schedule --cluster " + kCluster + " --jobs 20 --slowdown-model llama3.1-8b --slowdown-system nosuch",
                 {"--slowdown-system", "nosuch"});
}

TEST(InputChecks, ExportWritesOrReturnsNotBoth) {
  const std::string dir = kDir + "/export_both";
  std::filesystem::remove_all(dir);
  expect_refused("export slurm --cluster " + kCluster + " --json --output-dir " + dir, {"--output-dir", "--json"});
  EXPECT_FALSE(std::filesystem::exists(dir));
}

TEST(InputChecks, CalibrateRefusesModeOptionsOfOtherModes) {
  const std::string training = "calibrate --dataset " + kSrc + "/tests/cli/data/training-5-rows.csv";
  expect_refused(training + " --metrics tpot_ms", {"--metrics", "applies with --inference"});
  expect_refused(training + " --fit-sources x", {"--fit-sources", "applies with --engines"});
  const std::string serving =
      write("i_small.csv",
            "source_id,model,gpu,num_gpus,precision_weights,precision_kv,framework,scenario,metric,isl,osl,"
            "concurrency_or_batch,tp,pp,value\n"
            "x,Llama-3.1-8B,H100-SXM,1,FP8,FP8,TensorRT-LLM,offline,tokens_per_sec_total,128,128,64,1,1,9000\n");
  const std::string inference = "calibrate --dataset " + serving + " --inference";
  expect_refused(inference + " --fit-sources x", {"--fit-sources", "applies with --engines"});
  expect_refused(inference + " --generation nosuchgen", {"--generation", "nosuchgen", "known generations", "hopper"});
  expect_refused(inference + " --generation blackwell", {"--generation", "no row", "hopper"});
  expect_refused(inference + " --metrics all,tpot_ms", {"--metrics", "'all' cannot be combined"});
  expect_refused(inference + " --metrics tpot_ms,tpot_ms", {"--metrics", "twice"});
}

TEST(InputChecks, ReportNamesScaleGpus) {
  const std::string report = "report train --out " + kDir + "/r.html --scale-gpus ";
  expect_refused(report + "0", {"--scale-gpus", "'0' is not a GPU count"});
  expect_refused(report + "''", {"--scale-gpus", "must not be empty"});
  expect_refused(report + "8,8", {"--scale-gpus", "listed twice"});
  expect_refused(report + "8,,16", {"--scale-gpus"});
}

TEST(InputChecks, SitePowerBudgetOutOfRangeNamesPowerMw) {
  for (const char* v : {"0", "-1"})
    expect_refused(std::string("site --power-mw ") + v, {"--power-mw", "more than 0 and at most 100000 MW"});
}

TEST(InputChecks, ProbeDeviceIsAnIndex) {
  const CliResult negative = run_gpuplan("probe --device -1", 60);
  EXPECT_EQ(negative.exit_code, 2) << negative.err;
  EXPECT_TRUE(has(negative.err, "--device")) << negative.err;
  EXPECT_TRUE(has(negative.err, "device index 0 or more")) << negative.err;
  EXPECT_LT(negative.err.size(), 300u) << negative.err;
  const CliResult junk = run_gpuplan("probe --device abc", 60);
  EXPECT_EQ(junk.exit_code, 2) << junk.err;
  EXPECT_TRUE(has(junk.err, "--device")) << junk.err;
  EXPECT_TRUE(has(junk.err, "not a whole number")) << junk.err;
}

TEST(InputChecks, ArchReportsTheValueGiven) {
  for (const char* v : {"layers=1e308", "layers=5.5", "hidden=inf"}) {
    const CliResult r = run_gpuplan(std::string("train --arch ") + v, 60);
    EXPECT_EQ(r.exit_code, 2) << v << ": " << r.err;
    const std::string value = std::string(v).substr(std::string(v).find('=') + 1);
    EXPECT_TRUE(has(r.err, "got '" + value + "'")) << v << ": " << r.err;
    EXPECT_FALSE(has(r.err, "got 0")) << v << ": " << r.err;
  }
}

TEST(InputChecks, ValidateSkipsANegativeGpuCountNamingTheColumn) {
  const std::string csv =
      write("negative_gpus.csv",
            "source_id,model,gpu,num_gpus,precision,tp,pp,gbs,seq_len,reported_metric,reported_value\n"
            "x,Llama-3.1-8B,H100-SXM,-64,BF16,1,1,128,8192,tokens_per_sec_per_gpu,9000\n"
            "y,Llama-3.1-8B,H100-SXM,8,BF16,1,1,128,8192,tokens_per_sec_per_gpu,9000\n");
  const CliResult r = run_gpuplan("validate --json --dataset " + csv, 120);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = r.json();
  EXPECT_EQ(j["rows_scored"], 1);
  ASSERT_EQ(j["skipped"].size(), 1u) << r.out;
  const std::string reason = j["skipped"][0]["reason"];
  EXPECT_TRUE(has(reason, "num_gpus '-64'")) << reason;
}

TEST(InputChecks, PlanRefusesDuplicatesAndEmptyItems) {
  expect_refused("train --plan tp=8,tp=4", {"--plan.tp", "given twice"});
  expect_refused("train --plan tp=8,,pp=2", {"--plan", "empty item"});
  expect_refused("train --plan ,,,", {"--plan", "empty item"});
}

TEST(InputChecks, ArchRefusesAKeyGivenTwice) {
  expect_refused("train --arch layers=10,layers=20", {"--arch.layers", "given twice"});
}

TEST(InputChecks, SiteRefusesDuplicateAndEmptySystems) {
  expect_refused("site --power-mw 10 --systems hgx-h100,hgx-h100", {"--systems", "hgx-h100", "twice"});
  expect_refused("site --power-mw 10 --systems hgx-h100,,hgx-h200", {"--systems", "empty item"});
  expect_refused("site --power-mw 10 --mix hgx-h100:50,hgx-h100:50", {"--mix", "twice"});
}

// size, cost and recommend take their systems repeated or comma-separated, as site's --systems; a system given
// twice (one name twice, or a name and its alias) is refused where it would be answered twice.
// `infer --requests-per-s` on a stated deployment: the open loop's own load and limits, nothing of a
// purchase or of a closed loop taken silently.
TEST(InputChecks, OpenLoopOnAStatedDeploymentRefusesWhatDoesNotApply) {
  const std::string base = "infer --model llama3.1-8b --system hgx-h100 --requests-per-s 20 --gpus 8 --tp 1 --draws 10 ";
  expect_refused(base + "--confidence 0.9", {"--confidence", "nothing is bought"});
  expect_refused(base + "--concurrency 64", {"--concurrency", "Poisson arrivals' rate"});
  expect_refused(base + "--request-rate 5", {"--request-rate"});
  expect_refused(base + "--arrival synchronized", {"--arrival"});
  expect_refused(base + "--sweep", {"--sweep"});
  expect_refused(base + "--ttft-ms 0", {"--ttft-ms", "above 0"});
  expect_refused(base + "--isl-max 10", {"--isl-max"});
  // Without a deployment stated, the purchase names the way to ask it of one.
  expect_refused("infer --model llama3.1-8b --system hgx-h100 --requests-per-s 20 --max-num-tokens 4096",
                 {"--max-num-tokens", "state one with --gpus/--tp"});
  const CliResult ok = run_gpuplan(base + "--ttft-ms 500 --tpot-ms 50 --json", 120);
  ASSERT_EQ(ok.exit_code, 0) << ok.err;
  EXPECT_EQ(ok.json()["mode"], "open_loop_point");
  EXPECT_TRUE(ok.json()["met"].get<bool>()) << ok.out;
  // Beyond the deployment's capacity: unstable, the limits not met (exit 3), what it serves stated.
  const double capacity = ok.json()["capacity_per_s"].get<double>();
  const CliResult over = run_gpuplan("infer --model llama3.1-8b --system hgx-h100 --gpus 8 --tp 1 --draws 10 --ttft-ms "
                                     "500 --json --requests-per-s " + std::to_string(2 * capacity), 120);
  EXPECT_EQ(over.exit_code, 3) << over.err;
  EXPECT_FALSE(over.json()["stable"].get<bool>());
  EXPECT_NEAR(over.json()["served_per_s"].get<double>(), capacity, 1e-6 * capacity);
  // Disaggregated pools, stated: their open loop (the prefill pool's workers serve the prompts).
  const CliResult pools = run_gpuplan("infer --model deepseek-r1 --system gb200-nvl72 --isl 8192 --osl 1024 --disagg "
                                      "--prefill-gpus 8 --prefill-tp 8 --prefill-ep 8 --prefill-attn-dp --decode-gpus 16 "
                                      "--decode-tp 16 --decode-ep 16 --decode-attn-dp --requests-per-s 2 --draws 10 --json",
                                      120);
  ASSERT_EQ(pools.exit_code, 0) << pools.err;
  EXPECT_EQ(pools.json()["gpus"], 24);
  EXPECT_TRUE(has(pools.json()["deployment"].get<std::string>(), "prefill")) << pools.out;
  EXPECT_TRUE(pools.json()["stable"].get<bool>()) << pools.out;
}

TEST(InputChecks, SystemListsAreCommaSeparatedAndGivenOnce) {
  const CliResult size = run_gpuplan("size --model llama3.1-8b --requests-per-s 5 --systems hgx-h100,hgx-h200 "
                                     "--draws 20 --json", 120);
  ASSERT_EQ(size.exit_code, 0) << size.err;
  ASSERT_EQ(size.json()["options"].size(), 2u);
  EXPECT_EQ(size.json()["options"][0]["system"], "hgx-h100");
  EXPECT_EQ(size.json()["options"][1]["system"], "hgx-h200");
  const CliResult cost = run_gpuplan("cost --system hgx-h100,hgx-h200 --json", 120);
  ASSERT_EQ(cost.exit_code, 0) << cost.err;
  EXPECT_EQ(cost.json()["systems"].size(), 2u);
  const CliResult rec =
      run_gpuplan("recommend --model llama3.1-8b --task infer --system hgx-h100,hgx-h200 --json", 120);
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  expect_refused("size --model llama3.1-8b --requests-per-s 5 --systems hgx-h100,hgx-h100",
                 {"--systems", "given twice"});
  expect_refused("cost --system hgx-h100 --system 'HGX H100'", {"--system", "the same system (hgx-h100)"});
}

TEST(InputChecks, FabricAssumptionsAreGivenOnceAndUsed) {
  const std::string fabric = "fabric --system hgx-h100 --gpus 64";
  EXPECT_EQ(run_gpuplan(fabric + " --assume node_leaf_m=30", 60).exit_code, 0);
  expect_refused(fabric + " --assume node_leaf_m=30 --assume node_leaf_m=40", {"--assume", "twice"});
  expect_refused(fabric + " --assume q3400_price_usd=5", {"--assume q3400_price_usd", "not used", "node_leaf_m"});
}

}  // namespace input_checks
}  // namespace
