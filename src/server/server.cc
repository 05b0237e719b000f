#include "server/server.h"

#include <httplib.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <deque>
#include <filesystem>
#include <set>
#include <thread>
#include <utility>

#include "core/error.h"
#include "core/input_file.h"
#include "core/text.h"
#include "api/report.h"
#include "report/chart_library.h"
#include "server/app_assets.h"
#include "server/connection.h"
#include "server/evaluator.h"
#include "server/request.h"

namespace gpuplan::server {

namespace {

constexpr const char* kJson = "application/json";
// The pages: each is the one app shell (index.html); app.js draws the page its path names.
const std::set<std::string, std::less<>> kPages = {"compare", "infer", "train", "search", "recommend", "size",
                                                    "site", "recipes"};
// Report kinds api::report_html makes: the API's table of them.
bool is_report_kind(const std::string& kind) {
  const auto& kinds = api::report_kinds();
  return std::any_of(kinds.begin(), kinds.end(), [&](const api::ReportKind& k) { return k.name == kind; });
}

std::string report_kind_names() {
  std::string names;
  for (const auto& k : api::report_kinds()) names += (names.empty() ? "" : ", ") + k.name;
  return names;
}

std::string error_document(const std::string& message, const std::string& field, int exit_code,
                           nlohmann::json extra = nlohmann::json::object()) {
  nlohmann::json doc = {{"schema", "gpuplan.error/v1"}, {"message", message}, {"field", field},
                        {"exit_code", exit_code}};
  doc.update(extra);
  // Text from the request (a path, an option's value) may be any bytes: never throw on them.
  return doc.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
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

// Header values the server writes from request text: valid UTF-8, no control characters.
std::string header_text(const std::string& text) {
  std::string out = valid_utf8(text);
  std::replace_if(out.begin(), out.end(), [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; }, ' ');
  return out;
}

bool is_api_path(const std::string& path) { return path.starts_with("/api/") || path == "/api" || path.starts_with("/report/"); }

}  // namespace

// Not in the anonymous namespace: Server::State holds an Http.
namespace connections {

// The task queue of the connections: the library's thread pool, counting the connections waiting
// for a thread (a keep-alive connection gives its thread up when one waits).
class ConnectionPool final : public httplib::TaskQueue {
 public:
  explicit ConnectionPool(std::size_t threads) {
    for (std::size_t i = 0; i < threads; ++i) threads_.emplace_back([this] { work(); });
  }
  void enqueue(std::function<void()> fn) override {
    {
      std::lock_guard lock(mutex_);
      jobs_.push_back(std::move(fn));
      waiting_ = jobs_.size();
    }
    cond_.notify_one();
  }
  void shutdown() override {
    {
      std::lock_guard lock(mutex_);
      shutdown_ = true;
    }
    cond_.notify_all();
    for (auto& t : threads_) t.join();
  }
  std::size_t waiting() const { return waiting_.load(); }

 private:
  void work() {
    for (;;) {
      std::function<void()> fn;
      {
        std::unique_lock lock(mutex_);
        cond_.wait(lock, [&] { return !jobs_.empty() || shutdown_; });
        if (shutdown_ && jobs_.empty()) return;
        fn = std::move(jobs_.front());
        jobs_.pop_front();
        waiting_ = jobs_.size();
      }
      fn();
    }
  }
  std::vector<std::thread> threads_;
  std::deque<std::function<void()>> jobs_;
  std::mutex mutex_;
  std::condition_variable cond_;
  std::atomic<std::size_t> waiting_ = 0;
  bool shutdown_ = false;
};

// The library's server with this server's connection loop (connection.h): a whole-request deadline,
// a header budget, TCP_NODELAY, the answer in one write, keep-alive that yields to waiting
// connections, and every wait ending within 100 ms of stop().
class Http final : public httplib::Server {
 public:
  struct Loop {
    StreamLimits limits;
    std::chrono::milliseconds first_wait{5000};  // a new connection's first request
    std::chrono::milliseconds idle_wait{5000};   // a keep-alive connection's next request
    int max_requests = 100;
    std::size_t threads = 64;
  };
  explicit Http(Loop loop) : loop_(loop) {
    new_task_queue = [this] {
      auto* p = new ConnectionPool(loop_.threads);
      pool_ = p;
      return p;
    };
  }
  void set_stopping() { stopping_ = true; }
  socket_t listening_socket() const { return svr_sock_; }

