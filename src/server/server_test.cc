// The HTTP layer of `gpuplan serve` against a stand-in backend: routing, options from the query and
// the body, the error documents and status codes, the size and time bounds, garbage on the socket.
#include "server/server.h"

#include <gtest/gtest.h>
#include <httplib.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>
#include <arpa/inet.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "core/error.h"
#include "server/evaluator.h"
#include "server/request.h"

namespace gpuplan::server {
namespace {

using nlohmann::json;

Backend stand_in() {
  Backend b;
  b.commands = {{"echo", "returns its options"}, {"fail", "bad input"}, {"slow", "sleeps"}, {"crash", "throws"}};
  b.run = [](std::string_view command, const json& options) -> json {
    if (command == "fail") throw InputError("gpus", "must be 1 to 100000");
    if (command == "crash") throw std::runtime_error("boom");
    if (command == "slow") std::this_thread::sleep_for(std::chrono::milliseconds(1500));
    return {{"schema", "gpuplan.echo/v1"}, {"options", options}, {"fits", !options.contains("huge")}};
  };
  b.report_html = [](std::string_view kind, const json& options) {
    if (options.contains("gpus") && options["gpus"] == "0") throw InputError("gpus", "must be at least 1");
    return "<!doctype html><title>" + std::string(kind) + "</title>";
  };
  b.does_not_fit = [](const json& doc) { return doc.contains("fits") && !doc["fits"].get<bool>(); };
  return b;
}

class ServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Options o;
    o.port = 0;
    o.threads = 4;
    o.timeout_s = 0.3;
    o.io_timeout_s = 2;
    o.max_body_bytes = 4096;
    o.max_query_bytes = 512;
    server_ = std::make_unique<Server>(stand_in(), o);
    port_ = server_->bind();
    thread_ = std::thread([this] { server_->serve(); });
  }
  void TearDown() override {
    server_->stop();
    thread_.join();
    server_.reset();
  }
  httplib::Client client() const {
    httplib::Client c("127.0.0.1", port_);
    c.set_read_timeout(10, 0);
    return c;
  }
  static json body_of(const httplib::Result& r) { return json::parse(r->body); }

  std::unique_ptr<Server> server_;
  std::thread thread_;
  int port_ = 0;
};

TEST_F(ServerTest, PicksAFreePortWhenAskedForZero) { EXPECT_GT(port_, 0); }

TEST_F(ServerTest, ListsTheCommands) {
  auto r = client().Get("/api/v1");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  json doc = body_of(r);
  EXPECT_EQ(doc["schema"], "gpuplan.serve/v1");
  ASSERT_EQ(doc["commands"].size(), 4u);
  EXPECT_EQ(doc["commands"][0]["name"], "echo");
  EXPECT_EQ(doc["commands"][0]["path"], "/api/v1/echo");
}

TEST_F(ServerTest, GetTakesTheQueryAsOptions) {
  auto r = client().Get("/api/v1/echo?model=llama3.1-70b&gpus=8&sweep&model2=a&model2=b&positional=x&positional=y");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->get_header_value("Content-Type"), "application/json");
  json o = body_of(r)["options"];
  EXPECT_EQ(o["model"], "llama3.1-70b");
  EXPECT_EQ(o["gpus"], "8");
  EXPECT_EQ(o["sweep"], "");  // value-less: the API takes it as the flag given (an empty value elsewhere: refused)
  EXPECT_EQ(o["model2"], json({"a", "b"}));
  EXPECT_EQ(o["positional"], json({"x", "y"}));
}

TEST_F(ServerTest, PostTakesAJsonObject) {
  auto r = client().Post("/api/v1/echo", R"({"model": "llama3.1-70b", "gpus": 8, "sweep": true, "m": ["a", "b"]})",
                         "application/json");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  json o = body_of(r)["options"];
  EXPECT_EQ(o["gpus"], 8);
  EXPECT_EQ(o["sweep"], true);
  EXPECT_EQ(o["m"], json({"a", "b"}));
}

