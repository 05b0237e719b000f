// The reproducers of issue 16 (crashes, injection, silent nonsense), each as it was reported: every
// one now runs correctly or exits 2 with a message naming the file and field.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "run_cli.h"

namespace {
// The file's helpers by name: the CLI tests build in unity batches, which join files.
namespace hardening {

const std::string kDir = "/tmp/gpuplan_cli_hardening";

std::string write(const std::string& name, const std::string& text) {
  std::filesystem::create_directories(kDir);
  const std::string path = kDir + "/" + name;
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

std::string slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), {});
}

// Exit 2, and the message names each of `words`.
void expect_refused(const CliResult& r, std::initializer_list<std::string> words) {
  EXPECT_EQ(r.exit_code, 2) << r.err;
  for (const auto& w : words) EXPECT_NE(r.err.find(w), std::string::npos) << "'" << w << "' not in: " << r.err;
}

const std::string kTrainingHeader =
    "source_id,model,gpu,num_gpus,precision,tp,pp,gbs,seq_len,reported_metric,reported_value\n";
const std::string kCluster = "name: c\nsystems:\n  - system: hgx-h100\n    count: 2\n";

TEST(Hardening, ZeroParallelismInADatasetRowIsSkippedNotAFloatingPointException) {
  for (const char* cols : {"0,1", "1,0"}) {
    const auto csv = write("zero.csv", kTrainingHeader + "x,Llama-3.1-8B,H100-SXM,8,BF16," + cols +
                                           ",128,8192,tokens_per_sec_per_gpu,9000\n"
                                           "y,Llama-3.1-8B,H100-SXM,8,BF16,1,1,128,8192,tokens_per_sec_per_gpu,9000\n");
    for (const char* cmd : {"validate", "calibrate"}) {
      const auto r = run_gpuplan(std::string(cmd) + " --dataset " + csv, 120);
      EXPECT_EQ(r.exit_code, 0) << cmd << ": " << r.err;
    }
    const auto v = run_gpuplan("validate --json --dataset " + csv, 120);
    ASSERT_EQ(v.exit_code, 0) << v.err;
    EXPECT_EQ(v.json()["rows_scored"], 1);
    ASSERT_EQ(v.json()["skipped"].size(), 1u);
    EXPECT_NE(v.json()["skipped"][0]["reason"].get<std::string>().find(">= 1"), std::string::npos) << v.out;
  }
}

TEST(Hardening, ServingRowWithTpZeroIsSkipped) {
  const auto csv = write("serve.csv",
                         "source_id,model,gpu,num_gpus,precision_weights,precision_kv,framework,scenario,metric,isl,"
                         "osl,concurrency_or_batch,tp,pp,value\n"
                         "x,Llama-3.1-8B,H100-SXM,1,FP8,FP8,TensorRT-LLM,offline,tokens_per_sec_total,128,128,64,0,1,"
                         "9000\n"
                         "y,Llama-3.1-8B,H100-SXM,1,FP8,FP8,TensorRT-LLM,offline,tokens_per_sec_total,128,128,64,1,1,"
                         "9000\n");
  const auto r = run_gpuplan("validate --json --dataset " + csv, 120);
  EXPECT_TRUE(r.exit_code == 0 || r.exit_code == 2) << r.err;
}

TEST(Hardening, NothingScoredIsAnError) {
  const auto header_only = write("header.csv", kTrainingHeader);
  expect_refused(run_gpuplan("validate --dataset " + header_only), {"--dataset", "no row"});
  expect_refused(run_gpuplan("calibrate --dataset " + header_only), {"--dataset", "no row"});
  // nan and inf are not measurements: skipped with a reason, so nothing is left to score.
  const auto nan_rows = write("nan.csv", kTrainingHeader +
                                             "x,Llama-3.1-8B,H100-SXM,8,BF16,1,1,128,8192,tokens_per_sec_per_gpu,nan\n"
                                             "x,Llama-3.1-8B,H100-SXM,8,BF16,1,1,128,8192,tokens_per_sec_per_gpu,inf\n");
  expect_refused(run_gpuplan("validate --dataset " + nan_rows), {"--dataset", "reported_value"});
}

