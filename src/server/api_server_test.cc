// `gpuplan serve` over the real API (src/api) on an ephemeral port: each endpoint answers with exactly
// the document api::run gives for the same options, GET and POST alike; bad input is 400 naming the
// option; the report downloads; concurrent clients get the same documents.
#include <gtest/gtest.h>
#include <httplib.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "api/api.h"
#include "core/error.h"
#include "server/api_backend.h"
#include "server/server.h"

namespace gpuplan::server {
namespace {

using nlohmann::json;

class ApiServerTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    session_ = new api::Session();
    Options o;
    o.port = 0;
    o.threads = 8;
    o.data_dirs = {GPUPLAN_SHARED_DATA_DIR, GPUPLAN_SOURCE_DIR "/examples"};
    server_ = new Server(api_backend(*session_), o);
    port_ = server_->bind();
    thread_ = new std::thread([] { server_->serve(); });
  }
  static void TearDownTestSuite() {
    server_->stop();
    thread_->join();
    delete thread_;
    delete server_;
    delete session_;
  }
  static httplib::Client client() {
    httplib::Client c("127.0.0.1", port_);
    c.set_read_timeout(60, 0);
    return c;
  }
  // GET path?query; the status and the parsed body.
  static std::pair<int, json> get(const std::string& target) {
    auto r = client().Get(target);
    if (!r) return {0, json()};
    return {r->status, json::parse(r->body, nullptr, false)};
  }

  static api::Session* session_;
  static Server* server_;
  static std::thread* thread_;
  static int port_;
};
api::Session* ApiServerTest::session_ = nullptr;
Server* ApiServerTest::server_ = nullptr;
std::thread* ApiServerTest::thread_ = nullptr;
int ApiServerTest::port_ = 0;

TEST_F(ApiServerTest, ListsTheApisCommandsButTheMachineOnes) {
  auto [status, doc] = get("/api/v1");
  ASSERT_EQ(status, 200);
  std::set<std::string> names;
  for (const auto& c : doc["commands"]) names.insert(c["name"]);
  for (const char* c : {"compare", "infer", "train", "search", "recommend", "site", "cost", "catalog", "model"})
    EXPECT_TRUE(names.contains(c)) << c;
  for (const char* c : {"doctor", "probe", "export", "report"}) EXPECT_FALSE(names.contains(c)) << c;
  for (const auto& c : api::commands()) EXPECT_EQ(names.contains(c.name), served_over_http(c.name)) << c.name;
}

// Each endpoint: the query's options give api::run's document for the same options.
TEST_F(ApiServerTest, EachEndpointAnswersTheApisDocument) {
  const std::vector<std::pair<std::string, json>> cases = {
      {"infer", {{"model", "llama3.1-70b"}, {"system", "hgx-h200"}, {"gpus", "8"}}},
      {"infer", {{"model", "llama3.1-70b"}, {"system", "hgx-h200"}, {"gpus", "8"}, {"sweep", true}}},
      {"compare", {{"positional", {"gb300-nvl72", "hgx-h200"}}, {"model", "llama3.1-70b"}}},
      {"train", {{"model", "llama3.1-70b"}, {"system", "hgx-h100"}, {"gpus", "64"}, {"global-batch", "128"},
                 {"seq", "8192"}, {"precision", "fp8"}, {"plan", "tp=4,pp=4,vp=5,cp=2"}}},
      {"search", {{"model", "llama3.1-70b"}, {"system", "hgx-h100"}, {"gpus", "64"}, {"global-batch", "128"},
                  {"seq", "8192"}}},
      {"recommend", {{"model", "llama3.1-70b"}, {"task", "infer"}, {"users", "256"}, {"tpot-ms", "30"}}},
      {"site", {{"power-mw", "10"}}},
      {"cost", {{"system", "hgx-h100"}, {"model", "gpt3-175b"}, {"gpus", "128"}, {"precision", "fp8"},
                {"seq", "2048"}, {"tokens", "300e9"}}},
      {"catalog", {{"positional", {"list"}}}},
      {"model", {{"positional", {"list"}}}},
  };
  for (const auto& [command, options] : cases) {
    httplib::Params params;
    for (const auto& [k, v] : options.items())
      for (const auto& x : (v.is_array() ? v : json::array({v})))
        params.emplace(k, x.is_boolean() ? std::string() : x.get<std::string>());
    auto r = client().Get("/api/v1/" + command + "?" + httplib::detail::params_to_query_str(params));
    ASSERT_TRUE(r) << command;
    ASSERT_EQ(r->status, 200) << command << " " << options.dump() << ": " << r->body.substr(0, 300);
    EXPECT_EQ(r->get_header_value("Content-Type"), "application/json");
    json doc = json::parse(r->body);
    EXPECT_EQ(doc["schema"], "gpuplan." + command + "/v1") << command;
    EXPECT_EQ(doc, api::run(*session_, command, options)) << command << " " << options.dump();
    EXPECT_EQ(r->get_header_value("X-Gpuplan-Command").rfind("gpuplan " + command + " ", 0), 0u);
  }
}

