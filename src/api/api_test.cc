// The API's contract: run() answers with the document the CLI prints with --json for the same options
// (one parser, one builder); bad input is an InputError naming the option; one Session serves many
// threads; does_not_fit() reads the documents that report a shortfall.
#include "api/api.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <thread>
#include <unistd.h>

#include "api/compare.h"
#include "api/cost.h"
#include "api/output.h"
#include "api/search.h"
#include "api/validate.h"
#include "core/error.h"
#include "inference/speculative.h"
#include "physics/hardware.h"
#include "run_cli.h"

namespace gpuplan::api {
namespace {

using nlohmann::json;

const Session& session() {
  static const Session s;
  return s;
}

// The default engine's MTP acceptance in a session's catalog.
double catalog_default_accept(const Session& s) {
  return s.catalog().default_serving_engine().mtp_accept.value_or(0.0);
}

std::string field_of(std::string_view command, const json& options) {
  try {
    run(session(), command, options);
  } catch (const InputError& e) {
    return e.field();
  }
  return "(no error)";
}

struct Case {
  const char* cli;  // the command line after `gpuplan`, without --json
  const char* command;
  const char* options;  // run()'s options as JSON text
};

// One case per command and mode: the same options through the CLI and through run().
const Case kCases[] = {
    {"infer --model llama3.1-8b --system hgx-h100 --tp 1 --concurrency 64", "infer",
     R"({"model": "llama3.1-8b", "system": "hgx-h100", "tp": 1, "concurrency": 64})"},
    {"infer --model llama3.1-70b --system hgx-h200 --sweep --isl 1024 --osl 256", "infer",
     R"({"model": "llama3.1-70b", "system": "hgx-h200", "sweep": true, "isl": 1024, "osl": 256})"},
    {"infer --model deepseek-r1 --system gb200-nvl72 --disagg --prefill-tp 8 --decode-tp 16 --concurrency 256",
     "infer",
     R"({"model": "deepseek-r1", "system": "gb200-nvl72", "disagg": true, "prefill_tp": 8, "decode-tp": 16,
         "--concurrency": 256})"},
    {"train --model llama3.1-8b --system hgx-h100 --gpus 8 --global-batch 32 --plan tp=1,pp=1", "train",
     R"({"model": "llama3.1-8b", "system": "hgx-h100", "gpus": 8, "global-batch": 32, "plan": "tp=1,pp=1"})"},
    {"train --model llama3.1-70b --system hgx-h100 --gpus 8 --global-batch 8 --plan tp=1", "train",
     R"({"model": "llama3.1-70b", "system": "hgx-h100", "gpus": 8, "global-batch": 8, "plan": "tp=1"})"},
    {"search --model llama3.1-8b --system hgx-h100 --gpus 16 --global-batch 64 --top 3", "search",
     R"({"model": "llama3.1-8b", "system": "hgx-h100", "gpus": 16, "global_batch": 64, "top": 3})"},
    {"compare gb200-nvl72 hgx-h100 --model llama3.1-8b", "compare",
     R"({"positional": ["gb200-nvl72", "hgx-h100"], "model": "llama3.1-8b"})"},
    {"recommend --model llama3.1-8b --task infer --users 16 --system hgx-h100", "recommend",
     R"({"model": "llama3.1-8b", "task": "infer", "users": 16, "system": ["hgx-h100"]})"},
    {"cost --system hgx-h100 --system gb200-nvl72", "cost", R"({"system": ["hgx-h100", "gb200-nvl72"]})"},
    {"site --power-mw 13", "site", R"({"power-mw": 13})"},
    {"validate --dataset " GPUPLAN_SOURCE_DIR "/tests/cli/data/training-5-rows.csv", "validate",
     R"({"dataset": ")" GPUPLAN_SOURCE_DIR R"(/tests/cli/data/training-5-rows.csv"})"},
    {"schedule --cluster " GPUPLAN_SOURCE_DIR "/examples/clusters/hgx-h100-256.yaml --jobs 200", "schedule",
     R"({"cluster": ")" GPUPLAN_SOURCE_DIR R"(/examples/clusters/hgx-h100-256.yaml", "jobs": 200})"},
    {"memory --model llama3-70b --gpu h100-sxm --inference --tp 1 --concurrency 1", "memory",
     R"({"model": "llama3-70b", "gpu": "h100-sxm", "inference": true, "tp": 1, "concurrency": 1})"},
    {"scale --model llama3.1-8b --system hgx-h100 --mode weak --batch-per-gpu 1 --gpus 8,16", "scale",
     R"({"model": "llama3.1-8b", "system": "hgx-h100", "mode": "weak", "batch_per_gpu": 1, "gpus": "8,16"})"},
    {"fabric --system hgx-h200 --gpus 4096 --oversubscription 3:1", "fabric",
     R"({"system": "hgx-h200", "gpus": 4096, "oversubscription": "3:1"})"},
    {"catalog list systems", "catalog", R"({"positional": ["list", "systems"]})"},
    {"catalog show h100-sxm", "catalog", R"({"positional": ["show", "h100-sxm"]})"},
    {"model list", "model", R"({"positional": ["list"]})"},
    {"model show llama3.1-70b --seq 8192", "model", R"({"positional": ["show", "llama3.1-70b"], "seq": 8192})"},
    {"goodput --system hgx-h100 --gpus 1024 --model llama3.1-70b --compare gb200-nvl72", "goodput",
     R"({"system": "hgx-h100", "gpus": 1024, "model": "llama3.1-70b", "compare": "gb200-nvl72"})"},
};

TEST(Api, RunGivesTheDocumentTheCliPrintsWithJson) {
  for (const Case& c : kCases) {
    const CliResult cli = run_gpuplan(std::string(c.cli) + " --json");
    ASSERT_TRUE(cli.exit_code == 0 || cli.exit_code == 3) << c.cli << "\n" << cli.err;
    const json doc = run(session(), c.command, json::parse(c.options));
    EXPECT_EQ(doc, cli.json()) << c.cli;
    EXPECT_EQ(does_not_fit(doc), cli.exit_code == 3) << c.cli;
  }
}

TEST(Api, EveryCommandIsListedOnceWithItsHelp) {
  std::vector<std::string> names;
  for (const auto& c : commands()) {
    EXPECT_FALSE(c.help.empty()) << c.name;
    EXPECT_EQ(std::count(names.begin(), names.end(), c.name), 0) << c.name;
    names.push_back(c.name);
  }
  for (const char* n : {"infer", "train", "search", "compare", "goodput", "recommend", "cost", "site", "schedule",
                        "validate", "catalog", "model", "memory", "scale", "fabric"})
    EXPECT_NE(std::find(names.begin(), names.end(), n), names.end()) << n;
}

// The CLI's help table is built from commands(): every command the API answers is listed in
// `gpuplan --help` with the same one-line help, and the CLI runs it.
TEST(Api, CliHelpListsEveryCommandWithItsHelp) {
  const CliResult help = run_gpuplan("--help");
  ASSERT_EQ(help.exit_code, 0) << help.err;
  for (const auto& c : commands()) {
    std::string row = "  " + c.name;
    row.resize(std::max<size_t>(row.size(), 12), ' ');
    EXPECT_NE(help.out.find(row + " " + c.help + "\n"), std::string::npos) << c.name << "\n" << help.out;
    EXPECT_EQ(run_gpuplan(c.name + " --help").exit_code, 0) << c.name;
  }
}

// A catalog overlay's default serving engine sets the MTP acceptance of every command that builds a
// serving workload from the session's catalog, not only `infer --engine`.
TEST(Api, OverlayDefaultEngineMtpAcceptanceReachesInferAndCompare) {
  const auto dir = std::filesystem::temp_directory_path() / ("gpuplan_api_mtp_" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  {
    std::ofstream f(dir / "serving_engines.yaml");
    f << "serving_engines:\n  - name: default\n    request_overhead_s: 0\n    mtp_accept: 0.9\n";
  }
  const Session over({dir.string()});
  std::filesystem::remove_all(dir);
  const double builtin = catalog_default_accept(session());
  ASSERT_GT(builtin, 0);
  ASSERT_LT(builtin, 0.85);  // the overlay's 0.9 is a different figure

  const json point = {{"model", "deepseek-r1"}, {"system", "hgx-h200"}, {"tp", 8}, {"concurrency", 64}, {"mtp", 3}};
  const json p0 = run(session(), "infer", point), p1 = run(over, "infer", point);
  EXPECT_NEAR(p0["tokens_per_step"].get<double>(), mtp_accepted_length(3, builtin), 1e-9);
  EXPECT_NEAR(p1["tokens_per_step"].get<double>(), mtp_accepted_length(3, 0.9), 1e-9);
  EXPECT_GT(p1["tokens_per_s_per_user"].get<double>(), p0["tokens_per_s_per_user"].get<double>());

  // compare's MoE frontiers include MTP deployments: their fastest point per user moves up the same way.
  const json cmp = {{"positional", {"gb200-nvl72", "hgx-h200"}}, {"model", "deepseek-r1"}, {"task", "infer"}};
  const auto fastest = [](const json& doc) {
    double best = 0;
    for (const auto& p : doc["models"][0]["inference"]["frontier_a"])
      best = std::max(best, p["tokens_per_s_per_user"].get<double>());
    return best;
  };
  const json c0 = run(session(), "compare", cmp), c1 = run(over, "compare", cmp);
  EXPECT_GT(fastest(c1), fastest(c0) * 1.05);

  // compare --claim replays a claim's serving sweeps (MTP deployments among them) with the session's
  // acceptance too: DeepSeek-R1's tokens/s per GPU at 50 tokens/s per user does not fall on either
  // side and rises where an MTP deployment serves it.
  const json claim = {{"claim", "gb200-15x-inferencemax"}};
  const json r0 = run(session(), "compare", claim), r1 = run(over, "compare", claim);
  ASSERT_TRUE(r0["claims"][0]["evaluated"].get<bool>()) << r0.dump();
  ASSERT_TRUE(r1["claims"][0]["evaluated"].get<bool>()) << r1.dump();
  double gain = 0;
  for (const char* side : {"a", "b"}) {
    const double before = r0["claims"][0][side].get<double>(), after = r1["claims"][0][side].get<double>();
    EXPECT_GE(after, before * (1 - 1e-9)) << side;
    gain = std::max(gain, after / before);
  }
  EXPECT_GT(gain, 1.02) << r0["claims"][0].dump() << "\n" << r1["claims"][0].dump();
}

// A command's text (the CLI's output without --json) goes to the request's output stream, never to
// std::cout: a face that runs a command with text output (a test, an embedding program) gets it.
TEST(Api, TextOutputGoesToTheRequestsStreamNotStdout) {
  const Catalog& catalog = session().catalog();
  auto text_of = [](auto&& command) {
    std::ostringstream text, leaked;
    std::streambuf* const cout_buf = std::cout.rdbuf(leaked.rdbuf());
    Output out;
    out.text = &text;
    try {
      command(out);
    } catch (...) {
      std::cout.rdbuf(cout_buf);
      throw;
    }
    std::cout.rdbuf(cout_buf);
    EXPECT_EQ(leaked.str(), "");
    EXPECT_TRUE(out.doc.is_null());  // text asked for: no document
    return text.str();
  };
  CostRequest cost_req;
  cost_req.systems = {"hgx-h100"};
  EXPECT_NE(text_of([&](Output& o) { cost(catalog, cost_req, o); }).find("hgx-h100"), std::string::npos);
  SearchRequest search_req;
  search_req.model = "llama3.1-8b";
  search_req.system = "hgx-h100";
  search_req.gpus = 8;
  search_req.global_batch = 32;
  search_req.top = 2;
  EXPECT_NE(text_of([&](Output& o) { search(catalog, search_req, o); }).find("#2"), std::string::npos);
  ValidateRequest validate_req;
  validate_req.dataset = GPUPLAN_SOURCE_DIR "/tests/cli/data/training-5-rows.csv";
  EXPECT_NE(text_of([&](Output& o) { validate(catalog, validate_req, o); }).find("median APE"), std::string::npos);
  CompareRequest compare_req;
  compare_req.claims = {"h200-1.9x-llama70b"};
  EXPECT_NE(text_of([&](Output& o) { compare(catalog, compare_req, o); }).find("h200-1.9x-llama70b: "),
            std::string::npos);
}

// The session resolves each system once, as resolve_hardware() does; other spellings resolve per call
// to the same hardware, so the documents agree.
TEST(Api, SessionResolvesEachSystemOnceAsResolveHardwareDoes) {
  const Hardware* h = session().hardware("hgx-h200");
  ASSERT_NE(h, nullptr);
  const Hardware r = resolve_hardware(session().catalog(), "hgx-h200");
  EXPECT_EQ(h->system_name, r.system_name);
  EXPECT_EQ(h->accelerator.name, r.accelerator.name);
  EXPECT_EQ(h->fabric.domain_gpus, r.fabric.domain_gpus);
  EXPECT_EQ(h->fabric.scaleup_latency_s, r.fabric.scaleup_latency_s);
  EXPECT_EQ(session().hardware("HGX-H200"), nullptr);  // not the catalog's spelling
  EXPECT_EQ(session().hardware("no-such-system"), nullptr);
  const json a = run(session(), "infer", {{"model", "llama3.1-8b"}, {"system", "hgx-h200"}});
  const json b = run(session(), "infer", {{"model", "llama3.1-8b"}, {"system", "HGX-H200"}});
  EXPECT_EQ(a, b);
}

TEST(Api, BadInputNamesTheOption) {
  EXPECT_EQ(field_of("infer", {{"isl", 0}}), "--isl");                 // the command's own range check
  EXPECT_EQ(field_of("infer", {{"isl", "many"}}), "--isl");            // CLI11's conversion
  EXPECT_EQ(field_of("infer", {{"isl", {1, 2}}}), "--isl");            // one value expected
  EXPECT_EQ(field_of("infer", {{"model", "no-such-model"}}), "--model");
  EXPECT_EQ(field_of("infer", {{"islx", 8}}), "--islx");               // unknown option
  EXPECT_EQ(field_of("infer", {{"sweep", "yes"}}), "--sweep");         // a flag takes true or false
  EXPECT_EQ(field_of("infer", {{"catalog", "dir"}}), "--catalog");     // a Session setting
  EXPECT_EQ(field_of("infer", json::array({1})), "options");
  EXPECT_EQ(field_of("search", {{"model", "llama3.1-8b"}}), "--system");  // a required option missing
  EXPECT_EQ(field_of("no-such-command", json::object()), "command");
}

TEST(Api, ASessionServesManyThreadsWithTheSameAnswers) {
  const json options = json::parse(kCases[0].options);
  const json expected = run(session(), "infer", options);
  std::vector<json> got(8);
  std::vector<std::thread> threads;
  for (size_t i = 0; i < got.size(); ++i)
    threads.emplace_back([&, i] {
      for (int k = 0; k < 20; ++k) got[i] = run(session(), k % 2 ? "infer" : "train", k % 2 ? options : json::object());
      got[i] = run(session(), "infer", options);
    });
  for (auto& t : threads) t.join();
  for (const auto& g : got) EXPECT_EQ(g, expected);
}

TEST(Api, ReportHtmlIsThePageOfTheCommandsDocuments) {
  const json options = {{"model", "llama3.1-8b"}, {"system", "hgx-h100"}, {"tp", 1}, {"concurrency", 32}};
  const std::string html = report_html(session(), "infer", options);
  EXPECT_NE(html.find("<html"), std::string::npos);
  // The page embeds the point's document: its throughput, as run() computes it, appears in the page.
  const json doc = run(session(), "infer", options);
  EXPECT_NE(html.find(doc["tokens_per_s_per_gpu"].dump()), std::string::npos);
  try {
    report_html(session(), "nope", options);
    ADD_FAILURE() << "an unknown kind is refused";
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "KIND");
  }
  try {
    report_html(session(), "infer", {{"isl", 0}});
    ADD_FAILURE() << "a bad option is refused";
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "--isl");
  }
}

