#include "validate/scenario_rules.h"

#include <fmt/format.h>

#include "core/embedded_data.h"
#include "core/error.h"
#include "core/text.h"
#include "core/yaml_reader.h"
#include "core/yaml_tree.h"

namespace gpuplan {

namespace {

constexpr const char* kScenariosFile = "serving/mlperf_scenarios.yaml";

bool contains(const std::string& s, const std::string& what) { return s.find(what) != std::string::npos; }

std::vector<MlperfBenchmark> load() {
  std::vector<MlperfBenchmark> out;
  for (const EmbeddedFile& f : embedded_data_files()) {
    if (f.path != kScenariosFile) continue;
    YamlMap top(embedded_yaml(f), kScenariosFile);
    top.str("schema");
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
  return out;
}

const MlperfBenchmark* by_name(const std::string& name) {
  for (const auto& b : mlperf_benchmarks())
    if (b.name == name) return &b;
  return nullptr;
}

}  // namespace

const std::vector<MlperfBenchmark>& mlperf_benchmarks() {
  static const std::vector<MlperfBenchmark> table = load();
  return table;
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
