#include "recipe/recipe_dates.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <vector>

namespace gpuplan {

bool is_recipe_date(const std::string& d) {
  return d.size() == 10 && d[4] == '-' && d[7] == '-' &&
         std::all_of(d.begin(), d.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)) || c == '-'; });
}

namespace {

std::optional<std::string> iso_day(int y, int m, int d) {
  static const int kDays[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  if (y < 1990 || y > 2200 || m < 1 || m > 12 || d < 1 || d > kDays[m - 1]) return std::nullopt;
  const bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
  if (m == 2 && d == 29 && !leap) return std::nullopt;
  return fmt::format("{:04d}-{:02d}-{:02d}", y, m, d);
}

int month_of(const std::string& word) {
  static const char* kMonths[] = {"jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"};
  if (word.size() < 3) return 0;
  std::string w;
  for (char c : word) w += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (int k = 0; k < 12; ++k)
    if (w.compare(0, 3, kMonths[k]) == 0) return k + 1;
  return 0;
}

}  // namespace

std::optional<std::string> read_row_date(const std::string& cell) {
  if (cell.size() > 64) return std::nullopt;
  // Split into runs of digits and of letters; separators are everything else.
  std::vector<std::string> parts;
  std::vector<bool> numeric;
  std::string cur;
  bool cur_num = false;
  for (char ch : cell) {
    const auto c = static_cast<unsigned char>(ch);
    const bool is_num = std::isdigit(c) != 0, is_alpha = std::isalpha(c) != 0;
    if ((is_num || is_alpha) && !cur.empty() && is_num == cur_num) {
      cur += ch;
      continue;
    }
    if (!cur.empty()) parts.push_back(cur), numeric.push_back(cur_num), cur.clear();
    if (is_num || is_alpha) cur = std::string(1, ch), cur_num = is_num;
    if (ch == 'T' && parts.size() == 3) break;  // ISO date-time: the day is enough
  }
  if (!cur.empty()) parts.push_back(cur), numeric.push_back(cur_num);
  if (parts.size() < 3) return std::nullopt;
  auto num = [&](size_t k) { return std::atoi(parts[k].c_str()); };
  // Numeric: Y M D (the year first, four digits), or D M Y / M D Y (the year last).
  if (numeric[0] && numeric[1] && numeric[2]) {
    if (parts[0].size() == 4) return iso_day(num(0), num(1), num(2));
    if (parts[2].size() != 4) return std::nullopt;
    const bool dotted = cell.find('.') != std::string::npos && cell.find('/') == std::string::npos;
    if (dotted) return iso_day(num(2), num(1), num(0));  // 13.02.2026: day first, as written in Europe
    if (num(0) > 12) return iso_day(num(2), num(1), num(0));
    if (num(1) > 12) return iso_day(num(2), num(0), num(1));
    return std::nullopt;  // 02/03/2026: March 2 or February 3
  }
  // With a month name: "Feb 13, 2026" or "13 February 2026".
  if (!numeric[0] && numeric[1] && numeric[2] && parts[2].size() == 4) return iso_day(num(2), month_of(parts[0]), num(1));
  if (numeric[0] && !numeric[1] && numeric[2] && parts[2].size() == 4) return iso_day(num(2), month_of(parts[1]), num(0));
  return std::nullopt;
}

bool recipe_date_in_range(const std::string& date, const std::string& from, const std::string& to) {
  return date >= from && (to.empty() || date <= to);
}

bool recipe_date_ranges_meet(const std::string& a_from, const std::string& a_to, const std::string& b_from,
                             const std::string& b_to) {
  return (a_to.empty() || b_from <= a_to) && (b_to.empty() || a_from <= b_to);
}

}  // namespace gpuplan