TEST_F(ServerTest, BadInputIs400NamingTheField) {
  auto r = client().Get("/api/v1/fail?gpus=0");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 400);
  json doc = body_of(r);
  EXPECT_EQ(doc["schema"], "gpuplan.error/v1");
  EXPECT_EQ(doc["field"], "gpus");
  EXPECT_EQ(doc["exit_code"], 2);
  EXPECT_NE(doc["message"].get<std::string>().find("1 to 100000"), std::string::npos);
}

TEST_F(ServerTest, MalformedBodiesAre400) {
  for (const char* body : {"{not json", "[1, 2]", "42", "\"x\"", "{\"a\": {\"b\": 1}}", "{\"a\": null}", "{\"\": 1}"}) {
    auto r = client().Post("/api/v1/echo", body, "application/json");
    ASSERT_TRUE(r) << body;
    EXPECT_EQ(r->status, 400) << body;
    json doc = body_of(r);
    EXPECT_EQ(doc["schema"], "gpuplan.error/v1") << body;
    EXPECT_FALSE(doc["field"].get<std::string>().empty()) << body;
  }
}

TEST_F(ServerTest, OptionsThatWriteFilesOrChangeTheSessionAre400) {
  for (const char* key : {"out", "write", "write-trace", "write-bands", "output-dir", "catalog", "calibration"}) {
    auto r = client().Get(std::string("/api/v1/echo?") + key + "=x");
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 400) << key;
    EXPECT_EQ(body_of(r)["field"], std::string("--") + key);
  }
  auto r = client().Get("/api/v1/echo?json&model=a");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_FALSE(body_of(r)["options"].contains("json"));
}

TEST_F(ServerTest, UnknownCommandIs404ListingTheCommands) {
  auto r = client().Get("/api/v1/nonesuch");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 404);
  json doc = body_of(r);
  EXPECT_EQ(doc["field"], "command");
  EXPECT_EQ(doc["commands"].size(), 4u);
  EXPECT_NE(doc["message"].get<std::string>().find("echo, fail, slow, crash"), std::string::npos);
  auto p = client().Get("/no/such/page");
  ASSERT_TRUE(p);
  EXPECT_EQ(p->status, 404);
  EXPECT_EQ(body_of(p)["schema"], "gpuplan.error/v1");
}

TEST_F(ServerTest, OversizeBodyAndQueryAre413) {
  auto r = client().Post("/api/v1/echo", "{\"a\": \"" + std::string(8000, 'x') + "\"}", "application/json");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 413);
  EXPECT_EQ(body_of(r)["field"], "body");
  auto q = client().Get("/api/v1/echo?a=" + std::string(600, 'x'));
  ASSERT_TRUE(q);
  EXPECT_EQ(q->status, 413);
  EXPECT_EQ(body_of(q)["field"], "query");
}

TEST_F(ServerTest, WorkPastTheDeadlineIs503AndTheServerStaysUp) {
  auto r = client().Get("/api/v1/slow");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 503);
  EXPECT_NE(body_of(r)["message"].get<std::string>().find("deadline"), std::string::npos);
  auto e = client().Get("/api/v1/echo?a=1");
  ASSERT_TRUE(e);
  EXPECT_EQ(e->status, 200);
}

TEST_F(ServerTest, AnExceptionIs500WithTheDocument) {
  auto r = client().Get("/api/v1/crash");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 500);
  EXPECT_EQ(body_of(r)["message"], "boom");
}

TEST_F(ServerTest, DoesNotFitIsAResultMarkedInAHeader) {
  auto r = client().Get("/api/v1/echo?huge=1");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->get_header_value("X-Gpuplan-Does-Not-Fit"), "true");
}

TEST_F(ServerTest, ReportIsADownload) {
  auto r = client().Get("/report/train?gpus=8");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->get_header_value("Content-Disposition"), "attachment; filename=\"gpuplan-train.html\"");
  EXPECT_NE(r->body.find("<title>train</title>"), std::string::npos);
  auto bad = client().Get("/report/train?gpus=0");
  ASSERT_TRUE(bad);
  EXPECT_EQ(bad->status, 400);
  EXPECT_EQ(body_of(bad)["field"], "gpus");
  auto kind = client().Get("/report/nonesuch");
  ASSERT_TRUE(kind);
  EXPECT_EQ(kind->status, 404);
  EXPECT_EQ(body_of(kind)["field"], "kind");
}

