// Load test of `gpuplan serve` on loopback (not a ctest: run it by hand, it prints figures):
//   serve_load [--requests N] [--clients C] [--path /api/v1/...] [--port P] [--slow S] [--no-keep-alive]
// C clients (default 16) on their own keep-alive connections (or a new connection per request) send N
// requests in all (default 20,000) for `path` (default one inference point), against a server started
// in this process over the one API with its default threads (or, with --port, a running `gpuplan
// serve`), while S slow clients (default 0) each hold a connection sending one header line every
// 500 ms; prints throughput, latency percentiles, the answers that were not 200 (503s counted apart),
// and what the slow clients got. Bounded: N requests, each with 30 s client timeouts; loopback only.
#include <arpa/inet.h>
#include <httplib.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "api/api.h"
#include "server/api_backend.h"
#include "server/server.h"

int main(int argc, char** argv) {
  long requests = 20000;
  int clients = 16, port = 0, slow = 0;
  bool keep_alive = true;
  std::string path = "/api/v1/infer?model=llama3.1-70b&system=hgx-h200&gpus=8&concurrency=64";
  for (int i = 1; i < argc; i += 2) {
    if (!std::strcmp(argv[i], "--no-keep-alive")) {
      keep_alive = false;
      --i;
      continue;
    }
    if (i + 1 >= argc) {
      std::fprintf(stderr, "%s needs a value\n", argv[i]);
      return 2;
    }
    if (!std::strcmp(argv[i], "--slow")) slow = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--requests")) requests = std::atol(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--clients")) clients = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--path")) path = argv[i + 1];
    else if (!std::strcmp(argv[i], "--port")) port = std::atoi(argv[i + 1]);
    else {
      std::fprintf(stderr,
                   "usage: serve_load [--requests N] [--clients C] [--path P] [--port P] [--slow S] [--no-keep-alive]\n");
      return 2;
    }
  }
  if (requests < 1 || requests > 10'000'000 || clients < 1 || clients > 1024 || slow < 0 || slow > 256) {
    std::fprintf(stderr, "--requests must be 1 to 10000000, --clients 1 to 1024, --slow 0 to 256\n");
    return 2;
  }
  std::unique_ptr<gpuplan::api::Session> session;
  std::unique_ptr<gpuplan::server::Server> server;
  std::thread serving;
  if (port == 0) {
    session = std::make_unique<gpuplan::api::Session>();
    gpuplan::server::Options o;
    o.port = 0;
    o.threads = static_cast<int>(std::max(4u, std::min(64u, std::thread::hardware_concurrency())));  // as gpuplan serve
    server = std::make_unique<gpuplan::server::Server>(gpuplan::server::api_backend(*session), o);
    port = server->bind();
    serving = std::thread([&] { server->serve(); });
  }
  // Slow clients: a request line, then a header line every 500 ms, never the blank line.
  std::atomic<bool> load_done = false;
  std::vector<std::string> slow_answers(static_cast<size_t>(slow));
  std::vector<std::thread> slow_threads;
  for (int k = 0; k < slow; ++k)
    slow_threads.emplace_back([&, k] {
      const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
      sockaddr_in addr{};
      addr.sin_family = AF_INET;
      addr.sin_port = htons(static_cast<uint16_t>(port));
      addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
      if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
        ::close(fd);
        return;
      }
      const std::string start = "GET /api/v1 HTTP/1.1\r\nHost: 127.0.0.1:" + std::to_string(port) + "\r\n";
      (void)!::send(fd, start.data(), start.size(), MSG_NOSIGNAL);
      timeval tv{0, 500000};
      ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
      char buf[4096];
      for (int line = 0; line < 120 && !load_done; ++line) {  // at most a minute
        const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
        if (n > 0) {
          slow_answers[static_cast<size_t>(k)].assign(buf, static_cast<size_t>(std::min<ssize_t>(n, 12)));
          break;
        }
        if (n == 0) break;
        if (::send(fd, "X-Slow: 1\r\n", 11, MSG_NOSIGNAL) < 0) break;
      }
      ::close(fd);
    });
  std::atomic<long> next = 0, not_ok = 0, busy = 0;
  std::vector<std::vector<double>> latency_s(static_cast<size_t>(clients));
  const auto t0 = std::chrono::steady_clock::now();
  std::vector<std::thread> threads;
  for (int c = 0; c < clients; ++c)
    threads.emplace_back([&, c] {
      httplib::Client client("127.0.0.1", port);
      client.set_keep_alive(keep_alive);
      client.set_read_timeout(30, 0);
      client.set_write_timeout(30, 0);
      auto& mine = latency_s[static_cast<size_t>(c)];
      while (next++ < requests) {
        const auto s = std::chrono::steady_clock::now();
        auto r = client.Get(path);
        mine.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - s).count());
        if (!r || r->status != 200) ++not_ok;
        if (r && r->status == 503) ++busy;
      }
    });
  for (auto& t : threads) t.join();
  load_done = true;
  for (auto& t : slow_threads) t.join();
  const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::vector<double> all;
  for (auto& v : latency_s) all.insert(all.end(), v.begin(), v.end());
  std::sort(all.begin(), all.end());
  auto pct = [&](double p) { return all[std::min(all.size() - 1, static_cast<size_t>(p * static_cast<double>(all.size())))]; };
  std::printf("%zu requests from %d %s clients on 127.0.0.1:%d in %.2f s: %.0f requests/s; latency p50 %.2f ms, "
              "p99 %.2f ms, max %.2f ms; %ld not 200 (%ld of them 503)\npath: %s\n",
              all.size(), clients, keep_alive ? "keep-alive" : "new-connection", port, wall_s,
              static_cast<double>(all.size()) / wall_s, pct(0.50) * 1e3, pct(0.99) * 1e3, all.back() * 1e3,
              not_ok.load(), busy.load(), path.c_str());
  for (int k = 0; k < slow; ++k)
    std::printf("slow client %d: %s\n", k, slow_answers[static_cast<size_t>(k)].empty()
                                               ? "(no answer before the load ended)"
                                               : slow_answers[static_cast<size_t>(k)].c_str());
  if (server) {
    server->stop();
    serving.join();
  }
  return not_ok.load() == 0 ? 0 : 1;
}
