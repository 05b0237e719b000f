// `gpuplan serve` against hostile and heavy clients: any bytes in a request, rebound Host names,
// pages of other origins, the token, files named in options, slow and many clients, stopping.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>
#include <vector>

#include "core/error.h"
#include "core/input_file.h"
#include "server/access.h"
#include "server/server.h"

namespace gpuplan::server::hardening {
namespace {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

const std::string kData = "/tmp/gpuplan_server_hardening/data";

Backend stand_in() {
  Backend b;
  b.commands = {{"echo", "returns its options"}, {"read", "reads the file `path`"}, {"slow", "sleeps"}};
  b.run = [](std::string_view command, const json& options) -> json {
    if (command == "slow") std::this_thread::sleep_for(std::chrono::milliseconds(1500));
    if (command == "read") {
      const std::string text = read_input_file(options.value("path", ""), "--dataset");
      return {{"schema", "gpuplan.read/v1"}, {"bytes", text.size()}};
    }
    return {{"schema", "gpuplan.echo/v1"}, {"options", options}};
  };
  b.report_html = [](std::string_view kind, const json&) { return "<title>" + std::string(kind) + "</title>"; };
  return b;
}

class Running {
 public:
  explicit Running(Options o) {
    o.port = 0;
    server_ = std::make_unique<Server>(stand_in(), o);
    port_ = server_->bind();
    thread_ = std::thread([this] { server_->serve(); });
  }
  ~Running() { stop(); }
  void stop() {
    if (!server_) return;
    server_->stop();
    thread_.join();
    server_.reset();
  }
  int port() const { return port_; }
  httplib::Client client() const {
    httplib::Client c("127.0.0.1", port_);
    c.set_read_timeout(10, 0);
    return c;
  }
  std::string host() const { return "127.0.0.1:" + std::to_string(port_); }
  Server& server() { return *server_; }

