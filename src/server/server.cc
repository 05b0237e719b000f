#include "server/server.h"

#include <httplib.h>
#include <sys/socket.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <set>
#include <thread>
#include <utility>

#include "core/error.h"
#include "report/chart_library.h"
#include "server/app_assets.h"
#include "server/evaluator.h"
#include "server/request.h"

namespace gpuplan::server {

namespace {

constexpr const char* kJson = "application/json";
// The pages: each is the one app shell (index.html); app.js draws the page its path names.
const std::set<std::string, std::less<>> kPages = {"compare", "infer", "train", "search", "recommend", "site"};
// Report kinds api::report_html makes.
const std::set<std::string, std::less<>> kReportKinds = {"train", "infer", "schedule", "compare", "site"};

std::string error_document(const std::string& message, const std::string& field, int exit_code,
                           nlohmann::json extra = nlohmann::json::object()) {
  nlohmann::json doc = {{"schema", "gpuplan.error/v1"}, {"message", message}, {"field", field},
                        {"exit_code", exit_code}};
  doc.update(extra);
  return doc.dump();
}

Reply error_reply(int status, const std::string& message, const std::string& field, int exit_code = 2,
                  nlohmann::json extra = nlohmann::json::object()) {
  Reply r;
  r.status = status;
  r.body = error_document(message, field, exit_code, std::move(extra));
  return r;
}

void send(httplib::Response& res, const Reply& reply) {
  res.status = reply.status;
  res.set_content(reply.body, reply.content_type.c_str());
  if (!reply.filename.empty())
    res.set_header("Content-Disposition", "attachment; filename=\"" + reply.filename + "\"");
  if (reply.does_not_fit) res.set_header("X-Gpuplan-Does-Not-Fit", "true");
}

// The part of a Host header before the port: "127.0.0.1:8080" -> "127.0.0.1", "[::1]:80" -> "::1".
std::string host_name(const std::string& host) {
  if (!host.empty() && host.front() == '[') {
    auto close = host.find(']');
    return close == std::string::npos ? host : host.substr(1, close - 1);
  }
  return host.substr(0, host.find(':'));
}

}  // namespace

bool is_loopback_host(std::string_view host) {
  return host == "localhost" || host == "::1" || host.starts_with("127.");
}

void check_options(const Options& o) {
  if (o.host.empty()) throw InputError("--host", "empty (give an address such as 127.0.0.1 or 0.0.0.0)");
  if (o.port < 0 || o.port > 65535) throw InputError("--port", "must be 0 (pick a free port) to 65535");
  if (o.threads < 1 || o.threads > 256) throw InputError("--threads", "must be 1 to 256");
  if (!(std::isfinite(o.timeout_s) && o.timeout_s > 0 && o.timeout_s <= 3600))
    throw InputError("--timeout-s", "must be above 0 and at most 3600 seconds");
  if (o.io_timeout_s < 1 || o.io_timeout_s > 600) throw InputError("--io-timeout-s", "must be 1 to 600 seconds");
  if (o.max_body_bytes < 1024 || o.max_body_bytes > (64u << 20))
    throw InputError("--max-body-bytes", "must be 1 KiB to 64 MiB");
  if (o.max_query_bytes < 256 || o.max_query_bytes > 8000)
    throw InputError("--max-query-bytes", "must be 256 to 8000 bytes (the HTTP library refuses longer request lines)");
}

struct Server::State {
  Backend backend;
  Options config;
  httplib::Server http;
  Evaluator evaluator;
  int port = -1;
  std::set<std::string, std::less<>> served;  // command names
  std::atomic<bool> serving = false;
  std::atomic<bool> stop_requested = false;  // command names

  State(Backend b, Options o)
      : backend(std::move(b)),
        config(std::move(o)),
        evaluator(static_cast<std::size_t>(config.threads),
                  std::chrono::milliseconds(static_cast<long long>(config.timeout_s * 1000))) {
    for (const auto& c : backend.commands) served.insert(c.name);
  }

  nlohmann::json command_list() const {
    nlohmann::json list = nlohmann::json::array();
    for (const auto& c : backend.commands)
      list.push_back({{"name", c.name}, {"help", c.help}, {"path", "/api/v1/" + c.name}});
    return list;
  }

  // The options of a request: the query's parameters, then (POST) the body's, which win.
  std::optional<Reply> read_options(const httplib::Request& req, nlohmann::json& options) const {
    try {
      std::vector<std::pair<std::string, std::string>> params(req.params.begin(), req.params.end());
      options = options_from_query(params);
      if (req.method == "POST" && !req.body.empty()) options.update(options_from_body(req.body));
      options = checked_options(std::move(options));
    } catch (const InputError& e) {
      return error_reply(400, e.what(), e.field());
    }
    return std::nullopt;
  }