TEST(Hardening, CarriageReturnLineEndingsAreRecords) {
  const auto csv = write("cr.csv", "source_id,model,gpu,num_gpus,precision,tp,pp,gbs,seq_len,reported_metric,"
                                   "reported_value\rx,Llama-3.1-8B,H100-SXM,8,BF16,1,1,128,8192,"
                                   "tokens_per_sec_per_gpu,9000\r");
  const auto r = run_gpuplan("validate --json --dataset " + csv, 120);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.json()["rows_scored"], 1);
}

TEST(Hardening, LongModelNamesAreCappedNotARegexStackOverflow) {
  const std::string name(30000, 'a');
  expect_refused(run_gpuplan("model show " + name), {"NAME", "30000 characters"});
  const auto r = run_gpuplan("model show '" + std::string(4000, 'a') + " (proxy 8 L)'");
  expect_refused(r, {"unknown model"});
  EXPECT_LT(r.err.size(), 2000u) << "the name is echoed whole";
  // The proxy form still works, and a huge layer count is refused, not an uncaught stoi.
  EXPECT_EQ(run_gpuplan("model show 'llama3.1-405b (proxy 8 L)'").exit_code, 0);
  expect_refused(run_gpuplan("model show 'llama3.1-405b (proxy 99999999999 L)'"), {"proxy layer count"});
}

TEST(Hardening, HugeSystemNameIsNotEchoedWhole) {
  const auto r = run_gpuplan("train --system " + std::string(100000, 'x'), 20);
  expect_refused(r, {"--system", "characters"});
  EXPECT_LT(r.err.size(), 5000u);
}

TEST(Hardening, HfConfigShapesAndDepth) {
  const std::string base = R"("model_type":"llama","num_hidden_layers":2,"hidden_size":64,"num_attention_heads":4,)"
                           R"("vocab_size":100,"intermediate_size":128)";
  const std::pair<std::string, std::string> bad[] = {
      {"{" + base + R"(,"num_key_value_heads":0})", "num_key_value_heads"},
      {"{" + base + R"(,"num_key_value_heads":8})", "num_key_value_heads"},
      {"{" + base + R"(,"num_key_value_heads":3})", "num_key_value_heads"},
      {"{" + base + R"(,"head_dim":0})", "head_dim"},
      {"{" + base + R"(,"max_position_embeddings":1e400})", "not valid JSON"},
      {R"({"model_type":"llama","num_hidden_layers":2,"hidden_size":64,"num_attention_heads":4,"vocab_size":100,)"
       R"("intermediate_size":0})",
       "intermediate_size"},
      {R"({"model_type":"deepseek_v3","num_hidden_layers":2,"hidden_size":64,"num_attention_heads":4,)"
       R"("vocab_size":100,"intermediate_size":128,"kv_lora_rank":16,"qk_nope_head_dim":8,"qk_rope_head_dim":8,)"
       R"("v_head_dim":8,"n_routed_experts":4,"num_experts_per_tok":2,"moe_intermediate_size":32,)"
       R"("first_k_dense_replace":5})",
       "first_k_dense_replace"},
      {"{\"model_type\":\"llama\",\"x\":" + std::string(200000, '[') + std::string(200000, ']') + "}",
       "nested deeper"},
  };
  int i = 0;
  for (const auto& [text, field] : bad) {
    const auto path = write("config" + std::to_string(i++) + ".json", text);
    expect_refused(run_gpuplan("model show " + path), {field});
  }
  EXPECT_EQ(run_gpuplan("model show " + write("ok.json", "{" + base + "}")).exit_code, 0);
}