 private:
  std::unique_ptr<Server> server_;
  std::thread thread_;
  int port_ = 0;
};

Options small() {
  Options o;
  o.threads = 4;
  o.timeout_s = 5;
  o.io_timeout_s = 2;
  o.request_timeout_s = 1;
  std::filesystem::create_directories(kData);
  o.data_dirs = {kData};
  return o;
}

int connect_to(int port) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

std::string read_all(int fd, int timeout_s) {
  timeval tv{timeout_s, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  std::string out;
  char buf[4096];
  for (ssize_t n; (n = ::recv(fd, buf, sizeof buf, 0)) > 0;) out.append(buf, static_cast<size_t>(n));
  return out;
}

int status_of(const std::string& answer) {
  return answer.size() >= 12 && answer.starts_with("HTTP/1.1 ") ? std::stoi(answer.substr(9, 3)) : 0;
}

std::string body_of(const std::string& answer) {
  const auto at = answer.find("\r\n\r\n");
  return at == std::string::npos ? "" : answer.substr(at + 4);
}

TEST(ServerHardening, InvalidUtf8AnywhereInTheRequestIsAnErrorDocumentNeverACrash) {
  Running s(small());
  const std::vector<std::string> targets = {
      "/%ff", "/%c0%af", "/api/v1/%ff", "/api/v1/echo?model=%ff", "/api/v1/echo?%fe%ff=1", "/report/%ff?x=%80",
      "/assets/%ff.js", "/api/v1/echo?model=%ed%a0%80&x=%f4%90%80%80", "/%00", "/api/v1/echo?positional=%ff"};
  for (const auto& t : targets) {
    auto r = s.client().Get(t);
    ASSERT_TRUE(r) << t;  // answered: the server is up
    EXPECT_TRUE(json::accept(r->body)) << t << ": " << r->body;
    EXPECT_NE(r->status, 500) << t;
  }
  auto r = s.client().Get("/api/v1/echo?model=%ff");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(json::parse(r->body)["options"]["model"], "\xEF\xBF\xBD");
  EXPECT_EQ(r->get_header_value("X-Gpuplan-Command").find('\xff'), std::string::npos);
  // The same bytes with no socket in between (the fuzz harness's way in).
  const std::string answer = s.server().answer_bytes("GET /%ff HTTP/1.1\r\nHost: " + s.host() + "\r\n\r\n");
  EXPECT_EQ(status_of(answer), 404);
  EXPECT_TRUE(json::accept(body_of(answer)));
}

TEST(ServerHardening, HostMustBeALoopbackNameWithThePort) {
  Running s(small());
  const std::string port = std::to_string(s.port());
  for (const std::string& host : std::vector<std::string>{"127.0.0.1:" + port, "localhost:" + port, "[::1]:" + port, "127.1.2.3:" + port,
                                  "LOCALHOST:" + port}) {
    auto r = s.client().Get("/api/v1", {{"Host", host}});
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 200) << host;
  }
  for (const std::string& host : std::vector<std::string>{"127.0.0.1.attacker.example:" + port, "127.0.0.1.attacker.example", "127.1:" + port, "127.0.0.01:" + port,
        "127.0.0.1:1" + port, "127.0.0.1", "localhost.:" + port, "attacker.example:" + port, "[::1]x:" + port,
        "0x7f.0.0.1:" + port, "::1:" + port, ""}) {
    auto r = s.client().Get("/api/v1", {{"Host", host}});
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 403) << host;
    EXPECT_EQ(json::parse(r->body)["field"], "Host");
  }
}

TEST(ServerHardening, OnlyTheServersOwnPagesCallTheApi) {
  Running s(small());
  const std::string own = "http://" + s.host();
  EXPECT_EQ(s.client().Get("/api/v1/echo?a=1", {{"Origin", own}})->status, 200);
  EXPECT_EQ(s.client().Get("/api/v1/echo?a=1", {{"Sec-Fetch-Site", "same-origin"}})->status, 200);
  EXPECT_EQ(s.client().Get("/api/v1/echo?a=1")->status, 200);  // no browser: curl, scripts
  for (const httplib::Headers& h :
       {httplib::Headers{{"Origin", "http://attacker.example"}}, httplib::Headers{{"Origin", "null"}},
        httplib::Headers{{"Origin", "http://127.0.0.1:1"}}, httplib::Headers{{"Sec-Fetch-Site", "cross-site"}},
        httplib::Headers{{"Sec-Fetch-Site", "same-site"}}}) {
    for (const char* path : {"/api/v1/echo?a=1", "/report/train", "/api/v1"}) {
      auto r = s.client().Get(path, h);
      ASSERT_TRUE(r);
      EXPECT_EQ(r->status, 403) << path << " " << h.begin()->second;
    }
    auto post = s.client().Post("/api/v1/echo", h, "{}", "application/json");
    EXPECT_EQ(post->status, 403);
  }
  // The pages themselves are the same for everyone (no data in them).
  EXPECT_EQ(s.client().Get("/", {{"Sec-Fetch-Site", "cross-site"}})->status, 200);
}

TEST(ServerHardening, WithATokenEveryApiCallCarriesIt) {
  Options o = small();
  o.token = "s3cret-token";
  Running s(o);
  EXPECT_EQ(s.client().Get("/api/v1/echo")->status, 401);
  EXPECT_EQ(s.client().Get("/api/v1/echo", {{"Authorization", "Bearer wrong"}})->status, 401);
  EXPECT_EQ(s.client().Get("/api/v1/echo", {{"Authorization", "Bearer s3cret-token"}})->status, 200);
  auto page = s.client().Get("/?token=s3cret-token");
  ASSERT_TRUE(page);
  EXPECT_EQ(page->status, 303);
  const std::string cookie = page->get_header_value("Set-Cookie");
  EXPECT_NE(cookie.find("HttpOnly"), std::string::npos);
  EXPECT_NE(cookie.find("SameSite=Strict"), std::string::npos);
  const std::string pair = cookie.substr(0, cookie.find(';'));
  EXPECT_EQ(s.client().Get("/api/v1/echo", {{"Cookie", pair}})->status, 200);
  EXPECT_EQ(s.client().Get("/?token=nope")->status, 401);
  try {
    Options bad = small();
    bad.token = "has space";
    check_options(bad);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "--token");
  }
}

