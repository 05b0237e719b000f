#include <string>

#include "report/kinds.h"

namespace gpuplan::report {

namespace {

std::string value_text(const nlohmann::json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_null()) return "";
  return v.dump();
}

}  // namespace

std::vector<Figure> catalog_figures(const Source& src) {
  std::vector<Figure> out;
  const nlohmann::json& e = src.doc.value("entry", nlohmann::json::object());
  const std::string entry = e.value("name", std::string("?")) + " (" + src.doc.value("kind", std::string("entry")) + ")";
  const nlohmann::json sources = e.value("sources", nlohmann::json::object());
  auto source_of = [&](const std::string& field) {
    if (sources.contains(field) && sources[field].is_string()) return sources[field].get<std::string>();
    const auto dot = field.find('.');
    if (dot != std::string::npos && sources.contains(field.substr(0, dot)) && sources[field.substr(0, dot)].is_string())
      return sources[field.substr(0, dot)].get<std::string>();
    return sources.contains("*") && sources["*"].is_string() ? sources["*"].get<std::string>() : std::string();
  };
  for (const auto& [key, v] : e.items()) {
    if (key == "sources" || key == "name" || key == "aliases" || key == "origin" || key == "display_name") continue;
    if (v.is_object()) {
      for (const auto& [sub, sv] : v.items())
        if (!sv.is_structured() && !sv.is_null()) out.push_back({entry, key + "." + sub, value_text(sv), source_of(key + "." + sub)});
    } else if (v.is_array()) {
      std::string joined;
      for (const auto& x : v) joined += (joined.empty() ? "" : "; ") + value_text(x);
      if (!joined.empty()) out.push_back({entry, key, joined, source_of(key)});
    } else if (!v.is_null()) {
      out.push_back({entry, key, value_text(v), source_of(key)});
    }
  }
  return out;
}

}  // namespace gpuplan::report
