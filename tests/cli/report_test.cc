// End-to-end tests of `gpuplan report`: exit codes, and that the page embeds the commands' own --json.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "run_cli.h"

namespace {

std::string read(const std::string& path) {
  std::ifstream f(path);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

// The page's sources block, parsed.
nlohmann::json sources(const std::string& html) {
  const std::string open = "<script type=\"application/json\" id=\"gpuplan-sources\">";
  const auto a = html.find(open);
  if (a == std::string::npos) return nullptr;
  const auto b = html.find("</script>", a);
  return nlohmann::json::parse(html.substr(a + open.size(), b - a - open.size()));
}

TEST(ReportCli, BadInputNamesTheFieldAndExits2) {
  auto r = run_gpuplan("report train --gpus 8");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--out"), std::string::npos) << r.err;
  r = run_gpuplan("report trian --out /tmp/x.html");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("did you mean 'train'"), std::string::npos) << r.err;
  r = run_gpuplan("report train --gpus 0 --out /tmp/gpuplan_report_cli_bad.html");  // the command's own check
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--gpus"), std::string::npos) << r.err;
  r = run_gpuplan("report train --top 0 --out /tmp/gpuplan_report_cli_bad.html");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--top"), std::string::npos) << r.err;
  r = run_gpuplan("report schedule --out /tmp/gpuplan_report_cli_bad.html");  // --cluster is required
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--cluster"), std::string::npos) << r.err;
  r = run_gpuplan("report train --json --out /tmp/gpuplan_report_cli_bad.html");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(run_gpuplan("report --help").exit_code, 0);
  EXPECT_NE(run_gpuplan("report infer --help").out.find("--tpot-ms"), std::string::npos);
}

TEST(ReportCli, TrainEmbedsTheCommandsJson) {
  const std::string out = "/tmp/gpuplan_report_cli_train.html";
  const std::string job = "--model llama3.1-8b --system hgx-h100 --gpus 16 --global-batch 64 --seq 4096 --plan tp=2";
  auto r = run_gpuplan("report train " + job + " --top 2 --scale-gpus 8,16,32 --out " + out);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string html = read(out);
  EXPECT_NE(html.find("data-chart=\"step-breakdown\""), std::string::npos);
  EXPECT_NE(html.find("data-chart=\"scaling-mfu\""), std::string::npos);
  const auto src = sources(html);
  ASSERT_TRUE(src.is_array());
  ASSERT_GE(src.size(), 3u);
  EXPECT_EQ(src[0]["id"], "train");
  EXPECT_EQ(src[0]["doc"], run_gpuplan("train " + job + " --json").json());
  EXPECT_EQ(src[1]["doc"]["top"].size(), 2u);
  EXPECT_EQ(src[2]["doc"]["points"].size(), 3u);
  // Each source's arguments reproduce it.
  for (const auto& s : src) {
    std::string args;
    for (const auto& a : s["args"]) args += " '" + a.get<std::string>() + "'";
    EXPECT_EQ(run_gpuplan(args).json(), s["doc"]) << args;
  }
}

TEST(ReportCli, InferSweepLaddersTheFrontiersBestPlan) {
  const std::string out = "/tmp/gpuplan_report_cli_infer.html";
  auto r = run_gpuplan("report infer --model llama3.1-8b --system hgx-h100 --sweep --tpot-ms 20 --out " + out);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto src = sources(read(out));
  ASSERT_TRUE(src.is_array());
  EXPECT_EQ(src[0]["id"], "sweep");
  EXPECT_EQ(src[0]["doc"]["tpot_limit_s"], 0.02);
  int ladder = 0;
  for (const auto& s : src)
    if (s["id"].get<std::string>().rfind("kv-", 0) == 0) {
      ++ladder;
      EXPECT_EQ(s["doc"]["mode"], "point");
    }
  EXPECT_GE(ladder, 5);
}

TEST(ReportCli, InferSweepLaddersADisaggregatedBestPointAsTheFrontierHasIt) {
  // DeepSeek-R1 on a GB300 NVL72 rack at 50 tokens/s per user: the frontier's best tokens/s per GPU is a
  // disaggregated deployment with MTP; the KV ladder runs that deployment (its pools, drafts), not an
  // aggregated plan on the rack's GPUs (which `infer` rejects).
  const std::string out = "/tmp/gpuplan_report_cli_infer_disagg.html";
  auto r = run_gpuplan("report infer --model deepseek-r1 --system gb300-nvl72 --sweep --tokens-per-user-per-s 50 --out " +
                       out);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto src = sources(read(out));
  ASSERT_TRUE(src.is_array());
  ASSERT_EQ(src[0]["id"], "sweep");
  const nlohmann::json* best = nullptr;
  for (const auto& p : src[0]["doc"]["frontier"])
    if (!best || p["tokens_per_s_per_gpu"].get<double>() > (*best)["tokens_per_s_per_gpu"].get<double>()) best = &p;
  ASSERT_NE(best, nullptr);
  ASSERT_TRUE((*best)["disaggregated"].get<bool>()) << best->dump();
  int ladder = 0;
  for (const auto& s : src)
    if (s["id"].get<std::string>().rfind("kv-", 0) == 0) {
      ++ladder;
      EXPECT_EQ(s["doc"]["mode"], "disaggregated");
      EXPECT_EQ(s["doc"]["prefill_gpus"], (*best)["prefill_gpus"]);
      EXPECT_EQ(s["doc"]["decode_gpus"], (*best)["decode_gpus"]);
      EXPECT_EQ(s["doc"]["mtp_draft_tokens"], (*best)["mtp_draft_tokens"]);
    }
  EXPECT_GE(ladder, 5);
  // The same deployment through `infer` at the frontier point's concurrency gives its figure.
  const auto& pre = (*best)["prefill_parallel"];
  const auto& dec = (*best)["parallel"];
  std::string args = "infer --model deepseek-r1 --system gb300-nvl72 --disagg --prefill-gpus " +
                     (*best)["prefill_gpus"].dump() + " --prefill-tp " + pre["tp"].dump() + " --prefill-ep " +
                     pre["ep"].dump() + " --decode-gpus " + (*best)["decode_gpus"].dump() + " --decode-tp " +
                     dec["tp"].dump() + " --decode-ep " + dec["ep"].dump() + " --mtp " +
                     (*best)["mtp_draft_tokens"].dump() + " --concurrency " + (*best)["concurrency"].dump() + " --json";
  if (pre["attention_dp"].get<bool>()) args += " --prefill-attn-dp";
  if (dec["attention_dp"].get<bool>()) args += " --decode-attn-dp";
  auto point = run_gpuplan(args);
  ASSERT_EQ(point.exit_code, 0) << point.err;
  EXPECT_DOUBLE_EQ(point.json()["tokens_per_s_per_gpu"].get<double>(), (*best)["tokens_per_s_per_gpu"].get<double>());
}

TEST(ReportCli, InferOfADisaggregatedPointSweepsWithoutItsPoolsAndLaddersThem) {
  // The user's disaggregated deployment: the sweep explores deployments itself (no --disagg, which it
  // refuses), the point and the KV ladder keep the pools.
  const std::string out = "/tmp/gpuplan_report_cli_infer_user_disagg.html";
  auto r = run_gpuplan("report infer --model deepseek-r1 --system gb300-nvl72 --disagg --prefill-gpus 8 --decode-gpus 16 "
                       "--decode-ep 16 --out " + out);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto src = sources(read(out));
  ASSERT_TRUE(src.is_array());
  int ladder = 0;
  for (const auto& s : src) {
    const std::string id = s["id"];
    if (id == "sweep") {
      EXPECT_EQ(s["doc"]["mode"], "sweep");
    }
    if (id == "infer") {
      EXPECT_EQ(s["doc"]["mode"], "disaggregated");
    }
    if (id.rfind("kv-", 0) == 0) {
      ++ladder;
      EXPECT_EQ(s["doc"]["mode"], "disaggregated");
      EXPECT_EQ(s["doc"]["decode_gpus"], 16);
    }
  }
  EXPECT_GE(ladder, 5);
  EXPECT_TRUE(read(out).find("prefill 8 GPUs") != std::string::npos);
}

TEST(ReportCli, ScheduleTimelineAveragesToUtilisation) {
  const std::string cluster = std::string(GPUPLAN_SOURCE_DIR) + "/examples/clusters/hgx-h100-256.yaml";
  auto r = run_gpuplan("schedule --cluster " + cluster + " --jobs 300 --policy fifo --timeline 20 --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto res = r.json()["results"][0];
  ASSERT_EQ(res["timeline"]["utilisation"].size(), 20u);
  double mean = 0;
  for (const auto& u : res["timeline"]["utilisation"]) mean += u.get<double>() / 20;
  EXPECT_NEAR(mean, res["utilisation"].get<double>(), 1e-9);
  // Without --timeline the JSON is what it was.
  r = run_gpuplan("schedule --cluster " + cluster + " --jobs 300 --policy fifo --json");
  EXPECT_FALSE(r.json()["results"][0].contains("timeline"));
}

}  // namespace
