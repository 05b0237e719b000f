#pragma once
// `gpuplan serve`: the local web app and JSON API over the one API (src/api). An HTTP server
// (cpp-httplib, a thread pool) answering
//   /api/v1                  the commands served, as JSON
//   /api/v1/<command>        GET with the CLI's options as the query string, or POST with a JSON
//                            object body: the command's --json document (application/json)
//   /report/<kind>?...       the self-contained HTML report, as a download
//   /, /compare, /infer, /train, /search, /recommend, /site   the pages (web/app, embedded)
// Bad input is 400 with the gpuplan.error/v1 document naming the field; an unknown command 404 listing
// the commands; an oversize body or query 413; work past the request deadline, or more evaluations than
// the server runs at once, 503. A request addressed to another name than loopback's, or sent by a page
// of another origin, is 403; one without the server's token (when it has one) 401. Files named in
// options are read only under the data directories. See docs/serve.md.
#include <nlohmann/json.hpp>

#include "server/access.h"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace gpuplan::server {

// One command the API serves, with its one-line help.
struct Command {
  std::string name;
  std::string help;
};

// What the server calls to answer: the one API in production (api_backend.h), a stand-in in tests of
// the HTTP layer. Each function must be safe to call from many threads at once.
struct Backend {
  std::vector<Command> commands;
  std::function<nlohmann::json(std::string_view command, const nlohmann::json& options)> run;
  std::function<std::string(std::string_view kind, const nlohmann::json& options)> report_html;
  std::function<bool(const nlohmann::json& document)> does_not_fit;
};

struct Options {
  std::string host = "127.0.0.1";  // loopback unless --host opens it up
  int port = 8080;                 // 0: pick a free port (Server::port() says which)
  int threads = 8;                 // HTTP worker threads = most evaluations running at once
  double timeout_s = 30.0;         // deadline of one evaluation (the work a request asks for)
  int io_timeout_s = 5;            // socket read/write timeout (a client that stops sending)
  std::size_t max_body_bytes = 64 * 1024;   // POST bodies (413 above)
  std::size_t max_query_bytes = 4 * 1024;   // query strings (413 above)
  std::size_t max_header_bytes = 16 * 1024; // request line and headers together (431 above)
  int max_headers = 64;                     // header lines (431 above)
  double request_timeout_s = 10.0;          // from a request's first byte to its last (408 after)
  int keep_alive_max_requests = 100;        // requests on one connection before it is closed
  int connection_threads = 0;               // connections served at once; 0: 4 x threads, at least 64
  std::vector<std::string> data_dirs;       // options may name files under these only
  std::uint64_t max_file_bytes = 64ull << 20;  // and files up to this size
  std::string token;                        // set: every API call must carry it (Bearer or cookie)
};

// Throws InputError naming the option ("--port", "--threads", "--timeout-s", ...) and its allowed range.
void check_options(const Options& options);

// The data directories a server reads files from by default: ../shared/data and examples, from the
// working directory, those that exist.
std::vector<std::string> default_data_dirs();

class Server {
 public:
  Server(Backend backend, Options options);
  ~Server();  // stops, and waits for evaluations still running
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  // Binds the socket; returns the port (the one picked when Options::port is 0). Throws InputError
  // naming "--host" or "--port" when it cannot bind.
  int bind();
  // Serves until stop(); call after bind(), from any thread.
  void serve();
  // Makes serve() return; safe from any thread.
  void stop();
  int port() const;
  // Evaluations still running (an overrunning one keeps running after its request was answered).
  std::size_t evaluations_running() const;

  // Answers the HTTP requests in `bytes` (one connection's, pipelined) as the server would over a
  // socket, without one, and returns what it would write back: for tests and the fuzz harness. The
  // server's port (for the Host check) is Options::port; bind() is not needed.
  std::string answer_bytes(std::string_view bytes);

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace gpuplan::server