TEST(ServerHardening, FilesOnlyUnderTheDataDirectoriesAndOnlyRegularOnes) {
  std::filesystem::create_directories(kData);
  std::ofstream(kData + "/rows.csv") << "a,b\n1,2\n";
  const std::string fifo = kData + "/fifo";
  std::filesystem::remove(fifo);
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::filesystem::remove(kData + "/escape");
  std::filesystem::create_symlink("/etc/passwd", kData + "/escape");
  Running s(small());
  auto read = [&](const std::string& path) { return s.client().Get("/api/v1/read?path=" + path); };
  auto ok = read(kData + "/rows.csv");
  EXPECT_EQ(ok->status, 200) << ok->body;
  EXPECT_EQ(read("rows.csv")->status, 200);  // relative: under a data directory
  // Outside: the same answer whether the file is there or not, and never a byte of it.
  auto passwd = read("/etc/passwd"), none = read("/etc/no-such-file-here");
  EXPECT_EQ(passwd->status, 400);
  EXPECT_EQ(none->status, 400);
  const auto message = [](const httplib::Result& r, const std::string& path) {
    std::string m = json::parse(r->body)["message"];
    return m.replace(m.find(path), path.size(), "PATH");
  };
  EXPECT_EQ(message(passwd, "/etc/passwd"), message(none, "/etc/no-such-file-here"));
  for (const std::string& p : {std::string("/etc/passwd"), kData + "/../../../../etc/passwd", kData + "/escape",
                               std::string("../../../../../../etc/passwd")}) {
    auto r = read(p);
    EXPECT_EQ(r->status, 400) << p;
    EXPECT_EQ(r->body.find("root:"), std::string::npos) << p;
  }
  // Devices and FIFOs: refused at once, never read (a FIFO's open would wait for a writer).
  const auto t0 = Clock::now();
  for (const std::string& p : {fifo, std::string("/dev/zero"), std::string("/dev/stdin")}) {
    auto r = read(p);
    EXPECT_EQ(r->status, 400) << p;
  }
  EXPECT_LT(std::chrono::duration<double>(Clock::now() - t0).count(), 1.0);
  std::filesystem::remove(fifo);
}

TEST(ServerHardening, SlowClientsDoNotHoldTheServer) {
  Running s(small());  // a request must arrive in full within 1 s
  std::vector<int> slow;
  for (int i = 0; i < 8; ++i) {
    const int fd = connect_to(s.port());
    ASSERT_GE(fd, 0);
    const std::string start = "GET /api/v1 HTTP/1.1\r\nHost: " + s.host() + "\r\n";
    (void)!::send(fd, start.data(), start.size(), MSG_NOSIGNAL);
    slow.push_back(fd);
  }
  std::atomic<bool> done = false;
  std::thread trickle([&] {  // one header line every 300 ms from each: never a whole request
    for (int k = 0; k < 10 && !done; ++k) {
      for (int fd : slow) (void)!::send(fd, "X-Slow: 1\r\n", 11, MSG_NOSIGNAL);
      std::this_thread::sleep_for(std::chrono::milliseconds(300));
    }
  });
  for (int i = 0; i < 5; ++i) {
    const auto t0 = Clock::now();
    auto r = s.client().Get("/api/v1");
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 200);
    EXPECT_LT(std::chrono::duration<double>(Clock::now() - t0).count(), 1.0);
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  // The slow ones get 408 once their request deadline has passed, and the connection is closed.
  for (int fd : slow) {
    const std::string answer = read_all(fd, 3);
    EXPECT_EQ(status_of(answer), 408) << answer;
    ::close(fd);
  }
  done = true;
  trickle.join();
}

TEST(ServerHardening, HeaderCountAndSizeAreBounded) {
  Running s(small());
  httplib::Headers many;
  for (int i = 0; i < 100; ++i) many.emplace("X-H" + std::to_string(i), "1");
  auto r = s.client().Get("/api/v1", many);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 431);
  // 40 KiB of headers in lines the library takes one by one: the whole is over the budget.
  const int fd = connect_to(s.port());
  std::string big = "GET /api/v1 HTTP/1.1\r\nHost: " + s.host() + "\r\n";
  for (int i = 0; i < 10; ++i) big += "X-Big" + std::to_string(i) + ": " + std::string(4000, 'a') + "\r\n";
  big += "\r\n";
  (void)!::send(fd, big.data(), big.size(), MSG_NOSIGNAL);
  const std::string answer = read_all(fd, 3);
  ::close(fd);
  EXPECT_EQ(status_of(answer), 431) << answer.substr(0, 200);
  EXPECT_EQ(s.client().Get("/api/v1")->status, 200);
}

TEST(ServerHardening, AKeepAliveClientIsNeverRefusedAndPaysLittlePerRequest) {
  Options o = small();
  o.threads = 1;  // one evaluation at a time: a slot not given back in time would be a 503
  Running s(o);
  httplib::Client c("127.0.0.1", s.port());
  c.set_keep_alive(true);
  const int n = 200;
  const auto t0 = Clock::now();
  for (int i = 0; i < n; ++i) {
    auto r = c.Get("/api/v1/echo?i=" + std::to_string(i));
    ASSERT_TRUE(r);
    ASSERT_EQ(r->status, 200) << r->body;
  }
  const double per_request_s = std::chrono::duration<double>(Clock::now() - t0).count() / n;
  EXPECT_LT(per_request_s, 0.015);  // no Nagle / delayed-ACK wait (it was 40 ms a request)
  // New connections one after another: never busy either.
  for (int i = 0; i < 50; ++i) EXPECT_EQ(s.client().Get("/api/v1/echo")->status, 200);
}