TEST(Hardening, InvalidUtf8InANameWithJson) {
  const auto path = write("utf8.json", "{\"model_type\":\"llama\",\"_name_or_path\":\"bad\xff\xfe\",\"num_hidden_layers\":2,"
                                       "\"hidden_size\":64,\"num_attention_heads\":4,\"vocab_size\":100,"
                                       "\"intermediate_size\":128}");
  // nlohmann rejects the bytes while parsing: a clear error, exit 2.
  const auto r = run_gpuplan("model show --json " + path);
  EXPECT_TRUE(r.exit_code == 0 || r.exit_code == 2) << r.err;
  const auto cluster = write("utf8.yaml", "name: c\nsystems:\n  - system: \"h\xff\"\n    count: 1\n    gpus_per_node: 8\n"
                                          "    nodes: 1\n    nvlink_domain_gpus: 8\n    node_prefix: n-\n");
  expect_refused(run_gpuplan("export slurm --json --cluster " + cluster), {"system"});
}

TEST(Hardening, YamlKeysAreScalarAndUnique) {
  const auto dup = write("dup.yaml", kCluster + "    count: 3\n");
  expect_refused(run_gpuplan("schedule --cluster " + dup), {"count", "duplicate key"});
  const auto list_key = write("listkey.yaml", "name: c\n? [a, b]\n: 1\nsystems:\n  - system: hgx-h100\n    count: 1\n");
  expect_refused(run_gpuplan("schedule --cluster " + list_key), {"key must be plain text"});
  const auto cat_dir = kDir + "/catalog";
  std::filesystem::create_directories(cat_dir);
  std::ofstream(cat_dir + "/acc.yaml") << "accelerators:\n  - name: x\n    memory_gb: 80\n    memory_gb: -5\n";
  expect_refused(run_gpuplan("catalog list --catalog " + cat_dir), {"memory_gb", "duplicate key"});
}

TEST(Hardening, ClusterNamesCannotInjectIntoExports) {
  const std::string injections[] = {
      "name: \"demo\\ntouch /tmp/x\\n#\"\nsystems:\n  - system: hgx-h100\n    count: 1\n",
      "name: c\nsystems:\n  - system: hgx-h100\n    count: 1\n    node_prefix: \"n$(touch /tmp/y)-\"\n",
      "name: \"a'b\"\nsystems:\n  - system: hgx-h100\n    count: 1\n",
  };
  for (const auto& text : injections) {
    const auto path = write("inject.yaml", text);
    for (const char* fmt : {"slurm", "kueue"}) {
      const auto r = run_gpuplan(std::string("export ") + fmt + " --cluster " + path);
      EXPECT_EQ(r.exit_code, 2) << text << r.out;
      EXPECT_TRUE(r.err.find("name") != std::string::npos || r.err.find("node_prefix") != std::string::npos) << r.err;
    }
  }
  // Valid names: every word of the label script is single-quoted.
  const auto ok = run_gpuplan("export kueue --cluster " + write("ok.yaml", kCluster));
  ASSERT_EQ(ok.exit_code, 0) << ok.err;
  EXPECT_NE(ok.out.find("kubectl label node 'hgx-h100-001' --overwrite 'gpuplan.io/system=hgx-h100'"),
            std::string::npos);
}

TEST(Hardening, ClusterSizeOverflowIsRefused) {
  const auto path = write("huge.yaml", "name: c\nsystems:\n  - system: x\n    count: 100000\n    gpus_per_node: 32\n"
                                       "    nodes: 1024\n    nvlink_domain_gpus: 32\n    node_prefix: n-\n");
  expect_refused(run_gpuplan("schedule --cluster " + path), {"count", "GPUs"});
  expect_refused(run_gpuplan("site --cluster " + path), {"count"});
}

TEST(Hardening, TraceTimesAreBoundedAndDatesReal) {
  const auto cluster = write("c.yaml", kCluster);
  const std::pair<std::string, std::string> bad[] = {
      {"submit_s,duration_s,gpus\n-1e308,5,8\n", "submit_s"},
      {"submit_s,duration_s,gpus\n1e308,5,8\n", "submit_s"},
      {"submit_s,duration_s,gpus\n0,-5,8\n", "duration_s"},
      {"timestamp,duration,num_gpus\n2017-02-30 00:00:00,5,8\n", "timestamp"},
  };
  for (const auto& [text, field] : bad)
    expect_refused(run_gpuplan("schedule --cluster " + cluster + " --trace " + write("t.csv", text)), {"t.csv", field});
}

