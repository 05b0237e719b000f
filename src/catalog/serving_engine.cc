#include "catalog/serving_engine.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <sstream>

#include "core/error.h"
#include "core/suggest.h"
#include "core/text.h"
#include "core/yaml_reader.h"

namespace gpuplan {
namespace {

std::vector<std::string> words(const std::string& s) {
  std::istringstream in(s);
  std::vector<std::string> out;
  for (std::string w; in >> w;) out.push_back(to_lower(w));
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
  e.vendors = m.str_list("vendors");
  for (size_t i = 0; i < e.vendors.size(); ++i)
    if (e.vendors[i].empty())
      throw InputError(fmt::format("{}.vendors[{}]", m.path(), i),
                       "is empty (expected a vendor such as NVIDIA or AMD)");
  const auto overhead_s = m.opt_num_in("request_overhead_s", 0.0, 60.0);
  e.request_overhead_s = overhead_s.value_or(0.0);
  e.states_request_overhead = overhead_s.has_value();
  e.front_end_of = m.opt_str("front_end_of").value_or("");
  if (m.has("front_end_of") && words(e.front_end_of).empty())
    throw InputError(m.path() + ".front_end_of", "is empty (expected the name of another serving engine, e.g. tensorrt-llm)");
  if (!e.front_end_of.empty() && overhead_s)
    throw InputError(m.path() + ".front_end_of",
                     fmt::format("give either request_overhead_s or front_end_of, not both (the front end of '{}' is "
                                 "that engine's figure)", e.front_end_of));
  e.mtp_accept = m.opt_num_in("mtp_accept", 0.01, 0.99);
  e.host_per_seq_step_s = m.opt_num_in("host_per_seq_step_s", 0.0, 1e-3).value_or(0.0);
  e.moe_gemm_eff = m.opt_num_in("moe_gemm_eff", 0.05, 1.0).value_or(1.0);
  e.mtp_host_step_s = m.opt_num_in("mtp_host_step_s", 0.0, 0.1).value_or(0.0);
  e.mtp_host_per_seq_step_s = m.opt_num_in("mtp_host_per_seq_step_s", 0.0, 1e-3).value_or(0.0);
  e.mtp_eager_draft_extend_s = m.opt_num_in("mtp_eager_draft_extend_s", 0.0, 0.1).value_or(0.0);
  e.prefill_separate = m.opt_boolean("prefill_separate").value_or(false);
  e.kv_admission = m.opt_str("kv_admission").value_or("");
  if (m.has("kv_admission") && e.kv_admission != "reserve_full" && e.kv_admission != "current_length")
    throw InputError(m.path() + ".kv_admission",
                     fmt::format("must be reserve_full or current_length, got '{}'", e.kv_admission));
  e.kv_pool = m.opt_str("kv_pool").value_or("");
  if (m.has("kv_pool") && e.kv_pool != "free_share" && e.kv_pool != "whole_share" && e.kv_pool != "sglang")
    throw InputError(m.path() + ".kv_pool",
                     fmt::format("must be free_share, whole_share or sglang, got '{}'", e.kv_pool));
  e.attention_dp_dense = m.opt_str("attention_dp_dense").value_or("");
  if (m.has("attention_dp_dense") && e.attention_dp_dense != "replicated" && e.attention_dp_dense != "tensor_parallel")
    throw InputError(m.path() + ".attention_dp_dense",
                     fmt::format("must be replicated or tensor_parallel, got '{}'", e.attention_dp_dense));
  e.attention_dp_moe_exchange = m.opt_str("attention_dp_moe_exchange").value_or("");
  if (m.has("attention_dp_moe_exchange") && e.attention_dp_moe_exchange != "all_to_all" &&
      e.attention_dp_moe_exchange != "all_gather" && e.attention_dp_moe_exchange != "all_gather_unless_mnnvl")
    throw InputError(m.path() + ".attention_dp_moe_exchange",
                     fmt::format("must be all_to_all, all_gather or all_gather_unless_mnnvl, got '{}'",
                                 e.attention_dp_moe_exchange));
  e.window_kv = m.opt_str("window_kv").value_or("");
  if (m.has("window_kv") && e.window_kv != "whole_context" && e.window_kv != "window")
    throw InputError(m.path() + ".window_kv", fmt::format("must be whole_context or window, got '{}'", e.window_kv));
  e.newest_release = m.opt_str("newest_release").value_or("");
  if (m.has("newest_release") && e.newest_release.empty())
    throw InputError(m.path() + ".newest_release", "is empty (expected the release the figures describe, e.g. 1.x)");
  if (m.has("releases")) {
    if (e.newest_release.empty())
      throw InputError(m.path() + ".releases", "needs newest_release: the release the other figures describe");
    for (auto& r : m.map_list("releases")) {
      EngineRelease er;
      er.release = r.str("release");
      if (er.release.empty()) throw InputError(r.path() + ".release", "is empty (expected a release such as 1.0)");
      if (to_lower(er.release) == to_lower(e.newest_release) || find_engine_release(e, er.release))
        throw InputError(r.path() + ".release",
                         fmt::format("'{}' is listed twice (or is the newest release, whose figures are the entry's)",
                                     er.release));
      er.moe_kernel_share = r.opt_num_in("moe_kernel_share", 0.05, 1.0).value_or(1.0);
      er.fitted_on = r.opt_str("fitted_on").value_or("");
      er.fitted_date = r.opt_str("fitted_date").value_or("");
      er.method = r.opt_str("method").value_or("");
      r.reject_unknown_keys();
      e.releases.push_back(std::move(er));
    }
  }
  e.fitted_on = m.opt_str("fitted_on").value_or("");
  e.fitted_date = m.opt_str("fitted_date").value_or("");
  e.method = m.opt_str("method").value_or("");
  e.origin = origin;
  m.reject_unknown_keys();
  return e;
}

std::string framework_release(const std::string& framework) {
  for (std::string w : words(framework)) {
    if (!w.empty() && w[0] == 'v') w.erase(0, 1);
    while (!w.empty() && (w.back() == ',' || w.back() == ')' || w.back() == ';')) w.pop_back();
    // A version: digits, then '.' and digits or 'x', and so on ("1.0", "0.20", "1.x", "0.19.0").
    const auto dot = w.find('.');
    if (dot == std::string::npos || dot == 0 || dot + 1 >= w.size()) continue;
    const bool ok = std::all_of(w.begin(), w.end(), [](char c) {
      return std::isdigit(static_cast<unsigned char>(c)) || c == '.' || c == 'x';
    }) && std::isdigit(static_cast<unsigned char>(w[0]));
    if (ok) return w;
  }
  return {};
}

const EngineRelease* find_engine_release(const ServingEngine& e, const std::string& release) {
  const std::string r = to_lower(release);
  for (const auto& x : e.releases)
    if (to_lower(x.release) == r) return &x;
  return nullptr;
}

void resolve_serving_front_ends(std::vector<ServingEngine>& entries, const std::string& where) {
  const auto find = [&](const std::string& name) -> const ServingEngine* {
    const std::string n = normalize_name(name);
    for (const auto& x : entries)
      if (normalize_name(x.name) == n) return &x;
    return nullptr;
  };
  for (auto& e : entries) {
    if (e.front_end_of.empty()) continue;
    const std::string at = fmt::format("{}.{}.front_end_of", where, e.name);
    const ServingEngine* owner = find(e.front_end_of);
    if (!owner) {
      std::vector<std::string> names;
      for (const auto& x : entries)
        if (x.front_end_of.empty() && normalize_name(x.name) != normalize_name(e.name)) names.push_back(x.name);
      throw InputError(at, fmt::format("'{}' is no serving engine of the catalog (engines with a front end of their "
                                       "own: {})", e.front_end_of, fmt::join(names, ", ")));
    }
    if (owner == &e) throw InputError(at, "names the entry itself (name another engine, e.g. tensorrt-llm)");
    if (!owner->front_end_of.empty())
      throw InputError(at, fmt::format("'{}' shares the front end of '{}' itself: name the engine with a figure of its "
                                       "own ('{}'), no chains", owner->name, owner->front_end_of, owner->front_end_of));
  }
  for (auto& e : entries)
    if (!e.front_end_of.empty()) e.request_overhead_s = find(e.front_end_of)->request_overhead_s;
}

bool serving_engine_matches(const ServingEngine& e, const std::string& framework) {
  const std::string f = to_lower(framework);
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
    if (!e.vendors.empty()) out += fmt::format("    vendors: [{}]\n", fmt::join(e.vendors, ", "));
    if (e.front_end_of.empty())
      out += fmt::format("    request_overhead_s: {:.4g}\n", e.request_overhead_s);
    else
      out += fmt::format("    front_end_of: {}\n", e.front_end_of);
    if (e.mtp_accept) out += fmt::format("    mtp_accept: {:.4g}\n", *e.mtp_accept);
    if (e.host_per_seq_step_s > 0) out += fmt::format("    host_per_seq_step_s: {:.4g}\n", e.host_per_seq_step_s);
    if (e.moe_gemm_eff != 1.0) out += fmt::format("    moe_gemm_eff: {:.3g}\n", e.moe_gemm_eff);
    if (e.mtp_host_step_s > 0) out += fmt::format("    mtp_host_step_s: {:.4g}\n", e.mtp_host_step_s);
    if (e.mtp_host_per_seq_step_s > 0)
      out += fmt::format("    mtp_host_per_seq_step_s: {:.4g}\n", e.mtp_host_per_seq_step_s);
    if (e.mtp_eager_draft_extend_s > 0)
      out += fmt::format("    mtp_eager_draft_extend_s: {:.4g}\n", e.mtp_eager_draft_extend_s);
    if (e.prefill_separate) out += "    prefill_separate: true\n";
    if (!e.kv_admission.empty()) out += fmt::format("    kv_admission: {}\n", e.kv_admission);
    if (!e.kv_pool.empty()) out += fmt::format("    kv_pool: {}\n", e.kv_pool);
    if (!e.attention_dp_dense.empty()) out += fmt::format("    attention_dp_dense: {}\n", e.attention_dp_dense);
    if (!e.attention_dp_moe_exchange.empty())
      out += fmt::format("    attention_dp_moe_exchange: {}\n", e.attention_dp_moe_exchange);
    if (!e.window_kv.empty()) out += fmt::format("    window_kv: {}\n", e.window_kv);
    if (!e.newest_release.empty()) out += fmt::format("    newest_release: \"{}\"\n", e.newest_release);
    if (!e.releases.empty()) {
      out += "    releases:\n";
      for (const auto& r : e.releases) {
        out += fmt::format("      - release: \"{}\"\n        moe_kernel_share: {:.3g}\n", r.release,
                           r.moe_kernel_share);
        if (!r.fitted_on.empty()) out += fmt::format("        fitted_on: \"{}\"\n", r.fitted_on);
        if (!r.fitted_date.empty()) out += fmt::format("        fitted_date: \"{}\"\n", r.fitted_date);
        if (!r.method.empty()) out += fmt::format("        method: \"{}\"\n", r.method);
      }
    }
    if (!e.fitted_on.empty()) out += fmt::format("    fitted_on: \"{}\"\n", e.fitted_on);
    if (!e.fitted_date.empty()) out += fmt::format("    fitted_date: \"{}\"\n", e.fitted_date);
    if (!e.method.empty()) out += fmt::format("    method: \"{}\"\n", e.method);
  }
  return out;
}

}  // namespace gpuplan