  std::string answer_bytes(std::string_view bytes) {
    MemoryStream strm(bytes, loop_.limits);
    for (int served = 0; served < loop_.max_requests && !strm.at_end(); ++served) {
      strm.begin_request();
      bool closed = false, ok = false;
      {
        CurrentStream current(strm.failure());
        ok = process_request(strm, false, closed, nullptr);
      }
      if (!ok || closed || strm.failure() != ReadFailure::none) break;
    }
    return strm.output();
  }

 private:
  bool process_and_close_socket(socket_t sock) override {
    int one = 1;
    ::setsockopt(sock, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    bool ret = false;
    {
      SocketStream strm(sock, loop_.limits, stopping_);
      ConnectionPool* pool = pool_.load();
      const auto others_waiting = [pool] { return pool && pool->waiting() > 0; };
      for (int served = 0; served < loop_.max_requests && !stopping_.load(); ++served) {
        if (!strm.wait_for_request(served == 0 ? loop_.first_wait : loop_.idle_wait, [] { return false; })) break;
        strm.begin_request();
        // The last request of this connection when it reached its count, or another connection
        // waits for a thread: the answer says "Connection: close" and the thread goes to that one.
        const bool last = served + 1 >= loop_.max_requests || others_waiting() || stopping_.load();
        bool closed = false;
        {
          CurrentStream current(strm.failure());
          ret = process_request(strm, last, closed, nullptr);
        }
        const bool sent = strm.flush();
        if (!ret || !sent || closed || last || strm.failure() != ReadFailure::none) break;
      }
    }
    ::shutdown(sock, SHUT_RDWR);
    ::close(sock);
    return ret;
  }

  Loop loop_;
  std::atomic<ConnectionPool*> pool_ = nullptr;
  std::atomic<bool> stopping_ = false;
};

}  // namespace connections

namespace {

using connections::Http;

Http::Loop loop_of(const Options& o) {
  Http::Loop l;
  l.limits.request_deadline = std::chrono::milliseconds(static_cast<long long>(o.request_timeout_s * 1000));
  l.limits.write_timeout = std::chrono::seconds(o.io_timeout_s);
  l.limits.max_header_bytes = o.max_header_bytes;
  l.limits.max_body_bytes = o.max_body_bytes + 4096;  // chunk sizes of a chunked body
  l.first_wait = l.idle_wait = std::chrono::seconds(o.io_timeout_s);
  l.max_requests = o.keep_alive_max_requests;
  const int threads = o.connection_threads > 0 ? o.connection_threads : std::max(64, 4 * o.threads);
  l.threads = static_cast<std::size_t>(threads);
  return l;
}

}  // namespace

std::vector<std::string> default_data_dirs() {
  std::vector<std::string> out;
  for (const char* d : {"../shared/data", "examples"}) {
    std::error_code ec;
    if (std::filesystem::is_directory(d, ec)) out.push_back(std::filesystem::absolute(d, ec).lexically_normal().string());
  }
  return out;
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
  if (o.max_header_bytes < 1024 || o.max_header_bytes > (1u << 20))
    throw InputError("--max-header-bytes", "must be 1 KiB to 1 MiB");
  if (o.max_headers < 8 || o.max_headers > 1000) throw InputError("--max-headers", "must be 8 to 1000");
  if (!(std::isfinite(o.request_timeout_s) && o.request_timeout_s > 0 && o.request_timeout_s <= 600))
    throw InputError("--request-timeout-s", "must be above 0 and at most 600 seconds");
  if (o.keep_alive_max_requests < 1 || o.keep_alive_max_requests > 100000)
    throw InputError("--keep-alive-max-requests", "must be 1 to 100000");
  if (o.connection_threads < 0 || o.connection_threads > 4096)
    throw InputError("--connection-threads", "must be 0 (4 x --threads, at least 64) to 4096");
  if (o.max_file_bytes < 1 || o.max_file_bytes > kMaxInputFileBytes)
    throw InputError("--max-file-bytes", "must be 1 to " + std::to_string(kMaxInputFileBytes));
  if (o.token.size() > 256) throw InputError("--token", "at most 256 characters");
  for (char c : o.token)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_' && c != '.' && c != '~')
      throw InputError("--token", "letters, digits and - _ . ~ only (it travels in a header and a cookie)");
}

struct Server::State {
  Backend backend;
  Options config;
  Http http;
  Evaluator evaluator;
  InputFilePolicy files;  // what evaluations may read
  int port = -1;
  std::set<std::string, std::less<>> served;  // command names
  std::atomic<bool> serving = false;
  std::atomic<bool> stop_requested = false;