// The size page and its endpoint: the page is the app shell with its script; the query the page sends
// (systems repeated, --sensitivity as an empty value) answers api::run's document for the same options,
// which the CLI prints for `gpuplan size ... --json` (tests/python/test_size_faces.py runs all three).
TEST_F(ApiServerTest, SizePageAndEndpoint) {
  auto page = client().Get("/size");
  ASSERT_TRUE(page);
  ASSERT_EQ(page->status, 200);
  EXPECT_NE(page->body.find("/assets/size.js"), std::string::npos);
  auto script = client().Get("/assets/size.js");
  ASSERT_TRUE(script);
  ASSERT_EQ(script->status, 200);
  EXPECT_NE(script->body.find("PAGES.size"), std::string::npos);
  auto [status, doc] = get("/api/v1/size?model=llama3.1-8b&requests-per-s=5&isl=1024&osl=256&systems=hgx-h100&"
                           "systems=hgx-h200&draws=50&tokens-per-user-per-s=20&sensitivity=");
  ASSERT_EQ(status, 200) << doc.dump().substr(0, 300);
  EXPECT_EQ(doc["schema"], "gpuplan.size/v1");
  ASSERT_EQ(doc["options"].size(), 2u);
  for (const auto& o : doc["options"]) {
    EXPECT_GE(o["units"].get<double>(), 1);
    EXPECT_TRUE(o["sensitivity"].is_array() && !o["sensitivity"].empty()) << o.dump();
  }
  const json expected = api::run(*session_, "size",
                                 {{"model", "llama3.1-8b"}, {"requests-per-s", "5"}, {"isl", "1024"}, {"osl", "256"},
                                  {"systems", {"hgx-h100", "hgx-h200"}}, {"draws", "50"},
                                  {"tokens-per-user-per-s", "20"}, {"sensitivity", true}});
  EXPECT_EQ(doc, expected);
  auto [bad, err] = get("/api/v1/size?model=llama3.1-8b&requests-per-s=5&confidence=2");
  EXPECT_EQ(bad, 400);
  EXPECT_NE(err["field"].get<std::string>().find("confidence"), std::string::npos) << err.dump();
}

TEST_F(ApiServerTest, PostEqualsGet) {
  json options = {{"model", "llama3.1-70b"}, {"system", "hgx-h200"}, {"gpus", 8}, {"isl", 2048}};
  auto post = client().Post("/api/v1/infer", options.dump(), "application/json");
  ASSERT_TRUE(post);
  ASSERT_EQ(post->status, 200) << post->body;
  auto [status, doc] = get("/api/v1/infer?model=llama3.1-70b&system=hgx-h200&gpus=8&isl=2048");
  ASSERT_EQ(status, 200);
  EXPECT_EQ(json::parse(post->body), doc);
}

TEST_F(ApiServerTest, BadInputIs400NamingTheOption) {
  for (const auto& [target, field] : std::vector<std::pair<std::string, std::string>>{
           {"/api/v1/infer?model=llama3.1-70b&gpus=-3", "gpus"},
           {"/api/v1/infer?model=no-such-model", "model"},
           {"/api/v1/infer?system=no-such-system", "system"},
           {"/api/v1/train?model=llama3.1-70b&system=hgx-h100&gpus=64&seq=0", "seq"},
           {"/api/v1/infer?no-such-option=1", "no-such-option"},
           {"/api/v1/infer?out=x.html", "out"},
       }) {
    auto [status, doc] = get(target);
    EXPECT_EQ(status, 400) << target << " " << doc.dump();
    EXPECT_EQ(doc["schema"], "gpuplan.error/v1") << target;
    EXPECT_NE(doc["field"].get<std::string>().find(field), std::string::npos) << target << " " << doc.dump();
  }
  // An empty value is no value: 400 naming the parameter, not the option run on "true".
  for (const auto& [target, field] : std::vector<std::pair<std::string, std::string>>{
           {"/api/v1/train?model=", "model"},
           {"/api/v1/train?model=llama3.1-8b&system=hgx-h100&gpus=", "gpus"},
       }) {
    auto [status, doc] = get(target);
    EXPECT_EQ(status, 400) << target << " " << doc.dump();
    EXPECT_NE(doc["field"].get<std::string>().find(field), std::string::npos) << target << " " << doc.dump();
    EXPECT_NE(doc.dump().find("must not be empty"), std::string::npos) << target << " " << doc.dump();
    EXPECT_EQ(doc.dump().find("true"), std::string::npos) << target << " " << doc.dump();
  }
  // A value-less flag is the flag given, as the pages send it.
  auto [flag_status, flag_doc] = get("/api/v1/infer?model=llama3.1-70b&system=hgx-h200&gpus=8&sweep=");
  EXPECT_EQ(flag_status, 200) << flag_doc.dump().substr(0, 300);
  auto [status, doc] = get("/api/v1/nonesuch");
  EXPECT_EQ(status, 404);
  EXPECT_GT(doc["commands"].size(), 5u);
}

