#include "api/text.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

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

std::string probability_text(double p) {
  const double pct = 100.0 * p;
  if (pct < 0.1) return "< 0.1%";
  if (pct > 99.9) return "> 99.9%";
  if (pct < 1 || pct > 99) return fmt::format("{:.1f}%", pct);
  return fmt::format("{:.0f}%", pct);
}

void print_table(std::ostream& os, const std::vector<std::string>& header,
                 const std::vector<std::vector<std::string>>& rows, int left_columns) {
  std::vector<size_t> w(header.size());
  std::vector<bool> right(header.size(), true);
  for (size_t i = 0; i < header.size(); ++i) {
    w[i] = header[i].size();
    if (left_columns >= 0) right[i] = static_cast<int>(i) >= left_columns;
  }
  for (const auto& r : rows) {
    for (size_t i = 0; i < r.size() && i < w.size(); ++i) {
      w[i] = std::max(w[i], r[i].size());
      if (left_columns < 0 && !r[i].empty() && !std::isdigit(static_cast<unsigned char>(r[i][0])) && r[i] != "-")
        right[i] = false;
    }
  }
  auto line = [&](const std::vector<std::string>& r) {
    std::string out;
    for (size_t i = 0; i < r.size(); ++i) {
      if (i) out += "  ";
      out += right[i] ? fmt::format("{:>{}}", r[i], w[i]) : fmt::format("{:<{}}", r[i], w[i]);
    }
    while (!out.empty() && out.back() == ' ') out.pop_back();
    os << out << "\n";
  };
  line(header);
  std::vector<std::string> rule;
  for (size_t x : w) rule.emplace_back(x, '-');
  line(rule);
  for (const auto& r : rows) line(r);
}

}  // namespace gpuplan::api
