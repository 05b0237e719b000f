#include "doctor/nvidia_smi.h"

#include <nlohmann/json.hpp>

#include <cctype>
#include <cmath>
#include <sstream>

#include "core/error.h"
#include "core/text.h"

namespace gpuplan::doctor {
namespace {


std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : s) {
    if (c == sep) {
      out.push_back(trim(cur));
      cur.clear();
    } else {
      cur += c;
    }
  }
  out.push_back(trim(cur));
  return out;
}

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) {
    if (!l.empty() && l.back() == '\r') l.pop_back();
    out.push_back(l);
  }
  return out;
}

bool not_available(const std::string& v) {
  return v.empty() || v == "[N/A]" || v == "N/A" || v == "[Not Supported]" || v == "[Unknown Error]";
}

// "81559 MiB" -> 81559 * 2^20 bytes; "700.00 W" -> 700.
// Finite and at most `max` (nvidia-smi's fields are small: indices, MiB, watts, capability digits), so
// what is computed from it cannot overflow.
double leading_number(const std::string& v, const std::string& field, double max = 1e9) {
  if (not_available(v)) return 0;
  double x = 0;
  try {
    x = std::stod(v);
  } catch (const std::exception&) {
    throw InputError("nvidia-smi " + field, "expected a number, got '" + v.substr(0, 80) + "'");
  }
  if (!std::isfinite(x) || x < 0 || x > max)
    throw InputError("nvidia-smi " + field, "expected a number from 0 to " + std::to_string(static_cast<long long>(max)) +
                                                ", got '" + v.substr(0, 80) + "'");
  return x;
}

}  // namespace

std::vector<SmiGpu> parse_smi_query(const std::string& csv) {
  std::vector<std::string> rows;
  for (auto& l : lines(csv))
    if (!trim(l).empty()) rows.push_back(l);
  if (rows.empty()) return {};
  if (rows.size() == 1 && rows[0].find("No devices were found") != std::string::npos) return {};
  const auto header = split(rows[0], ',');
  const auto want = split(kSmiQueryFields, ',');
  if (header.size() != want.size())
    throw InputError("nvidia-smi --query-gpu", "expected the " + std::to_string(want.size()) +
                                                   " columns " + kSmiQueryFields + ", got '" + rows[0] + "'");
  for (size_t i = 0; i < want.size(); ++i)
    if (header[i].rfind(want[i], 0) != 0)  // "memory.total [MiB]" starts with "memory.total"
      throw InputError("nvidia-smi --query-gpu", "column " + std::to_string(i + 1) + " is '" + header[i] +
                                                     "', expected '" + want[i] + "'");
  std::vector<SmiGpu> gpus;
  for (size_t r = 1; r < rows.size(); ++r) {
    const auto f = split(rows[r], ',');
    if (f.size() != want.size())
      throw InputError("nvidia-smi --query-gpu", "row " + std::to_string(r) + " has " +
                                                     std::to_string(f.size()) + " fields: '" + rows[r] + "'");
    SmiGpu g;
    g.index = static_cast<int>(leading_number(f[0], "index", 65535));
    g.name = f[1];
    g.uuid = f[2];
    g.pci_bus_id = f[3];
    g.driver_version = f[4];
    g.memory_bytes = leading_number(f[5], "memory.total") * 1024.0 * 1024.0;
    if (!not_available(f[6])) {
      const auto dot = f[6].find('.');
      if (dot == std::string::npos)
        throw InputError("nvidia-smi compute_cap", "expected MAJOR.MINOR, got '" + f[6] + "'");
      g.compute_capability = static_cast<int>(leading_number(f[6].substr(0, dot), "compute_cap", 99) * 10 +
                                              leading_number(f[6].substr(dot + 1), "compute_cap", 9));
    }
    g.power_limit_w = leading_number(f[7], "power.limit");
    gpus.push_back(g);
  }
  return gpus;
}

int Topology::nvlinks(size_t i, size_t j) const {
  if (i >= link.size() || j >= link[i].size()) return 0;
  const auto& l = link[i][j];
  if (l.size() > 2 && l[0] == 'N' && l[1] == 'V' && std::isdigit(static_cast<unsigned char>(l[2])))
    return l.size() <= 5 ? std::stoi(l.substr(2)) : 0;  // NV1 .. NV999 links; more is not a count
  return 0;
}

