#include "core/numbers.h"

#include <fmt/format.h>

#include <cmath>

namespace gpuplan {

std::string with_commas(double v, int decimals) {
  if (!std::isfinite(v)) return "-";
  const std::string s = fmt::format("{:.{}f}", std::fabs(v), decimals);
  const std::size_t dot = s.find('.');
  const std::size_t end = dot == std::string::npos ? s.size() : dot;
  std::string out;
  out.reserve(s.size() + end / 3 + 1);
  if (v < 0 && s.find_first_not_of("0.") != std::string::npos) out.push_back('-');
  for (std::size_t i = 0; i < end; ++i) {
    if (i > 0 && (end - i) % 3 == 0) out.push_back(',');
    out.push_back(s[i]);
  }
  out.append(s, end, std::string::npos);
  return out;
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
  if (i) {
    s += ' ';
    s += words[i];
  }
  return s;
}

}  // namespace

std::string usd_text(double usd) {
  if (!std::isfinite(usd)) return "-";
  if (std::fabs(usd) < 10) return fmt::format("${:.2f}", usd);
  std::string out = "$";
  out += std::fabs(usd) < 1e6 ? with_commas(usd) : scaled(usd);
  return out;
}

std::string count_text(double n, const std::string& unit) {
  if (!std::isfinite(n)) return "-";
  const std::string num = std::fabs(n) < 1e6 ? with_commas(n, std::fabs(n) < 10 && n != std::floor(n) ? 1 : 0)
                                              : scaled(n);
  if (unit.empty()) return num;
  std::string out = num;
  out += ' ';
  out += unit;
  return out;
}

}  // namespace gpuplan