  // Runs one evaluation under the server's bounds.
  Reply evaluate(std::function<Reply()> job) {
    Reply reply;
    switch (evaluator.run(std::move(job), reply)) {
      case Evaluator::Outcome::done:
        return reply;
      case Evaluator::Outcome::busy: {
        Reply r = error_reply(503,
                              "the server is running as many evaluations as it runs at once (" +
                                  std::to_string(config.threads) + "); try again shortly",
                              "", 1);
        return r;
      }
      case Evaluator::Outcome::timed_out:
        break;
    }
    return error_reply(503,
                       "the request asked for more work than the server's deadline of " +
                           fmt_seconds(config.timeout_s) + " allows (gpuplan serve --timeout-s); "
                           "ask for less (fewer GPUs, models or points), or run it with the CLI",
                       "", 1);
  }

  static std::string fmt_seconds(double s) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g s", s);
    return buf;
  }

  void handle_command(const httplib::Request& req, httplib::Response& res) {
    const std::string command = req.matches[1];
    if (!served.contains(command)) {
      send(res, error_reply(404, "unknown command '" + command + "'; the API serves: " + names(), "command", 2,
                            {{"commands", command_list()}}));
      return;
    }
    nlohmann::json options;
    if (auto bad = read_options(req, options)) return send(res, *bad);
    // The command line that reproduces the answer (the pages show it); one line, whatever the input.
    std::string line = command_line(command, options);
    std::replace_if(line.begin(), line.end(), [](char c) { return static_cast<unsigned char>(c) < 0x20; }, ' ');
    res.set_header("X-Gpuplan-Command", line);
    Backend* b = &backend;
    send(res, evaluate([b, command, options = std::move(options)]() -> Reply {
           try {
             Reply r;
             nlohmann::json doc = b->run(command, options);
             r.does_not_fit = b->does_not_fit && b->does_not_fit(doc);
             r.body = doc.dump();
             return r;
           } catch (const InputError& e) {
             return error_reply(400, e.what(), e.field());
           } catch (const std::exception& e) {
             return error_reply(500, e.what(), "", 1);
           }
         }));
  }

  void handle_report(const httplib::Request& req, httplib::Response& res) {
    const std::string kind = req.matches[1];
    if (!kReportKinds.contains(kind) || !backend.report_html) {
      send(res, error_reply(404, "unknown report kind '" + kind + "'; kinds: train, infer, schedule, compare, site",
                            "kind"));
      return;
    }
    nlohmann::json options;
    if (auto bad = read_options(req, options)) return send(res, *bad);
    Backend* b = &backend;
    send(res, evaluate([b, kind, options = std::move(options)]() -> Reply {
           try {
             Reply r;
             r.body = b->report_html(kind, options);
             r.content_type = "text/html; charset=utf-8";
             r.filename = "gpuplan-" + kind + ".html";
             return r;
           } catch (const InputError& e) {
             return error_reply(400, e.what(), e.field());
           } catch (const std::exception& e) {
             return error_reply(500, e.what(), "", 1);
           }
         }));
  }

  std::string names() const {
    std::string out;
    for (const auto& c : backend.commands) out += (out.empty() ? "" : ", ") + c.name;
    return out;
  }

  static void send_asset(httplib::Response& res, std::string_view name) {
    const AppAsset* a = find_app_asset(name);
    if (!a) {
      res.status = 404;
      res.set_content(error_document("no such file: " + std::string(name), "path", 2), kJson);
      return;
    }
    res.set_content(std::string(a->body), std::string(a->content_type).c_str());
    res.set_header("Cache-Control", "no-cache");
  }

