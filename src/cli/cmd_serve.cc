// gpuplan serve [--host H] [--port P] [--threads N] [--timeout-s S] [--catalog DIR] [--calibration FILE]
//               [--data-dir DIR]... [--token T]
// The local web app and JSON API (src/server) over one API session: the pages at /, the commands at
// /api/v1/<command>. Bound to 127.0.0.1 unless --host opens it up. Runs until SIGINT or SIGTERM;
// exit 0 then, 2 on bad options or a port that cannot be bound. See docs/serve.md.
#include <signal.h>

#include <fmt/format.h>

#include <cstdlib>
#include <iostream>
#include <thread>

#include "api/api.h"
#include "cli/commands.h"
#include "cli/common.h"
#include "server/api_backend.h"
#include "server/server.h"

namespace gpuplan::cli {

int cmd_serve(int argc, char** argv) {
  CLI::App app{"The local web app: pages for compare, infer, train/search, recommend, size and site, and the JSON "
               "API /api/v1/<command> taking the CLI's options and returning its --json document"};
  std::vector<std::string> catalog_dirs, calibration_files;
  server::Options o;
  o.threads = static_cast<int>(std::max(4u, std::min(64u, std::thread::hardware_concurrency())));
  app.add_option("--catalog", catalog_dirs,
                 "Directory of catalog YAML files overriding or extending the built-in catalog, for every request "
                 "(repeatable; also $GPUPLAN_CATALOG)");
  app.add_option("--calibration", calibration_files, "Catalog YAML merged last, for every request (repeatable)");
  app.add_option("--host", o.host,
                 "Address to listen on (default 127.0.0.1: this machine only; 0.0.0.0 opens it to the network)")
      ->capture_default_str();
  app.add_option("--port", o.port, "Port (0: pick a free one and print it)")->capture_default_str();
  app.add_option("--threads", o.threads, "Requests served at once, and evaluations running at once (1-256)")
      ->capture_default_str();
  app.add_option("--timeout-s", o.timeout_s,
                 "Deadline of one request's evaluation in seconds; past it the answer is 503 (0-3600)")
      ->capture_default_str();
  app.add_option("--data-dir", o.data_dirs,
                 "Directory whose files requests may name (dataset=, trace=, cluster=, a model's config.json ...); "
                 "repeatable; default ../shared/data and examples from the working directory. No other file is read")
      ->check(CLI::ExistingDirectory);
  app.add_option("--max-file-bytes", o.max_file_bytes, "Largest file a request may name")->capture_default_str();
  app.add_option("--token", o.token,
                 "Every API call must carry this token (Authorization: Bearer TOKEN; the printed address sets it "
                 "for the pages): for machines shared with other users")
      ->envname("GPUPLAN_SERVE_TOKEN");
  app.add_option("--request-timeout-s", o.request_timeout_s,
                 "A request (line, headers, body) must arrive in full within this many seconds (408 after)")
      ->capture_default_str();
  if (int rc = parse_args(app, argc, argv); rc >= 0) return rc;
  if (o.data_dirs.empty()) o.data_dirs = server::default_data_dirs();
  return run_guarded([&] {
    server::check_options(o);
    api::Session session(catalog_dirs, calibration_files);
    server::Server srv(server::api_backend(session), o);
    const int port = srv.bind();
    if (!server::is_loopback_host(o.host))
      std::cerr << fmt::format(
          "gpuplan serve: listening on {}:{}, reachable from other machines: anyone who can reach this port can "
          "run commands on this machine and make it read any file this user can read (model configs, datasets, "
          "cluster files named in options). Serve on 127.0.0.1 unless the network is trusted.\n",
          o.host, port);
    // SIGINT and SIGTERM are waited for on a thread of their own, which stops the server.
    sigset_t signals;
    sigemptyset(&signals);
    sigaddset(&signals, SIGINT);
    sigaddset(&signals, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &signals, nullptr);
    std::thread waiter([&] {
      int sig = 0;
      sigwait(&signals, &sig);
      srv.stop();
    });
    const std::string shown = o.host.find(':') != std::string::npos ? "[" + o.host + "]" : o.host;
    std::string dirs;
    for (const auto& d : o.data_dirs) dirs += (dirs.empty() ? "" : ", ") + d;
    std::cerr << "gpuplan serve: requests may name files under: " << (dirs.empty() ? "(none)" : dirs) << "\n";
    const std::string token = o.token.empty() ? "" : "?token=" + o.token;
    std::cout << fmt::format("gpuplan serve: http://{}:{}/{} (API: /api/v1; Ctrl-C stops)", shown, port, token)
              << std::endl;
    srv.serve();
    pthread_kill(waiter.native_handle(), SIGTERM);  // when serve() ended on its own
    waiter.join();
    // Stop now: an evaluation past its deadline cannot be interrupted, and nothing is left to write
    // (the server writes no files), so neither it nor the session's teardown is waited for.
    std::cout.flush();
    std::cerr.flush();
    std::_Exit(kExitOk);
    return kExitOk;  // not reached
  });
}

}  // namespace gpuplan::cli
