#include "api/text.h"

#include <fmt/format.h>

namespace gpuplan::api {

std::string human_bytes(double bytes) {
  const char* units[] = {"B", "KB", "MB", "GB", "TB", "PB"};
  int i = 0;
  while (bytes >= 1000.0 && i < 5) {
    bytes /= 1000.0;
    ++i;
  }
  return fmt::format("{:.1f} {}", bytes, units[i]);
}

std::string human_rate(double per_s, const char* unit) {
  const char* prefixes[] = {"", "K", "M", "G", "T", "P", "E"};
  int i = 0;
  while (per_s >= 1000.0 && i < 6) {
    per_s /= 1000.0;
    ++i;
  }
  return fmt::format("{:.1f} {}{}", per_s, prefixes[i], unit);
}

}  // namespace gpuplan::api