TEST(Hardening, OutputsNeverReplaceAnInput) {
  const auto cluster = write("keep.yaml", kCluster);
  expect_refused(run_gpuplan("report schedule --cluster " + cluster + " --out " + cluster), {"--out", "input"});
  EXPECT_EQ(slurp(cluster), kCluster);
  const auto trace = write("keep.csv", "submit_s,duration_s,gpus\n0,5,8\n");
  expect_refused(run_gpuplan("schedule --cluster " + cluster + " --trace " + trace + " --write-trace " + trace),
                 {"--write-trace", "input"});
  // An existing output that is not an input is replaced, and the run says so.
  const auto out = write("old.csv", "old");
  const auto r = run_gpuplan("schedule --cluster " + cluster + " --trace " + trace + " --write-trace " + out);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("replacing"), std::string::npos) << r.err;
}

TEST(Hardening, NonFiniteAndSentinelOptionValues) {
  expect_refused(run_gpuplan("site --power-mw nan"), {"--power-mw"});
  expect_refused(run_gpuplan("site --power-mw 1 --pue nan"), {"--pue"});
  expect_refused(run_gpuplan("site --power-mw 1 --headroom -1"), {"--headroom"});
  // An empty value is not a number either (CLI11 would take it as none and run on the default).
  expect_refused(run_gpuplan("cost --system hgx-h100 --pue ''"), {"--pue", "empty"});
  expect_refused(run_gpuplan("infer --model llama3.1-8b --system hgx-h100 --tp ''"), {"--tp", "empty"});
  const auto csv = GPUPLAN_SOURCE_DIR + std::string("/tests/cli/data/training-5-rows.csv");
  expect_refused(run_gpuplan("calibrate --dataset " + csv + " --prior-weight nan"), {"--prior-weight"});
}

// An option the question does not read is refused, naming it, not run past.
TEST(Hardening, OptionsTheQuestionDoesNotReadAreRefused) {
  expect_refused(run_gpuplan("cost --system hgx-h100 --seq 4096"), {"--seq", "--model"});
  expect_refused(run_gpuplan("cost --system hgx-h100 --model llama3.1-8b --task infer --gpus 16"), {"--gpus", "train"});
  expect_refused(run_gpuplan("cost --system hgx-h100 --model llama3.1-8b --isl 4096"), {"--isl", "infer"});
  expect_refused(run_gpuplan("recommend --model llama3.1-8b --task train --users 5"), {"--users", "infer"});
  EXPECT_EQ(run_gpuplan("cost --system hgx-h100 --model llama3.1-8b --task infer --isl 2048").exit_code, 0);
  expect_refused(run_gpuplan("search --model llama3.1-8b --system hgx-h100 --gpus 16 --pue 2"), {"--pue", "--objective cost"});
  expect_refused(run_gpuplan("infer --model llama3.1-8b --system hgx-h100 --expert-skew 2"), {"--expert-skew", "experts"});
  expect_refused(run_gpuplan("infer --model llama3.1-8b --system hgx-h100 --two-batch-overlap"),
                 {"--two-batch-overlap", "experts"});
  // A constraint the answer already meets is no ignored input: a dense model's deployments are all aggregated.
  EXPECT_EQ(run_gpuplan("infer --model llama3.1-8b --system hgx-h100 --sweep --aggregated-only").exit_code, 0);
  // Without a search of deployments (--sweep, or a target speed with the deployment open) it applies to nothing.
  expect_refused(run_gpuplan("infer --model llama3.1-8b --system hgx-h100 --aggregated-only"),
                 {"--aggregated-only", "--sweep"});
  expect_refused(run_gpuplan("infer --model llama3.1-8b --system hgx-h100 --requests-per-client 2"),
                 {"--requests-per-client", "closed_loop"});
}

TEST(Hardening, ScaleRefusesDuplicateGpuCountsQuickly) {
  std::string list = "8";
  for (int i = 0; i < 5000; ++i) list += ",8";
  expect_refused(run_gpuplan("scale --model llama3.1-8b --system hgx-h100 --mode weak --batch-per-gpu 1 --gpus " + list, 10),
                 {"--gpus", "twice"});
}

}  // namespace hardening
}  // namespace
