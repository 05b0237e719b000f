#include "core/csv.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "core/input_file.h"
#include "core/error.h"

namespace gpuplan {

int CsvTable::column(const std::string& name) const {
  for (size_t i = 0; i < header.size(); ++i)
    if (header[i] == name) return static_cast<int>(i);
  return -1;
}

const std::string& CsvTable::cell(size_t row, const std::string& name) const {
  static const std::string empty;
  const int c = column(name);
  if (c < 0 || row >= rows.size() || static_cast<size_t>(c) >= rows[row].size()) return empty;
  return rows[row][static_cast<size_t>(c)];
}

namespace {

// Thousands groups written into the number ("23,406", "1,234,567.5"): the digits without the commas
// and what follows them; `s` unchanged when it does not start with such a number (a note's "8, 16" is
// two numbers, "8,16" no grouping).
std::string without_thousands_groups(const std::string& s) {
  auto digit = [&](size_t k) { return k < s.size() && std::isdigit(static_cast<unsigned char>(s[k])); };
  size_t i = (!s.empty() && (s[0] == '+' || s[0] == '-')) ? 1 : 0;
  const size_t first = i;
  while (digit(i)) ++i;
  if (i == first || i - first > 3) return s;
  size_t groups = 0;
  // ",ddd" not followed by a fourth digit.
  while (i < s.size() && s[i] == ',' && digit(i + 1) && digit(i + 2) && digit(i + 3) && !digit(i + 4)) {
    i += 4;
    ++groups;
  }
  if (groups == 0) return s;
  std::string out;
  for (size_t k = 0; k < i; ++k)
    if (s[k] != ',') out += s[k];
  return out + s.substr(i);
}

std::string trimmed(const std::string& cell) {
  size_t b = 0, e = cell.size();
  while (b < e && std::isspace(static_cast<unsigned char>(cell[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(cell[e - 1]))) --e;
  return cell.substr(b, e - b);
}

}  // namespace

bool parse_cell_number(const std::string& cell, double& out) {
  const std::string s = without_thousands_groups(trimmed(cell));
  if (s.empty()) return false;
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(s.c_str(), &end);
  if (end == s.c_str() || errno == ERANGE || !std::isfinite(v)) return false;
  // A magnitude suffix on the digits ("8k", "23.4K") changes the number: not read as the 8 before it
  // (token lengths: parse_token_count_cell).
  if ((*end == 'k' || *end == 'K') && !std::isalnum(static_cast<unsigned char>(end[1]))) return false;
  constexpr double kMax = 2147483647.0;
  if (v > kMax || v < -kMax) return false;
  out = v;
  return true;
}

bool parse_token_count_cell(const std::string& cell, double& out) {
  const std::string s = trimmed(cell);
  if (s.size() >= 2 && (s.back() == 'k' || s.back() == 'K')) {
    const std::string digits = s.substr(0, s.size() - 1);
    if (digits.empty() || digits.size() > 6 ||
        !std::all_of(digits.begin(), digits.end(), [](char ch) { return std::isdigit(static_cast<unsigned char>(ch)); }))
      return false;
    out = std::stod(digits) * 1024.0;
    return true;
  }
  return parse_cell_number(s, out);
}

CsvTable parse_csv(const std::string& text, const std::string& origin) {
  CsvTable t;
  std::vector<std::string> record;
  std::string field;
  bool quoted = false, any = false;
  size_t line = 1;
  auto end_record = [&] {
    record.push_back(field);
    field.clear();
    if (t.header.empty()) t.header = record;
    else if (!(record.size() == 1 && record[0].empty())) t.rows.push_back(record);
    record.clear();
    any = false;
  };
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c == '"') {
        if (i + 1 < text.size() && text[i + 1] == '"') {
          field.push_back('"');
          ++i;
        } else {
          quoted = false;
        }
      } else {
        if (c == '\n') ++line;
        field.push_back(c);
      }
      continue;
    }
    if (c == '"') {
      quoted = true;
      any = true;
    } else if (c == ',') {
      record.push_back(field);
      field.clear();
      any = true;
    } else if (c == '\n' || (c == '\r' && (i + 1 == text.size() || text[i + 1] != '\n'))) {
      ++line;
      end_record();
    } else if (c != '\r') {
      field.push_back(c);
      any = true;
    }
  }
  if (quoted) throw InputError(origin, "unterminated quoted field at end of file (line " + std::to_string(line) + ")");
  if (any || !field.empty()) end_record();
  if (t.header.empty()) throw InputError(origin, "empty CSV file (no header)");
  return t;
}

CsvTable read_csv_file(const std::string& path, const std::string& field) {
  return parse_csv(read_input_file(path, field), path);
}

}  // namespace gpuplan