  State(Backend b, Options o)
      : backend(std::move(b)),
        config(std::move(o)),
        http(loop_of(config)),
        evaluator(static_cast<std::size_t>(config.threads),
                  std::chrono::milliseconds(static_cast<long long>(config.timeout_s * 1000))) {
    for (const auto& c : backend.commands) served.insert(c.name);
    files.roots = canonical_directories(config.data_dirs);
    files.max_bytes = config.max_file_bytes;
    files.roots_option = "gpuplan serve --data-dir";
    port = config.port;
  }

  std::string cookie_name() const { return "gpuplan_token_" + std::to_string(port); }

  bool has_token(const httplib::Request& req) const {
    const std::string auth = req.get_header_value("Authorization");
    if (auth.starts_with("Bearer ") && token_matches(auth.substr(7), config.token)) return true;
    return token_matches(cookie_value(req.get_header_value("Cookie"), cookie_name()), config.token);
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
      std::vector<std::pair<std::string, std::string>> params;
      for (const auto& [k, v] : req.params) params.emplace_back(valid_utf8(k), valid_utf8(v));
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
                                  std::to_string(config.threads) +
                                  ", gpuplan serve --threads) and none ended within a second; try again shortly",
                              "", 1);
        return r;
      }
      case Evaluator::Outcome::stopped:
        return error_reply(503, "the server is stopping", "", 1);
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
    const std::string command = valid_utf8(req.matches[1].str());
    if (!served.contains(command)) {
      send(res, error_reply(404, "unknown command '" + command + "'; the API serves: " + names(), "command", 2,
                            {{"commands", command_list()}}));
      return;
    }
    nlohmann::json options;
    if (auto bad = read_options(req, options)) return send(res, *bad);
    // The command line that reproduces the answer (the pages show it); one line, whatever the input.
    res.set_header("X-Gpuplan-Command", header_text(command_line(command, options)));
    Backend* b = &backend;
    const InputFilePolicy* f = &files;
    send(res, evaluate([b, f, command, options = std::move(options)]() -> Reply {
           try {
             InputFileScope scope(*f);
             Reply r;
             nlohmann::json doc = b->run(command, options);
             r.does_not_fit = b->does_not_fit && b->does_not_fit(doc);
             r.body = doc.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
             return r;
           } catch (const InputError& e) {
             return error_reply(400, e.what(), e.field());
           } catch (const std::exception& e) {
             return error_reply(500, e.what(), "", 1);
           }
         }));
  }