TEST_F(ServerTest, ServesThePagesAndAssets) {
  for (const char* path : {"/", "/compare", "/infer", "/train", "/search", "/recommend", "/site", "/recipes"}) {
    auto r = client().Get(path);
    ASSERT_TRUE(r) << path;
    EXPECT_EQ(r->status, 200) << path;
    EXPECT_EQ(r->get_header_value("Content-Type"), "text/html; charset=utf-8") << path;
    EXPECT_NE(r->body.find("/assets/app.js"), std::string::npos) << path;
  }
  auto js = client().Get("/assets/app.js");
  ASSERT_TRUE(js);
  EXPECT_EQ(js->status, 200);
  auto chart = client().Get("/assets/chart.js");
  ASSERT_TRUE(chart);
  EXPECT_EQ(chart->status, 200);
  EXPECT_GT(chart->body.size(), 100000u);
  EXPECT_NE(client().Get("/")->get_header_value("Content-Security-Policy").find("default-src 'self'"),
            std::string::npos);
}

TEST_F(ServerTest, RefusesAForeignHostHeaderOnLoopback) {
  auto r = client().Get("/api/v1", {{"Host", "evil.example:80"}});
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 403);
  EXPECT_EQ(body_of(r)["field"], "Host");
}

// Writes raw bytes to the server and reads what comes back (until the server closes or 2 s pass).
std::string raw_exchange(int port, const std::string& bytes) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    ::close(fd);
    return "<no connection>";
  }
  timeval tv{2, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  (void)!::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
  ::shutdown(fd, SHUT_WR);
  std::string out;
  char buf[4096];
  for (ssize_t n; (n = ::recv(fd, buf, sizeof buf, 0)) > 0;) out.append(buf, static_cast<size_t>(n));
  ::close(fd);
  return out;
}

TEST_F(ServerTest, GarbageBytesGetAnErrorOrAClosedSocketAndTheServerKeepsAnswering) {
  std::string binary;
  for (int i = 0; i < 3000; ++i) binary += static_cast<char>((i * 7919 + 13) % 256);
  const std::vector<std::string> garbage = {
      binary,
      "GET\r\n\r\n",
      "GET /api/v1 HTTP/9.9\r\n\r\n",
      "POST /api/v1/echo HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: -5\r\n\r\n{}",
      "POST /api/v1/echo HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 99999999999999999999\r\n\r\n{}",
      "POST /api/v1/echo HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
      "GET /" + std::string(20000, 'a') + " HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",
      "GET /api/v1 HTTP/1.1\r\n" + std::string(20000, 'X') + ": y\r\n\r\n",
  };
  std::atomic<bool> done = false;
  std::thread noisy([&] {
    while (!done)
      for (const auto& g : garbage) {
        std::string reply = raw_exchange(port_, g);
        // Nothing or an HTTP status line; never a 2xx for garbage.
        if (!reply.empty()) {
          EXPECT_EQ(reply.rfind("HTTP/1.1 ", 0), 0u) << reply.substr(0, 80);
          EXPECT_NE(reply.substr(9, 1), "2") << g.substr(0, 60) << " -> " << reply.substr(0, 80);
        }
      }
  });
  for (int i = 0; i < 50; ++i) {
    auto r = client().Get("/api/v1/echo?i=" + std::to_string(i));
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 200);
    EXPECT_EQ(body_of(r)["options"]["i"], std::to_string(i));
  }
  done = true;
  noisy.join();
}

TEST_F(ServerTest, AnswersConcurrentClients) {
  std::vector<std::thread> clients;
  std::atomic<int> ok = 0;
  for (int t = 0; t < 8; ++t)
    clients.emplace_back([&, t] {
      httplib::Client c("127.0.0.1", port_);
      for (int i = 0; i < 50; ++i) {
        auto r = c.Get("/api/v1/echo?t=" + std::to_string(t) + "&i=" + std::to_string(i));
        if (r && (r->status == 200 || r->status == 503)) ++ok;
        if (r && r->status == 200 && body_of(r)["options"]["i"] != std::to_string(i)) --ok;
      }
    });
  for (auto& c : clients) c.join();
  EXPECT_EQ(ok.load(), 400);
}