TEST(ServerHardening, KeepAliveClientsBeyondTheThreadsAreAllServed) {
  Options o = small();
  o.connection_threads = 4;
  Running s(o);
  std::atomic<int> ok = 0, failed = 0;
  std::vector<std::thread> clients;
  for (int k = 0; k < 12; ++k)
    clients.emplace_back([&] {
      httplib::Client c("127.0.0.1", s.port());
      c.set_keep_alive(true);
      c.set_read_timeout(5, 0);
      for (int i = 0; i < 20; ++i) {
        auto r = c.Get("/api/v1/echo");
        (r && r->status == 200 ? ok : failed)++;
      }
    });
  for (auto& t : clients) t.join();
  EXPECT_EQ(ok, 240);
  EXPECT_EQ(failed, 0);
}

TEST(ServerHardening, StopsWithinASecondWhileAnEvaluationRuns) {
  Options o = small();
  o.timeout_s = 30;
  Running s(o);
  std::thread waiting([&] { (void)s.client().Get("/api/v1/slow"); });
  const int idle = connect_to(s.port());  // a connection that sends nothing
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  const auto t0 = Clock::now();
  s.server().stop();
  waiting.join();
  const double stop_s = std::chrono::duration<double>(Clock::now() - t0).count();
  EXPECT_LT(stop_s, 1.0);
  ::close(idle);
  s.stop();
}

TEST(ServerHardening, PipelinedRequestsAreAnsweredInOrder) {
  Options o = small();
  o.port = 8080;
  Server s(stand_in(), o);
  const std::string req = "GET /api/v1/echo?n=1 HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n\r\n"
                          "GET /api/v1/echo?n=2 HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n\r\n";
  const std::string out = s.answer_bytes(req);
  const auto second = out.find("HTTP/1.1 200", 1);
  ASSERT_NE(second, std::string::npos) << out;
  EXPECT_NE(out.find("\"n\":\"1\""), std::string::npos);
  EXPECT_LT(out.find("\"n\":\"1\""), out.find("\"n\":\"2\""));
}

TEST(Access, LoopbackNamesAreParsedNotPrefixes) {
  EXPECT_TRUE(is_loopback_host("127.0.0.1"));
  EXPECT_TRUE(is_loopback_host("127.255.0.9"));
  EXPECT_TRUE(is_loopback_host("localhost"));
  EXPECT_TRUE(is_loopback_host("::1"));
  EXPECT_FALSE(is_loopback_host("127.0.0.1.attacker.example"));
  EXPECT_FALSE(is_loopback_host("127.0.0"));
  EXPECT_FALSE(is_loopback_host("127.0.0.256"));
  EXPECT_FALSE(is_loopback_host("127.0.0.1."));
  EXPECT_FALSE(is_loopback_host("0.0.0.0"));
  EXPECT_TRUE(is_loopback_host_header("localhost", 80));
  EXPECT_FALSE(is_loopback_host_header("localhost", 8080));
  EXPECT_TRUE(is_loopback_host_header("[::1]:8080", 8080));
  EXPECT_FALSE(is_loopback_host_header("[::1]:08080", 8080));
  EXPECT_FALSE(is_loopback_host_header("127.0.0.1:", 8080));
}

TEST(Access, ForeignPagesAndTokens) {
  EXPECT_FALSE(foreign_page("", "", "127.0.0.1:80"));
  EXPECT_FALSE(foreign_page("http://127.0.0.1:80", "same-origin", "127.0.0.1:80"));
  EXPECT_FALSE(foreign_page("", "none", "127.0.0.1:80"));
  EXPECT_TRUE(foreign_page("https://127.0.0.1:80", "", "127.0.0.1:80"));
  EXPECT_TRUE(foreign_page("", "cross-site", "127.0.0.1:80"));
  EXPECT_TRUE(token_matches("abc", "abc"));
  EXPECT_FALSE(token_matches("abd", "abc"));
  EXPECT_FALSE(token_matches("ab", "abc"));
  EXPECT_FALSE(token_matches("", ""));
  EXPECT_EQ(cookie_value("a=1; gpuplan_token_80=xyz; b=2", "gpuplan_token_80"), "xyz");
  EXPECT_EQ(cookie_value("a=1", "gpuplan_token_80"), "");
}

}  // namespace
}  // namespace gpuplan::server::hardening