  void routes() {
    // SO_REUSEADDR only: the library's default adds SO_REUSEPORT, which lets a second server share a
    // port in use, answering half the requests, instead of failing to bind.
    http.set_socket_options([](socket_t sock) {
      int yes = 1;
      ::setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
    });
    http.set_payload_max_length(config.max_body_bytes);
    http.set_read_timeout(config.io_timeout_s, 0);
    http.set_write_timeout(config.io_timeout_s, 0);
    http.set_keep_alive_timeout(config.io_timeout_s);
    http.set_keep_alive_max_count(1000);
    const auto threads = static_cast<std::size_t>(config.threads);
    http.new_task_queue = [threads] { return new httplib::ThreadPool(threads); };

    // Before any route: the bounds every request meets, and the headers every answer carries.
    http.set_pre_routing_handler([this](const httplib::Request& req, httplib::Response& res) {
      res.set_header("X-Content-Type-Options", "nosniff");
      res.set_header("Content-Security-Policy",
                     "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
                     "connect-src 'self'; frame-ancestors 'none'");
      res.set_header("Referrer-Policy", "no-referrer");
      const auto q = req.target.find('?');
      if (q != std::string::npos && req.target.size() - q - 1 > config.max_query_bytes) {
        send(res, error_reply(413,
                              "query string of " + std::to_string(req.target.size() - q - 1) +
                                  " bytes; at most " + std::to_string(config.max_query_bytes) +
                                  " (POST a JSON body for more)",
                              "query"));
        return httplib::Server::HandlerResponse::Handled;
      }
      // Bound to loopback, answer only requests addressed to loopback: a web page elsewhere cannot
      // reach this server through a DNS name rebound to 127.0.0.1.
      if (is_loopback_host(config.host) && !is_loopback_host(host_name(req.get_header_value("Host")))) {
        send(res, error_reply(403, "Host '" + req.get_header_value("Host") +
                                       "' is not this machine's loopback name (the server answers "
                                       "localhost and 127.0.0.1 only; gpuplan serve --host opens it up)",
                              "Host"));
        return httplib::Server::HandlerResponse::Handled;
      }
      return httplib::Server::HandlerResponse::Unhandled;
    });

    http.Get("/api/v1/?", [this](const httplib::Request&, httplib::Response& res) {
      nlohmann::json doc = {{"schema", "gpuplan.serve/v1"}, {"commands", command_list()},
                            {"reports", {"train", "infer", "schedule", "compare", "site"}}};
      res.set_content(doc.dump(), kJson);
    });
    http.Get("/api/v1/([^/]+)", [this](const httplib::Request& req, httplib::Response& res) { handle_command(req, res); });
    http.Post("/api/v1/([^/]+)", [this](const httplib::Request& req, httplib::Response& res) { handle_command(req, res); });
    http.Get("/report/([^/]+)", [this](const httplib::Request& req, httplib::Response& res) { handle_report(req, res); });
    http.Get("/", [](const httplib::Request&, httplib::Response& res) { send_asset(res, "index.html"); });
    http.Get("/([a-z]+)", [](const httplib::Request& req, httplib::Response& res) {
      if (kPages.contains(std::string(req.matches[1]))) return send_asset(res, "index.html");
      send_asset(res, std::string(req.matches[1]));
    });
    http.Get("/assets/chart.js", [](const httplib::Request&, httplib::Response& res) {
      res.set_content(std::string(report::chart_library_js()), "text/javascript; charset=utf-8");
      res.set_header("Cache-Control", "max-age=3600");
    });
    http.Get("/assets/([a-z_-]+\\.(js|css))", [](const httplib::Request& req, httplib::Response& res) {
      send_asset(res, std::string(req.matches[1]));
    });

    // Whatever no route answered (no such path, a method not served, a request the HTTP library
    // refused: 400 malformed, 413 body too large): the error document, never an empty answer.
    http.set_error_handler(httplib::Server::HandlerWithResponse([this](const httplib::Request& req, httplib::Response& res) {
      if (!res.body.empty()) return httplib::Server::HandlerResponse::Unhandled;  // a route's own document
      std::string message, field = "path";
      switch (res.status) {
        case 404:
          message = "no such page or API path: " + req.path + " (pages: /, /compare, /infer, /train, /search, "
                    "/recommend, /site; API: /api/v1/<command>, /api/v1 lists them)";
          break;
        case 413:
          message = "request body larger than " + std::to_string(config.max_body_bytes) + " bytes";
          field = "body";
          break;
        case 400:
          message = "malformed HTTP request";
          field = "request";
          break;
        default:
          message = "HTTP " + std::to_string(res.status);
          field = "request";
      }
      res.set_content(error_document(message, field, 2), kJson);
      return httplib::Server::HandlerResponse::Handled;
    }));
    http.set_exception_handler([](const httplib::Request&, httplib::Response& res, std::exception_ptr ep) {
      std::string message = "internal error";
      try {
        if (ep) std::rethrow_exception(ep);
      } catch (const std::exception& e) {
        message = e.what();
      } catch (...) {
      }
      res.status = 500;
      res.set_content(error_document(message, "", 1), kJson);
    });
  }
};

Server::Server(Backend backend, Options options) {
  check_options(options);
  state_ = std::make_unique<State>(std::move(backend), std::move(options));
  state_->routes();
}

Server::~Server() {
  if (state_) stop();
}

int Server::bind() {
  auto& s = *state_;
  if (s.config.port == 0) {
    s.port = s.http.bind_to_any_port(s.config.host);
  } else {
    s.port = s.http.bind_to_port(s.config.host, s.config.port) ? s.config.port : -1;
  }
  if (s.port < 0)
    throw InputError(s.config.port == 0 ? "--host" : "--port",
                     "cannot listen on " + s.config.host + ":" + std::to_string(s.config.port) +
                         " (in use, or not an address of this machine)");
  return s.port;
}

void Server::serve() {
  auto& s = *state_;
  s.serving = true;
  if (!s.stop_requested) s.http.listen_after_bind();
  s.serving = false;
}

void Server::stop() {
  auto& s = *state_;
  s.stop_requested = true;
  // serve() may be between its check and the listening loop: wait for the loop, which stop() ends.
  while (s.serving && !s.http.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  s.http.stop();
}

int Server::port() const { return state_->port; }

}  // namespace gpuplan::server
