// The request router of `gpuplan serve` and its query parsing: any bytes on a connection (request
// lines, escapes such as %ff, headers, bodies, several requests in a row) are answered with an HTTP
// status and, for an error, a JSON document that parses; the server never throws nor crashes. The
// backend is a stand-in that echoes its options (so request text reaches a JSON document), refuses
// some and throws on others; the one API behind it has harnesses of its own.
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <memory>
#include <stdexcept>
#include <string>

#include "core/error.h"
#include "fuzz_common.h"
#include "server/request.h"
#include "server/server.h"

namespace {

using gpuplan::server::Backend;

Backend stand_in() {
  Backend b;
  b.commands = {{"echo", "returns its options"}, {"fail", "bad input"}, {"crash", "throws"}};
  b.run = [](std::string_view command, const nlohmann::json& options) -> nlohmann::json {
    if (command == "fail" || options.contains("bad")) throw gpuplan::InputError("gpus", "refused: " + options.dump(-1, ' ', false, nlohmann::json::error_handler_t::ignore));
    if (command == "crash") throw std::runtime_error("boom " + std::string(command));
    return {{"schema", "gpuplan.echo/v1"}, {"options", options}, {"fits", !options.contains("huge")}};
  };
  b.report_html = [](std::string_view kind, const nlohmann::json& options) {
    if (options.contains("gpus")) throw gpuplan::InputError("gpus", "must be at least 1");
    return "<!doctype html><title>" + std::string(kind) + "</title>";
  };
  b.does_not_fit = [](const nlohmann::json& doc) { return doc.contains("fits") && !doc["fits"].get<bool>(); };
  return b;
}

gpuplan::server::Server& server() {
  static auto s = [] {
    gpuplan::server::Options o;
    o.port = 8080;
    o.threads = 4;
    o.timeout_s = 5;
    o.max_body_bytes = 4096;
    o.max_query_bytes = 1024;
    return std::make_unique<gpuplan::server::Server>(stand_in(), o);
  }();
  return *s;
}

// An answer starts with a status line of a status the server sends: the error handler ran, or the
// library closed the connection without a word (empty).
void check_answers(const std::string& out) {
  if (out.empty()) return;
  if (out.size() < 12 || out.compare(0, 9, "HTTP/1.1 ") != 0) std::abort();
  const int status = std::atoi(out.substr(9, 3).c_str());
  if (status < 200 || status > 599) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string bytes = gpuplan::fuzz::text_of(data, size);
  // The router, over a whole connection's bytes.
  check_answers(server().answer_bytes(bytes));
  // The same bytes as a path and query of a well-formed request (escapes, separators, any byte).
  std::string target = "/api/v1/echo?";
  for (char c : bytes) target += (c == ' ' || c == '\r' || c == '\n') ? '+' : c;
  check_answers(server().answer_bytes("GET " + target + " HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n\r\n"));
  // Query parsing on its own: key/value pairs split at '&' and '='.
  gpuplan::fuzz::expect_clean([&] {
    std::vector<std::pair<std::string, std::string>> params;
    std::size_t pos = 0;
    while (pos <= bytes.size()) {
      auto end = bytes.find('&', pos);
      if (end == std::string::npos) end = bytes.size();
      const std::string part = bytes.substr(pos, end - pos);
      const auto eq = part.find('=');
      params.emplace_back(part.substr(0, eq), eq == std::string::npos ? "" : part.substr(eq + 1));
      pos = end + 1;
    }
    const auto options = gpuplan::server::checked_options(gpuplan::server::options_from_query(params));
    (void)gpuplan::server::command_line("echo", options);
  });
  gpuplan::fuzz::expect_clean([&] { (void)gpuplan::server::options_from_body(bytes); });
  return 0;
}
