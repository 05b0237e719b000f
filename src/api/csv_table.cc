#include "api/csv_table.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <sstream>
#include <vector>

#include "core/error.h"

namespace gpuplan::api {

namespace {

bool is_table(const nlohmann::json& v) {
  if (!v.is_array() || v.empty()) return false;
  for (const auto& row : v)
    if (!row.is_object()) return false;
  return true;
}

std::string scalar_text(const nlohmann::json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_null()) return "";
  if (v.is_boolean()) return v.get<bool>() ? "true" : "false";
  return v.dump();  // numbers as JSON writes them: the shortest text that reads back exactly
}

// Flattens one row: nested objects as dotted keys, lists of scalars joined by "; ", other lists as JSON.
void flatten(const nlohmann::json& v, const std::string& prefix, std::vector<std::string>& order,
             std::map<std::string, std::string>& cells) {
  auto put = [&](const std::string& key, std::string text) {
    if (!cells.count(key)) order.push_back(key);
    cells[key] = std::move(text);
  };
  if (v.is_object()) {
    for (const auto& [k, x] : v.items()) flatten(x, prefix.empty() ? k : prefix + "." + k, order, cells);
    return;
  }
  if (v.is_array()) {
    bool scalars = true;
    for (const auto& x : v) scalars = scalars && !x.is_structured();
    if (!scalars) return put(prefix, v.dump());
    std::string joined;
    for (const auto& x : v) joined += (joined.empty() ? "" : "; ") + scalar_text(x);
    return put(prefix, joined);
  }
  put(prefix, scalar_text(v));
}

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

}  // namespace

std::string document_table_key(const nlohmann::json& doc) {
  std::string best;
  size_t rows = 0;
  if (!doc.is_object()) return best;
  for (const auto& [k, v] : doc.items())
    if (is_table(v) && v.size() > rows) {
      best = k;
      rows = v.size();
    }
  return best;
}

std::string document_csv(const nlohmann::json& doc) {
  const std::string key = document_table_key(doc);
  if (key.empty())
    throw InputError("--csv", fmt::format("the {} document has no table (a list of rows) to write as CSV; use --json",
                                          doc.value("schema", std::string("command's"))));
  std::vector<std::string> columns;
  std::vector<std::map<std::string, std::string>> rows;
  for (const auto& row : doc[key]) {
    std::vector<std::string> order;
    std::map<std::string, std::string> cells;
    flatten(row, "", order, cells);
    for (const auto& c : order)
      if (std::find(columns.begin(), columns.end(), c) == columns.end()) columns.push_back(c);
    rows.push_back(std::move(cells));
  }
  // The row's identity first (nlohmann's objects iterate in key order): rank, then name or system.
  for (const char* first : {"system", "name", "rank"}) {
    const auto it = std::find(columns.begin(), columns.end(), first);
    if (it != columns.end()) std::rotate(columns.begin(), it, it + 1);
  }
  std::ostringstream out;
  for (size_t i = 0; i < columns.size(); ++i) out << (i ? "," : "") << csv_field(columns[i]);
  out << "\n";
  for (const auto& cells : rows) {
    for (size_t i = 0; i < columns.size(); ++i) {
      const auto it = cells.find(columns[i]);
      out << (i ? "," : "") << (it == cells.end() ? "" : csv_field(it->second));
    }
    out << "\n";
  }
  return out.str();
}

}  // namespace gpuplan::api