TEST(ServerOptions, OutOfRangeNamesTheField) {
  auto field_of = [](Options o) {
    try {
      check_options(o);
    } catch (const InputError& e) {
      return e.field();
    }
    return std::string();
  };
  Options o;
  EXPECT_EQ(field_of(o), "");
  o.port = 70000;
  EXPECT_EQ(field_of(o), "--port");
  o = {};
  o.threads = 0;
  EXPECT_EQ(field_of(o), "--threads");
  o = {};
  o.timeout_s = 0;
  EXPECT_EQ(field_of(o), "--timeout-s");
  o.timeout_s = std::nan("");
  EXPECT_EQ(field_of(o), "--timeout-s");
  o = {};
  o.host = "";
  EXPECT_EQ(field_of(o), "--host");
}

TEST(ServerOptions, ABusyPortNamesThePort) {
  Options o;
  o.port = 0;
  Server first(stand_in(), o);
  o.port = first.bind();
  Server second(stand_in(), o);
  try {
    second.bind();
    FAIL() << "bound a port in use";
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "--port");
  }
}

TEST(Loopback, Names) {  // more in hardening_test.cc
  EXPECT_TRUE(is_loopback_host("127.0.0.1"));
  EXPECT_TRUE(is_loopback_host("localhost"));
  EXPECT_TRUE(is_loopback_host("::1"));
  EXPECT_FALSE(is_loopback_host("0.0.0.0"));
  EXPECT_FALSE(is_loopback_host("evil.example"));
}

TEST(Request, QueryFlagsArraysAndStrings) {
  json o = options_from_query({{"sweep", ""}, {"a", "true"}, {"b", "false"}, {"m", "x"}, {"m", "y"}, {"g", "8"}});
  EXPECT_EQ(o["sweep"], "");  // value-less: a flag given where the option is one, refused where it takes a value
  EXPECT_EQ(o["a"], true);
  EXPECT_EQ(o["b"], false);
  EXPECT_EQ(o["m"], json({"x", "y"}));
  EXPECT_EQ(o["g"], "8");
  EXPECT_THROW(options_from_query({{"", "x"}}), InputError);
  try {
    options_from_query({{"sweep", ""}, {"sweep", ""}});
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "sweep");
  }
}

TEST(Request, CommandLineReproducesTheOptions) {
  json o = {{"model", "llama3.1-70b"}, {"sweep", true}, {"quiet", false}, {"gpus", 8}, {"m", {"a", "b c"}},
            {"positional", {"gb300-nvl72", "hgx-h200"}}};
  EXPECT_EQ(command_line("infer", o),
            "gpuplan infer gb300-nvl72 hgx-h200 --gpus 8 --m a --m 'b c' --model llama3.1-70b --sweep --json");
  // A value-less query parameter ("?sweep="), as the pages send a flag.
  EXPECT_EQ(command_line("infer", options_from_query({{"model", "llama3.1-70b"}, {"sweep", ""}})),
            "gpuplan infer --model llama3.1-70b --sweep --json");
}

TEST(EvaluatorTest, BusyWhenFull) {
  Evaluator e(1, std::chrono::milliseconds(50));
  Reply r;
  EXPECT_EQ(e.run([] { std::this_thread::sleep_for(std::chrono::milliseconds(300)); return Reply{}; }, r),
            Evaluator::Outcome::timed_out);
  EXPECT_EQ(e.running(), 1u);
  EXPECT_EQ(e.run([] { return Reply{}; }, r), Evaluator::Outcome::busy);
  std::this_thread::sleep_for(std::chrono::milliseconds(400));
  EXPECT_EQ(e.run([] { Reply x; x.body = "ok"; return x; }, r), Evaluator::Outcome::done);
  EXPECT_EQ(r.body, "ok");
}

}  // namespace
}  // namespace gpuplan::server
