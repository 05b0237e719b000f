// Load test of `gpuplan serve` on loopback (not a ctest: run it by hand, it prints figures):
//   serve_load [--requests N] [--clients C] [--path /api/v1/...] [--port P]
// C clients (default 16) on their own keep-alive connections send N requests in all (default 20,000)
// for `path` (default one inference point), against a server started in this process over the one
// API (or, with --port, a running `gpuplan serve`); prints throughput, latency percentiles, and the
// count of answers that were not 200. Bounded: N requests, each with 30 s client timeouts.
#include <httplib.h>

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
  int clients = 16, port = 0;
  std::string path = "/api/v1/infer?model=llama3.1-70b&system=hgx-h200&gpus=8&concurrency=64";
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--requests")) requests = std::atol(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--clients")) clients = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--path")) path = argv[i + 1];
    else if (!std::strcmp(argv[i], "--port")) port = std::atoi(argv[i + 1]);
    else {
      std::fprintf(stderr, "usage: serve_load [--requests N] [--clients C] [--path P] [--port P]\n");
      return 2;
    }
  }
  if (requests < 1 || requests > 10'000'000 || clients < 1 || clients > 1024) {
    std::fprintf(stderr, "--requests must be 1 to 10000000, --clients 1 to 1024\n");
    return 2;
  }
  std::unique_ptr<gpuplan::api::Session> session;
  std::unique_ptr<gpuplan::server::Server> server;
  std::thread serving;
  if (port == 0) {
    session = std::make_unique<gpuplan::api::Session>();
    gpuplan::server::Options o;
    o.port = 0;
    o.threads = std::max(16, clients);
    server = std::make_unique<gpuplan::server::Server>(gpuplan::server::api_backend(*session), o);
    port = server->bind();
    serving = std::thread([&] { server->serve(); });
  }
  std::atomic<long> next = 0, not_ok = 0;
  std::vector<std::vector<double>> latency_s(static_cast<size_t>(clients));
  const auto t0 = std::chrono::steady_clock::now();
  std::vector<std::thread> threads;
  for (int c = 0; c < clients; ++c)
    threads.emplace_back([&, c] {
      httplib::Client client("127.0.0.1", port);
      client.set_keep_alive(true);
      client.set_read_timeout(30, 0);
      client.set_write_timeout(30, 0);
      auto& mine = latency_s[static_cast<size_t>(c)];
      while (next++ < requests) {
        const auto s = std::chrono::steady_clock::now();
        auto r = client.Get(path);
        mine.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - s).count());
        if (!r || r->status != 200) ++not_ok;
      }
    });
  for (auto& t : threads) t.join();
  const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::vector<double> all;
  for (auto& v : latency_s) all.insert(all.end(), v.begin(), v.end());
  std::sort(all.begin(), all.end());
  auto pct = [&](double p) { return all[std::min(all.size() - 1, static_cast<size_t>(p * static_cast<double>(all.size())))]; };
  std::printf("%zu requests from %d clients on 127.0.0.1:%d in %.2f s: %.0f requests/s; latency p50 %.2f ms, "
              "p99 %.2f ms, max %.2f ms; %ld not 200\npath: %s\n",
              all.size(), clients, port, wall_s, static_cast<double>(all.size()) / wall_s, pct(0.50) * 1e3,
              pct(0.99) * 1e3, all.back() * 1e3, not_ok.load(), path.c_str());
  if (server) {
    server->stop();
    serving.join();
  }
  return not_ok.load() == 0 ? 0 : 1;
}