TEST_F(ApiServerTest, FilesAreReadOnlyUnderTheDataDirectoriesAndNeverEchoed) {
  // Under a data directory, by a path relative to it: read.
  auto [ok, doc] = get("/api/v1/schedule?cluster=clusters/hgx-h100-256.yaml&trace=generated&jobs=20");
  EXPECT_EQ(ok, 200) << doc.dump();
  const auto t0 = std::chrono::steady_clock::now();
  for (const char* target :
       {"/api/v1/validate?dataset=/dev/zero", "/api/v1/validate?dataset=/dev/stdin",
        "/api/v1/validate?dataset=/etc/passwd", "/api/v1/schedule?cluster=/etc/passwd&trace=generated",
        "/api/v1/schedule?cluster=clusters/hgx-h100-256.yaml&trace=/etc/passwd",
        "/api/v1/schedule?cluster=clusters/../../../../../../etc/passwd&trace=generated",
        "/api/v1/train?model=/etc/passwd.json&system=hgx-h100&gpus=8", "/api/v1/compare?claim=/etc/passwd",
        "/api/v1/site?power-mw=1&site=/etc/passwd", "/api/v1/cost?system=hgx-h100&cost-profile=/etc/passwd"}) {
    auto r = client().Get(target);
    ASSERT_TRUE(r) << target;
    EXPECT_EQ(r->status, 400) << target << " " << r->body;
    EXPECT_EQ(r->body.find("root:"), std::string::npos) << target << " " << r->body;
    EXPECT_EQ(r->body.find("/bin/"), std::string::npos) << target << " " << r->body;
  }
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 10.0);
}

TEST_F(ApiServerTest, ReportDownloads) {
  try {
    api::report_html(*session_, "infer", {{"model", "llama3.1-70b"}});
  } catch (const InputError& e) {
    if (e.field() == "kind") GTEST_SKIP() << "api::report_html does not serve reports yet: " << e.what();
  }
  auto r = client().Get("/report/infer?model=llama3.1-70b&system=hgx-h200&tp=2&gpus=8&ttft-ms=2000&tpot-ms=40");
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body.substr(0, 300);
  EXPECT_EQ(r->get_header_value("Content-Disposition"), "attachment; filename=\"gpuplan-infer.html\"");
  EXPECT_NE(r->body.find("<html"), std::string::npos);
}

TEST_F(ApiServerTest, ConcurrentClientsGetTheSameDocuments) {
  const json expected = api::run(*session_, "infer", {{"model", "llama3.1-70b"}, {"system", "hgx-h200"}, {"gpus", "8"}});
  std::atomic<int> same = 0;
  std::vector<std::thread> clients;
  for (int t = 0; t < 8; ++t)
    clients.emplace_back([&] {
      httplib::Client c("127.0.0.1", port_);
      c.set_read_timeout(60, 0);
      for (int i = 0; i < 10; ++i) {
        // A 503 (all evaluation slots busy, or past the deadline on a loaded machine) says "try again
        // shortly": a client does, as the server asks; the documents must still be the same.
        auto r = c.Get("/api/v1/infer?model=llama3.1-70b&system=hgx-h200&gpus=8");
        for (int retry = 0; retry < 50 && r && r->status == 503; ++retry) {
          std::this_thread::sleep_for(std::chrono::milliseconds(100));
          r = c.Get("/api/v1/infer?model=llama3.1-70b&system=hgx-h200&gpus=8");
        }
        if (r && r->status == 200 && json::parse(r->body) == expected) ++same;
      }
    });
  for (auto& c : clients) c.join();
  EXPECT_EQ(same.load(), 80);
}

}  // namespace
}  // namespace gpuplan::server