TEST(Api, DoesNotFitReadsTheShortfall) {
  EXPECT_FALSE(does_not_fit(json::object()));
  EXPECT_FALSE(does_not_fit(json::array()));
  EXPECT_TRUE(does_not_fit({{"schema", "gpuplan.train/v1"}, {"fits", false}}));
  EXPECT_FALSE(does_not_fit({{"schema", "gpuplan.train/v1"}, {"fits", true}}));
  EXPECT_TRUE(does_not_fit({{"schema", "gpuplan.memory/v1"}, {"fits", false}}));
  EXPECT_FALSE(does_not_fit({{"schema", "gpuplan.memory/v1"}, {"fits", nullptr}}));  // capacity unknown
  EXPECT_TRUE(does_not_fit({{"schema", "gpuplan.search/v1"}, {"top", nlohmann::json::array()}}));
  EXPECT_FALSE(does_not_fit({{"schema", "gpuplan.search/v1"}, {"top", {{{"rank", 1}}}}}));
  EXPECT_TRUE(does_not_fit({{"schema", "gpuplan.scale/v1"}, {"points", {{{"found", false}}, {{"found", false}}}}}));
  EXPECT_FALSE(does_not_fit({{"schema", "gpuplan.scale/v1"}, {"points", {{{"found", false}}, {{"found", true}}}}}));
  EXPECT_TRUE(does_not_fit({{"schema", "gpuplan.goodput/v1"}, {"systems", {{{"fits", true}}, {{"fits", false}}}}}));
  EXPECT_FALSE(does_not_fit({{"schema", "gpuplan.goodput/v1"}, {"systems", {{{"fits", true}}}}}));
}

}  // namespace
}  // namespace gpuplan::api
