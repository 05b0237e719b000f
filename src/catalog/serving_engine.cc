#include "catalog/serving_engine.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <sstream>

#include "core/error.h"
#include "core/yaml_reader.h"

namespace gpuplan {
namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

std::vector<std::string> words(const std::string& s) {
  std::istringstream in(s);
  std::vector<std::string> out;
  for (std::string w; in >> w;) out.push_back(lower(w));
  return out;
}

}  // namespace

ServingEngine parse_serving_engine(YamlMap& m, const std::string& origin) {
  ServingEngine e;
  e.name = m.str("name");
  e.match = m.str_list("match");
  for (size_t i = 0; i < e.match.size(); ++i)
    if (words(e.match[i]).empty())
      throw InputError(m.path() + ".match", fmt::format("alternative {} is empty (expected words such as \"dynamo sglang\")", i));
  e.request_overhead_s = m.opt_num_in("request_overhead_s", 0.0, 60.0).value_or(0.0);
  e.mtp_accept = m.opt_num_in("mtp_accept", 0.01, 0.99);
  e.host_per_seq_step_s = m.opt_num_in("host_per_seq_step_s", 0.0, 1e-3).value_or(0.0);
  e.fitted_on = m.opt_str("fitted_on").value_or("");
  e.fitted_date = m.opt_str("fitted_date").value_or("");
  e.method = m.opt_str("method").value_or("");
  e.origin = origin;
  m.reject_unknown_keys();
  return e;
}

bool serving_engine_matches(const ServingEngine& e, const std::string& framework) {
  const std::string f = lower(framework);
  for (const auto& alt : e.match) {
    const auto ws = words(alt);
    if (!ws.empty() && std::all_of(ws.begin(), ws.end(), [&](const std::string& w) { return f.find(w) != std::string::npos; }))
      return true;
  }
  return false;
}

std::string serving_engines_to_yaml(const std::vector<ServingEngine>& entries, const std::string& header_comment) {
  std::string out;
  std::istringstream hc(header_comment);
  for (std::string line; std::getline(hc, line);) out += "# " + line + "\n";
  out += "serving_engines:\n";
  for (const auto& e : entries) {
    out += fmt::format("  - name: {}\n", e.name);
    if (!e.match.empty()) {
      std::vector<std::string> q;
      for (const auto& a : e.match) q.push_back("\"" + a + "\"");
      out += fmt::format("    match: [{}]\n", fmt::join(q, ", "));
    }
    out += fmt::format("    request_overhead_s: {:.4g}\n", e.request_overhead_s);
    if (e.mtp_accept) out += fmt::format("    mtp_accept: {:.4g}\n", *e.mtp_accept);
    if (e.host_per_seq_step_s > 0) out += fmt::format("    host_per_seq_step_s: {:.4g}\n", e.host_per_seq_step_s);
    if (!e.fitted_on.empty()) out += fmt::format("    fitted_on: \"{}\"\n", e.fitted_on);
    if (!e.fitted_date.empty()) out += fmt::format("    fitted_date: \"{}\"\n", e.fitted_date);
    if (!e.method.empty()) out += fmt::format("    method: \"{}\"\n", e.method);
  }
  return out;
}

}  // namespace gpuplan
