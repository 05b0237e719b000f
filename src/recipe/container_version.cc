#include "recipe/container_version.h"

#include <fmt/format.h>

#include <regex>

namespace gpuplan {

std::optional<ContainerVersion> parse_container_version(std::string_view text) {
  static const std::regex re(R"(v?(\d\d)\.(\d\d)(?:\.(\d\d))?)");
  std::cmatch m;
  if (!std::regex_match(text.begin(), text.end(), m, re)) return std::nullopt;
  ContainerVersion v{std::stoi(m.str(1)), std::stoi(m.str(2)), m[3].matched ? std::stoi(m.str(3)) : 0};
  if (v.month < 1 || v.month > 12) return std::nullopt;
  return v;
}

std::string to_string(const ContainerVersion& v) {
  return v.patch ? fmt::format("{:02}.{:02}.{:02}", v.year, v.month, v.patch) : fmt::format("{:02}.{:02}", v.year, v.month);
}

}  // namespace gpuplan
