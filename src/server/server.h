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
// the server runs at once, 503. See docs/serve.md.
#include <nlohmann/json.hpp>

#include <cstddef>
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
};

// Throws InputError naming the option ("--port", "--threads", "--timeout-s", ...) and its allowed range.
void check_options(const Options& options);

// True for 127.0.0.0/8, ::1 and localhost: a server bound there is reachable from this machine only.
bool is_loopback_host(std::string_view host);

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

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace gpuplan::server