Topology parse_topo(const std::string& text) {
  auto ls = lines(text);
  auto words = [](const std::string& l) {
    std::vector<std::string> w;
    std::istringstream in(l);
    for (std::string x; in >> x;) w.push_back(x);
    return w;
  };
  // Strip ANSI escape codes (topo -m bolds the header on a terminal).
  for (auto& l : ls) {
    std::string clean;
    for (size_t i = 0; i < l.size(); ++i) {
      if (l[i] == '\x1b') {
        while (i < l.size() && l[i] != 'm') ++i;
        continue;
      }
      clean += l[i];
    }
    l = clean;
  }
  Topology t;
  size_t h = 0;
  for (; h < ls.size(); ++h) {
    const auto w = words(ls[h]);
    if (!w.empty() && w[0].rfind("GPU", 0) == 0 && w[0].size() > 3 &&
        std::isdigit(static_cast<unsigned char>(w[0][3]))) {
      for (const auto& x : w) {
        if (x.rfind("GPU", 0) == 0 && x.size() > 3 && std::isdigit(static_cast<unsigned char>(x[3])))
          t.gpus.push_back(x);
        else
          break;
      }
      break;
    }
  }
  if (t.gpus.empty()) throw InputError("nvidia-smi topo -m", "no header row naming GPU0, GPU1, ...");
  for (size_t r = h + 1; r < ls.size() && t.link.size() < t.gpus.size(); ++r) {
    const auto w = words(ls[r]);
    if (w.empty() || w[0] != t.gpus[t.link.size()]) continue;
    if (w.size() < t.gpus.size() + 1)
      throw InputError("nvidia-smi topo -m", "row " + w[0] + " has fewer cells than GPUs");
    t.link.emplace_back(w.begin() + 1, w.begin() + 1 + static_cast<long>(t.gpus.size()));
  }
  if (t.link.size() != t.gpus.size())
    throw InputError("nvidia-smi topo -m", "expected a row per GPU (" + std::to_string(t.gpus.size()) +
                                               "), found " + std::to_string(t.link.size()));
  return t;
}

std::optional<std::string> parse_nvcc_version(const std::string& text) {
  const auto p = text.find("release ");
  if (p == std::string::npos) return std::nullopt;
  const auto e = text.find_first_of(", \n", p + 8);
  return text.substr(p + 8, e == std::string::npos ? std::string::npos : e - p - 8);
}

TorchInfo parse_torch_probe(const std::string& text) {
  const auto ls = lines(text);
  for (auto it = ls.rbegin(); it != ls.rend(); ++it) {
    const auto l = trim(*it);
    if (l.empty() || l[0] != '{') continue;
    const auto j = nlohmann::json::parse(l, nullptr, false);
    if (j.is_discarded() || !j.is_object()) break;
    TorchInfo t;
    // Each field is read only when it has its type (j.value() throws on a mistyped one: fuzz finding).
    if (j.contains("version") && j["version"].is_string()) t.version = j["version"];
    if (j.contains("cuda") && j["cuda"].is_string()) t.cuda = j["cuda"];
    if (j.contains("arch_list") && j["arch_list"].is_array())
      for (const auto& a : j["arch_list"])
        if (a.is_string()) t.arch_list.push_back(a);
    if (j.contains("cuda_available") && j["cuda_available"].is_boolean()) t.cuda_available = j["cuda_available"];
    return t;
  }
  throw InputError("python3 torch probe", "no JSON line in its output: '" + trim(text) + "'");
}

int compare_versions(const std::string& a, const std::string& b) {
  auto parts = [](const std::string& v) {
    std::vector<long> p;
    long cur = -1;
    for (char c : v) {
      if (std::isdigit(static_cast<unsigned char>(c))) {
        if (cur < 100000000) cur = (cur < 0 ? 0 : cur * 10) + (c - '0');  // longer runs saturate, no overflow
      } else if (c == '.') {
        p.push_back(cur < 0 ? 0 : cur);
        cur = -1;
      } else {
        break;  // "+cu124", "a0", " (build)"
      }
    }
    if (cur >= 0) p.push_back(cur);
    return p;
  };
  const auto pa = parts(a), pb = parts(b);
  for (size_t i = 0; i < std::max(pa.size(), pb.size()); ++i) {
    const long x = i < pa.size() ? pa[i] : 0, y = i < pb.size() ? pb[i] : 0;
    if (x != y) return x < y ? -1 : 1;
  }
  return 0;
}

std::string cuda_for_driver(const std::string& driver_version) {
  // Minimum Linux x86_64 driver of each CUDA toolkit release (GA), newest first.
  // Source: https://docs.nvidia.com/cuda/cuda-toolkit-release-notes/index.html, table 3.
  static const std::pair<const char*, const char*> kTable[] = {
      {"580.65.06", "13.0"}, {"575.51.03", "12.9"}, {"570.26", "12.8"},    {"560.28.03", "12.6"},
      {"555.42.02", "12.5"}, {"550.54.14", "12.4"}, {"545.23.06", "12.3"}, {"535.54.03", "12.2"},
      {"530.30.02", "12.1"}, {"525.60.13", "12.0"}, {"520.61.05", "11.8"}, {"515.43.04", "11.7"},
      {"510.39.01", "11.6"}, {"495.29.05", "11.5"}, {"470.42.01", "11.4"}, {"465.19.01", "11.3"},
      {"460.27.03", "11.2"}, {"455.23", "11.1"},    {"450.36.06", "11.0"}};
  for (const auto& [driver, cuda] : kTable)
    if (compare_versions(driver_version, driver) >= 0) return cuda;
  return "";
}

}  // namespace gpuplan::doctor
