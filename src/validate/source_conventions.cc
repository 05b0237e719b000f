#include "validate/source_conventions.h"

#include <fmt/format.h>

#include <set>

#include "core/embedded_data.h"
#include "core/error.h"
#include "core/text.h"
#include "core/yaml_reader.h"
#include "core/yaml_tree.h"
#include "validate/precision_text.h"

namespace gpuplan {

namespace {

constexpr const char* kConventionsFile = "serving/source_conventions.yaml";
constexpr const char* kPrecisions = "a weights' precision the serving model runs: BF16, FP16, FP8, FP4, NVFP4, MXFP4, W4A16";

std::string required_text(YamlMap& m, const std::string& key) {
  std::string s = m.str(key);
  if (s.find_first_not_of(" \t") == std::string::npos)
    throw InputError(m.path() + "." + key, "is required (non-empty text)");
  return s;
}

std::string precision_text(const std::string& field, const std::string& s) {
  if (!read_serving_weights(s)) throw InputError(field, fmt::format("'{}' is not {}", s, kPrecisions));
  return s;
}

ClosedLoopClient read_client(YamlMap& m) {
  ClosedLoopClient c;
  c.name = required_text(m, "name");
  c.requests_per_client = static_cast<int>(m.integer_in("requests_per_client", 1, 100000));
  c.random_range_ratio = m.num_in("random_range_ratio", 0, 1);
  c.http_front_end = m.opt_boolean("http_front_end").value_or(false);
  c.disaggregated_engine_prefix = m.opt_str("disaggregated_engine_prefix").value_or("");
  c.inferencex_scripts = m.opt_boolean("inferencex_scripts").value_or(false);
  c.single_node_width_tp_times_ep = m.opt_boolean("single_node_width_tp_times_ep").value_or(false);
  m.reject_unknown_keys();
  return c;
}

}  // namespace

const std::string& SourceConvention::blank_weights_on(const std::string& generation) const {
  const auto it = blank_weights_by_generation.find(generation);
  return it != blank_weights_by_generation.end() ? it->second : blank_weights;
}

namespace {

std::vector<SourceConvention> parse_source_conventions_document(const YAML::Node& doc, const std::string& origin) {
  YamlMap top(doc, origin);
  const std::string schema = top.str("schema");
  if (schema != "gpuplan.source_conventions/v1")
    throw InputError(origin + ".schema", fmt::format("'{}' is not gpuplan.source_conventions/v1", schema));
  std::vector<SourceConvention> out;
  std::set<std::string> families;
  for (YamlMap& m : top.map_list("sources")) {
    SourceConvention s;
    s.family = required_text(m, "family");
    if (!families.insert(to_lower(s.family)).second)
      throw InputError(m.path() + ".family", fmt::format("'{}' is named twice (a family is one entry)", s.family));
    if (!m.has("source_id_prefixes"))
      throw InputError(m.path() + ".source_id_prefixes", "is required (a list; [] on the last entry: any other row)");
    s.source_id_prefixes = m.str_list("source_id_prefixes");
    for (auto& p : s.source_id_prefixes) {
      if (p.find_first_not_of(" \t") == std::string::npos)
        throw InputError(m.path() + ".source_id_prefixes", "holds an empty prefix (it would name every row)");
      p = to_lower(p);
    }
    s.blank_weights = precision_text(m.path() + ".blank_weights", m.str("blank_weights"));
    if (m.has("blank_weights_by_generation")) {
      const YAML::Node g = m.raw("blank_weights_by_generation");
      if (!g.IsMap())
        throw InputError(m.path() + ".blank_weights_by_generation", "expected a map of generation: precision");
      for (const auto& kv : g) {
        const std::string gen = kv.first.as<std::string>();
        const std::string field = m.path() + ".blank_weights_by_generation." + gen;
        if (!kv.second.IsScalar()) throw InputError(field, "expected a text value");
        s.blank_weights_by_generation[gen] = precision_text(field, kv.second.Scalar());
      }
    }
    s.mlperf_benchmarks = m.opt_boolean("mlperf_benchmarks").value_or(false);
    if (auto c = m.opt_map("closed_loop_client")) s.closed_loop_client = read_client(*c);
    s.why = required_text(m, "why");
    s.source = required_text(m, "source");
    m.reject_unknown_keys();
    out.push_back(std::move(s));
  }
  top.reject_unknown_keys();
  if (out.empty() || !out.back().source_id_prefixes.empty())
    throw InputError(origin + ".sources", "the last entry must have source_id_prefixes [] (the rows no family names)");
  for (size_t i = 0; i + 1 < out.size(); ++i)
    if (out[i].source_id_prefixes.empty())
      throw InputError(fmt::format("{}.sources[{}].source_id_prefixes", origin, i),
                       "is empty on an entry before the last (only the last entry takes any other row)");
  return out;
}

}  // namespace

std::vector<SourceConvention> parse_source_conventions(const std::string& text, const std::string& origin) {
  return parse_source_conventions_document(parse_yaml(text, origin), origin);
}

const std::vector<SourceConvention>& source_conventions() {
  static const std::vector<SourceConvention> table = [] {
    for (const EmbeddedFile& f : embedded_data_files())
      if (f.path == kConventionsFile) return parse_source_conventions_document(embedded_yaml(f), kConventionsFile);
    throw InputError("data", std::string(kConventionsFile) + " is missing");
  }();
  return table;
}

const SourceConvention& source_convention(const std::string& source_id) {
  const std::string id = to_lower(source_id);
  const auto& all = source_conventions();
  for (const auto& s : all)
    for (const auto& p : s.source_id_prefixes)
      if (id.rfind(p, 0) == 0) return s;
  return all.back();
}

}  // namespace gpuplan
