#include "deploy/failures.h"

#include <fmt/format.h>

#include "core/embedded_data.h"
#include "core/error.h"
#include "core/yaml_reader.h"
#include "core/yaml_tree.h"

namespace gpuplan::deploy {

std::string to_string(Blast b) {
  switch (b) {
    case Blast::none: return "none";
    case Blast::node: return "node";
    case Blast::domain: return "domain";
  }
  return "?";
}

double FailureModel::reference_rate_per_gpu_hour(int gpus_per_node) const {
  double r = 0;
  for (const auto& c : classes) {
    if (c.multinode_domains_only) continue;
    r += c.per == RateUnit::gpu ? c.rate_per_hour : c.rate_per_hour / gpus_per_node;
  }
  return r;
}

FailureModel FailureModel::with_gpu_mtbf_hours(double mtbf_h) const {
  FailureModel m = *this;
  const double k = (1.0 / mtbf_h) / reference_rate_per_gpu_hour();
  for (auto& c : m.classes) c.rate_per_hour *= k;
  m.source = fmt::format("per-GPU MTBF {} h (class shares from {})", mtbf_h, source);
  return m;
}

namespace {

FailureModel parse_failure_document(const YAML::Node& doc, const std::string& origin) {
  YamlMap root(doc, origin);
  if (auto s = root.opt_str("schema"); s && *s != "gpuplan.failures/v1")
    throw InputError(origin + ": schema", "must be gpuplan.failures/v1, got '" + *s + "'");
  FailureModel m;
  YamlMap ref = root.map("reference");
  const double gpus = ref.num_in("gpus", 1, 1e8);
  const double nodes = ref.num_in("nodes", 1, 1e8);
  const double hours = ref.num_in("days", 1e-3, 1e5) * 24.0;
  ref.opt_num("unexpected_interruptions");
  m.source = ref.str("source");
  ref.reject_unknown_keys();
  for (YamlMap c : root.map_list("classes")) {
    FailureClass f;
    f.name = c.str("name");
    const std::string per = c.str("per");
    if (per == "gpu") f.per = RateUnit::gpu;
    else if (per == "node") f.per = RateUnit::node;
    else throw InputError(c.path() + ".per", "must be gpu or node, got '" + per + "'");
    const double events = c.num_in("events", 0, 1e9);
    f.rate_per_hour = events / ((f.per == RateUnit::gpu ? gpus : nodes) * hours);
    const std::string blast = c.str("blast");
    if (blast == "none") f.blast = Blast::none;
    else if (blast == "node") f.blast = Blast::node;
    else if (blast == "domain") f.blast = Blast::domain;
    else throw InputError(c.path() + ".blast", "must be none, node or domain, got '" + blast + "'");
    f.repair_s = c.num_in("repair_h", 0, 1e5) * 3600.0;
    f.multinode_domains_only = c.opt_boolean("applies_to_multinode_domains_only").value_or(false);
    f.source = c.str("source");
    c.reject_unknown_keys();
    m.classes.push_back(f);
  }
  YamlMap restart = root.map("restart");
  m.restart_s = restart.num_in("restart_s", 0, 1e6);
  restart.str("source");
  restart.reject_unknown_keys();
  YamlMap storage = root.map("storage");
  m.write_bytes_per_s_per_gpu = storage.num_in("write_bytes_per_s_per_gpu", 1, 1e12);
  m.checkpoint_bytes_per_param = storage.num_in("checkpoint_bytes_per_param", 0.1, 100);
  storage.str("source");
  storage.reject_unknown_keys();
  root.reject_unknown_keys();
  return m;
}

}  // namespace

FailureModel parse_failure_model(const std::string& yaml_text, const std::string& origin) {
  return parse_failure_document(parse_yaml(yaml_text, origin), origin);
}

const FailureModel& builtin_failure_model() {
  static const FailureModel m = [] {
    for (const auto& f : embedded_data_files())
      if (f.path == "deploy/failures.yaml") return parse_failure_document(embedded_yaml(f), "deploy/failures.yaml");
    throw InputError("deploy/failures.yaml", "not embedded in this build");
  }();
  return m;
}

}  // namespace gpuplan::deploy