  void handle_report(const httplib::Request& req, httplib::Response& res) {
    const std::string kind = valid_utf8(req.matches[1].str());
    if (!is_report_kind(kind) || !backend.report_html) {
      send(res, error_reply(404, "unknown report kind '" + kind + "'; kinds: " + report_kind_names(),
                            "kind"));
      return;
    }
    nlohmann::json options;
    if (auto bad = read_options(req, options)) return send(res, *bad);
    Backend* b = &backend;
    const InputFilePolicy* f = &files;
    send(res, evaluate([b, f, kind, options = std::move(options)]() -> Reply {
           try {
             InputFileScope scope(*f);
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
      res.set_content(error_document("no such file: " + valid_utf8(name), "path", 2), kJson);
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
    http.set_tcp_nodelay(true);

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
      if (req.headers.size() > static_cast<std::size_t>(config.max_headers) + 4) {  // + the library's 4
        send(res, error_reply(431, "more than " + std::to_string(config.max_headers) + " header lines", "headers"));
        return httplib::Server::HandlerResponse::Handled;
      }
      const std::string host = req.get_header_value("Host");
      // Bound to loopback, answer only requests addressed to loopback by name or address, with this
      // server's port: a web page elsewhere cannot reach it through a DNS name rebound to 127.0.0.1.
      if (is_loopback_host(config.host) &&
          (req.get_header_value_count("Host") != 1 || !is_loopback_host_header(host, port))) {
        send(res, error_reply(403, "Host '" + valid_utf8(host) +
                                       "' is not this server's loopback address (it answers localhost, 127.0.0.1 "
                                       "and [::1] with its port; gpuplan serve --host opens it up)",
                              "Host"));
        return httplib::Server::HandlerResponse::Handled;
      }
      if (is_api_path(req.path)) {
        // Only the server's own pages, or clients that are no browser, call the API.
        if (auto why = foreign_page(req.get_header_value("Origin"), req.get_header_value("Sec-Fetch-Site"), host)) {
          send(res, error_reply(403, valid_utf8(*why), "Origin"));
          return httplib::Server::HandlerResponse::Handled;
        }
        if (!config.token.empty() && !has_token(req)) {
          send(res, error_reply(401,
                                "this server takes API calls with its token only (Authorization: Bearer TOKEN, "
                                "or open the address gpuplan serve printed, with ?token=, in the browser)",
                                "token"));
          return httplib::Server::HandlerResponse::Handled;
        }
      } else if (!config.token.empty() && req.has_param("token")) {
        // The address printed at start: keep the token in a cookie for the pages' API calls.
        if (!token_matches(req.get_param_value("token"), config.token)) {
          send(res, error_reply(401, "not this server's token", "token"));
          return httplib::Server::HandlerResponse::Handled;
        }
        res.status = 303;
        res.set_header("Location", "/");  // never a path from the request: "//elsewhere" would leave the server
        res.set_header("Set-Cookie", cookie_name() + "=" + config.token + "; Path=/; HttpOnly; SameSite=Strict");
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
      try {
        std::string message, field = "path";
        switch (current_read_failure()) {  // the request was not read in full: why
          case ReadFailure::timed_out:
            res.status = 408;
            break;
          case ReadFailure::headers_too_large:
            res.status = 431;
            break;
          case ReadFailure::body_too_large:
            res.status = 413;
            break;
          case ReadFailure::none:
            break;
        }
        switch (res.status) {
          case 404:
            message = "no such page or API path: " + valid_utf8(req.path) +
                      " (pages: /, /compare, /infer, /train, /search, /recommend, /size, /site; API: /api/v1/<command>, "
                      "/api/v1 lists them)";
            break;
          case 408:
            message = "the request did not arrive in full within " + fmt_seconds(config.request_timeout_s);
            field = "request";
            break;
          case 413:
            message = "request body larger than " + std::to_string(config.max_body_bytes) + " bytes";
            field = "body";
            break;
          case 431:
            message = "request line and headers larger than " + std::to_string(config.max_header_bytes) + " bytes";
            field = "headers";
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
      } catch (...) {  // never let an answer fail: the library would end the process
        res.set_content(R"({"schema":"gpuplan.error/v1","message":"internal error","field":"","exit_code":1})", kJson);
      }
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
      try {
        res.set_content(error_document(valid_utf8(message), "", 1), kJson);
      } catch (...) {
        res.set_content(R"({"schema":"gpuplan.error/v1","message":"internal error","field":"","exit_code":1})", kJson);
      }
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
  if (s.port >= 0) ::listen(s.http.listening_socket(), 1024);  // the library's backlog of 5 drops bursts
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
  s.http.set_stopping();
  s.evaluator.stop();
  // serve() may be between its check and the listening loop: wait for the loop, which stop() ends.
  while (s.serving && !s.http.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  s.http.stop();
}

int Server::port() const { return state_->port; }

std::size_t Server::evaluations_running() const { return state_->evaluator.running(); }

std::string Server::answer_bytes(std::string_view bytes) { return state_->http.answer_bytes(bytes); }

}  // namespace gpuplan::server
