#include "validate/scenario_rules.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <optional>
#include <regex>
#include <tuple>
#include <utility>

#include "core/embedded_data.h"
#include "core/error.h"
#include "core/text.h"
#include "core/yaml_reader.h"
#include "core/yaml_tree.h"

namespace gpuplan {

namespace {

constexpr const char* kScenariosFile = "serving/mlperf_scenarios.yaml";

bool contains(const std::string& s, const std::string& what) { return s.find(what) != std::string::npos; }

struct MlperfScenarioRules {
  std::vector<MlperfBenchmark> benchmarks;
  std::vector<MlperfHarness> harnesses;
};

// "0.6" -> {0, 6}; a malformed release is an InputError naming the field.
std::pair<int, int> release(const std::string& text, const std::string& field) {
  int major = 0, minor = 0;
  char dot = 0, rest = 0;
  if (std::sscanf(text.c_str(), "%d%c%d%c", &major, &dot, &minor, &rest) != 3 || dot != '.' || major < 0 ||
      minor < 0)
    throw InputError(field, fmt::format("must be a release 'MAJOR.MINOR', got '{}'", text));
  return {major, minor};
}

MlperfHarness read_harness(YamlMap& m) {
  MlperfHarness h;
  h.name = m.str("name");
  h.engine = m.str("engine");
  h.vendor = m.str("vendor");
  if (m.has("accelerators")) h.accelerators = m.str_list("accelerators");
  if (m.has("engine_versions")) {
    const std::vector<std::string> versions = m.str_list("engine_versions");
    const std::string field = m.path() + ".engine_versions";
    if (versions.size() != 2)
      throw InputError(field, fmt::format("must list two releases [first, end), got {}", versions.size()));
    std::tie(h.first_major, h.first_minor) = release(versions[0], field);
    std::tie(h.end_major, h.end_minor) = release(versions[1], field);
    if (std::pair(h.end_major, h.end_minor) <= std::pair(h.first_major, h.first_minor))
      throw InputError(field,
                       fmt::format("the end release {} must come after the first {}", versions[1], versions[0]));
    h.has_versions = true;
  }
  if (m.has("rounds")) h.rounds = m.str_list("rounds");
  for (auto& r : h.rounds) r = to_lower(r);
  if (m.has("benchmarks")) h.benchmarks = m.str_list("benchmarks");
  h.scenarios = m.str_list("scenarios");
  if (h.scenarios.empty()) throw InputError(m.path() + ".scenarios", "must list at least one scenario");
  for (auto& sc : h.scenarios) {
    sc = to_lower(sc);
    if (sc != "offline" && sc != "server" && sc != "interactive")
      throw InputError(m.path() + ".scenarios", fmt::format("must be offline, server or interactive, got '{}'", sc));
  }
  h.scheduler_steps = static_cast<int>(m.opt_integer_in("scheduler_steps", 1, 1000).value_or(1));
  h.tp = static_cast<int>(m.opt_integer_in("tp", 1, 4096).value_or(0));
  h.pp = static_cast<int>(m.opt_integer_in("pp", 1, 4096).value_or(h.tp > 0 ? 1 : 0));
  h.ep = static_cast<int>(m.opt_integer_in("ep", 1, 4096).value_or(0));
  h.attention_dp = m.opt_boolean("attention_dp").value_or(false);
  h.max_num_tokens = m.opt_integer_in("max_num_tokens", 1, 10000000).value_or(0);
  h.max_batch_size = m.opt_integer_in("max_batch_size", 1, 10000000).value_or(0);
  h.kv_admission = m.opt_str("kv_admission").value_or("");
  if (!h.kv_admission.empty() && h.kv_admission != "current_length" && h.kv_admission != "reserve_full")
    throw InputError(m.path() + ".kv_admission",
                     fmt::format("must be current_length or reserve_full, got '{}'", h.kv_admission));
  const std::string ctx_attention = m.opt_str("context_attention").value_or("bf16");
  if (ctx_attention != "bf16" && ctx_attention != "fp8")
    throw InputError(m.path() + ".context_attention", fmt::format("must be bf16 or fp8, got '{}'", ctx_attention));
  h.fp8_context_attention = ctx_attention == "fp8";
  h.runs = m.opt_str("runs").value_or("");
  if ((h.pp > 0 || h.ep > 0 || h.attention_dp) && h.tp == 0)
    throw InputError(m.path() + ".tp", "must be stated with pp, ep or attention_dp");
  if (h.attention_dp && h.ep == 0) throw InputError(m.path() + ".ep", "must be stated with attention_dp");
  h.source = m.str("source");
  m.reject_unknown_keys();
  return h;
}

MlperfScenarioRules load_scenario_rules() {
  MlperfScenarioRules rules;
  std::vector<MlperfBenchmark>& out = rules.benchmarks;
  for (const EmbeddedFile& f : embedded_data_files()) {
    if (f.path != kScenariosFile) continue;
    YamlMap top(embedded_yaml(f), kScenariosFile);
    top.str("schema");
    if (top.has("harnesses"))
      for (YamlMap& m : top.map_list("harnesses")) rules.harnesses.push_back(read_harness(m));
    for (YamlMap& m : top.map_list("benchmarks")) {
      MlperfBenchmark b;
      b.name = m.str("name");
      b.match = m.str_list("match");
      b.models = m.str_list("models");
      b.isl_mean = m.num_in("isl_mean", 1, 1e6);
      b.isl_basis = m.str("isl_basis");
      b.osl_mean = m.num_in("osl_mean", 1, 1e6);
      b.isl_max = m.integer_in("isl_max", 0, 10000000);
      b.osl_max = m.integer_in("osl_max", 0, 10000000);
      b.server.ttft_ms = m.num_in("server_ttft_ms", 0, 1e6);
      b.server.tpot_ms = m.num_in("server_tpot_ms", 0, 1e5);
      b.interactive.ttft_ms = m.opt_num_in("interactive_ttft_ms", 0, 1e6).value_or(0);
      b.interactive.tpot_ms = m.opt_num_in("interactive_tpot_ms", 0, 1e5).value_or(0);
      b.source = m.str("source");
      for (auto& s : b.match) s = to_lower(s);
      m.reject_unknown_keys();
      out.push_back(std::move(b));
    }
    top.reject_unknown_keys();
  }
  if (out.empty()) throw InputError("data", std::string(kScenariosFile) + " is missing or lists no benchmarks");
  return rules;
}

const MlperfScenarioRules& mlperf_scenario_rules() {
  static const MlperfScenarioRules table = load_scenario_rules();
  return table;
}

// The release the framework cell states after the engine's name: "vLLM 0.9.0.2.dev108+g71f", "vLLM v0.6.5".
std::optional<std::pair<int, int>> stated_release(const std::string& framework, const std::string& engine) {
  const std::string f = to_lower(framework);
  const auto at = f.find(to_lower(engine));
  if (at == std::string::npos) return std::nullopt;
  std::size_t i = at + engine.size();
  while (i < f.size() && (f[i] == ' ' || f[i] == '-' || f[i] == '_')) ++i;
  if (i < f.size() && f[i] == 'v') ++i;
  int major = 0, minor = 0;
  char dot = 0;
  if (i >= f.size() || !std::isdigit(static_cast<unsigned char>(f[i])) ||
      std::sscanf(f.c_str() + i, "%d%c%d", &major, &dot, &minor) != 3 || dot != '.')
    return std::nullopt;
  return std::pair(major, minor);
}

const MlperfBenchmark* by_name(const std::string& name) {
  for (const auto& b : mlperf_benchmarks())
    if (b.name == name) return &b;
  return nullptr;
}

}  // namespace

const std::vector<MlperfBenchmark>& mlperf_benchmarks() { return mlperf_scenario_rules().benchmarks; }

const std::vector<MlperfHarness>& mlperf_harnesses() { return mlperf_scenario_rules().harnesses; }

const MlperfHarness* find_mlperf_harness(const MlperfHarnessQuery& q) {
  if (q.engine.empty()) return nullptr;
  const auto version = stated_release(q.framework, q.engine);
  const std::string scenario = to_lower(q.scenario), bench = to_lower(q.benchmark), round = to_lower(q.round);
  const auto in = [](const std::vector<std::string>& list, const std::string& v) {
    return std::any_of(list.begin(), list.end(), [&](const std::string& x) { return to_lower(x) == to_lower(v); });
  };
  for (const auto& h : mlperf_harnesses()) {
    if (h.engine != q.engine || to_lower(h.vendor) != to_lower(q.vendor) || !in(h.scenarios, scenario)) continue;
    if (!h.accelerators.empty() && !in(h.accelerators, q.accelerator)) continue;
    if (!h.rounds.empty() && !in(h.rounds, round)) continue;
    if (!h.benchmarks.empty() &&
        !std::any_of(h.benchmarks.begin(), h.benchmarks.end(), [&](const std::string& b) {
          return to_lower(b) == bench || to_lower(b) + "-interactive" == bench;
        }))
      continue;
    if (h.has_versions && (!version || *version < std::pair(h.first_major, h.first_minor) ||
                           *version >= std::pair(h.end_major, h.end_minor)))
      continue;
    return &h;
  }
  return nullptr;
}

std::string mlperf_round(const std::string& url, const std::string& source_id) {
  static const std::regex in_url(R"(inference_results_(v\d+\.\d+)(?![\d.]))", std::regex::icase);
  static const std::regex in_id(R"(mlperf[-_ ]?(?:inference[-_ ]?)?(v\d+\.\d+)(?![\d.]))", std::regex::icase);
  std::smatch m;
  if (std::regex_search(url, m, in_url)) return to_lower(m[1].str());
  if (std::regex_search(source_id, m, in_id)) return to_lower(m[1].str());
  return "";
}

const MlperfBenchmark* find_mlperf_benchmark(bool mlperf_source, const std::string& url,
                                             const std::string& notes, const std::string& model_name,
                                             const std::string& scenario) {
  const std::string u = to_lower(url), n = to_lower(notes), model = to_lower(model_name);
  const bool mlperf_url = contains(u, "mlcommons") || contains(u, "mlperf") || contains(u, "inference_results");
  const MlperfBenchmark* found = nullptr;
  for (const auto& b : mlperf_benchmarks()) {
    for (const auto& key : b.match)
      if (contains(n, "benchmark " + key) || ((mlperf_url || mlperf_source) && contains(u, key))) found = &b;
    if (found) break;
  }
  if (!found && mlperf_source) {
    for (const auto& b : mlperf_benchmarks()) {
      for (const auto& frag : b.models)
        if (contains(model, frag)) found = &b;
      if (found) break;
    }
  }
  // MLPerf's Interactive scenario is the Server scenario of the benchmark's interactive variant.
  if (found && scenario == "interactive" && !contains(found->name, "interactive"))
    if (const MlperfBenchmark* v = by_name(found->name + "-interactive")) found = v;
  return found;
}

std::optional<std::string> mlperf_open_model_change(const MlperfBenchmark* benchmark, const std::string& url) {
  if (!benchmark) return std::nullopt;
  // The results path names the division and the system (open/<submitter>/results/<system>/...); a model's
  // own words in the notes ("DeepSeek sparse attention") are not a change to it.
  const std::string u = to_lower(url);
  const auto open = u.find("/open/");
  if (open == std::string::npos) return std::nullopt;
  const std::string path = u.substr(open);
  for (const char* change : {"pruned", "sparse", "sparsity", "distilled"})
    if (contains(path, change))
      return fmt::format("an MLPerf Open-division result of a changed model ('{}' in its system's name): not the "
                         "{} network its model column names, and the row does not describe the one it ran",
                         change, benchmark->name);
  return std::nullopt;
}

}  // namespace gpuplan
