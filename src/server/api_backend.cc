#include "server/api_backend.h"

#include <array>

namespace gpuplan::server {

bool served_over_http(std::string_view command) {
  static constexpr std::array<std::string_view, 5> kNot = {"doctor", "probe", "export", "report", "serve"};
  for (auto c : kNot)
    if (c == command) return false;
  return true;
}

Backend api_backend(const api::Session& session) {
  Backend b;
  for (const auto& c : api::commands())
    if (served_over_http(c.name)) b.commands.push_back({c.name, c.help});
  const api::Session* s = &session;
  b.run = [s](std::string_view command, const nlohmann::json& options) { return api::run(*s, command, options); };
  b.report_html = [s](std::string_view kind, const nlohmann::json& options) {
    return api::report_html(*s, kind, options);
  };
  b.does_not_fit = [](const nlohmann::json& doc) { return api::does_not_fit(doc); };
  return b;
}

}  // namespace gpuplan::server
