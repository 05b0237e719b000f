#include "cli/numbers.h"

#include <fmt/format.h>

#include <cmath>

namespace gpuplan::cli {

std::string with_commas(double v, int decimals) {
  if (!std::isfinite(v)) return "-";
  const bool neg = v < 0;
  std::string s = fmt::format("{:.{}f}", std::fabs(v), decimals);
  const std::size_t dot = s.find('.');
  std::size_t end = dot == std::string::npos ? s.size() : dot;
  for (std::ptrdiff_t i = static_cast<std::ptrdiff_t>(end) - 3; i > 0; i -= 3) s.insert(static_cast<std::size_t>(i), ",");
  return neg ? "-" + s : s;
}

namespace {

// 1.25e6 -> "1.25 M": three significant figures and the scale word.
std::string scaled(double v) {
  const char* words[] = {"", "k", "M", "B", "T", "P"};
  int i = 0;
  while (std::fabs(v) >= 1000.0 && i < 5) {
    v /= 1000.0;
    ++i;
  }
  const int decimals = std::fabs(v) >= 100 ? 0 : std::fabs(v) >= 10 ? 1 : 2;
  std::string s = fmt::format("{:.{}f}", v, decimals);
  if (s.find('.') != std::string::npos) {  // "15.0" -> "15", "1.50" -> "1.5"
    while (s.back() == '0') s.pop_back();
    if (s.back() == '.') s.pop_back();
  }
  return s + (i ? std::string(" ") + words[i] : "");
}

}  // namespace

std::string usd_text(double usd) {
  if (!std::isfinite(usd)) return "-";
  if (std::fabs(usd) < 10) return fmt::format("${:.2f}", usd);
  if (std::fabs(usd) < 1e6) return "$" + with_commas(usd);
  return "$" + scaled(usd);
}

std::string count_text(double n, const std::string& unit) {
  if (!std::isfinite(n)) return "-";
  const std::string num = std::fabs(n) < 1e6 ? with_commas(n, std::fabs(n) < 10 && n != std::floor(n) ? 1 : 0)
                                              : scaled(n);
  return unit.empty() ? num : num + " " + unit;
}

}  // namespace gpuplan::cli
