#include "training/moe_dispatcher.h"

#include <fmt/format.h>

#include <vector>

#include "core/embedded_data.h"
#include "core/error.h"
#include "core/suggest.h"
#include "core/yaml_reader.h"

namespace gpuplan {

namespace {

constexpr const char* kDispatcherFile = "training/megatron_bridge_moe_dispatcher.yaml";

struct DispatcherRow {
  std::string model, gpu, where;
  std::vector<std::string> precisions;
  MoeDispatcher dispatcher = MoeDispatcher::alltoall;
  ContainerVersion from, until;
};

ContainerVersion read_dispatcher_container(YamlMap& r, const char* key) {
  const std::string v = r.str(key);
  const auto c = parse_container_version(v);
  if (!c) throw InputError(r.path() + "." + key, fmt::format("must be a NeMo container YY.MM or YY.MM.NN, got '{}'", v));
  return *c;
}

std::vector<DispatcherRow> read_dispatcher_rows() {
  std::vector<DispatcherRow> rows;
  for (const EmbeddedFile& f : embedded_data_files()) {
    if (f.path != kDispatcherFile) continue;
    YamlMap top(parse_yaml(std::string(f.text), kDispatcherFile), kDispatcherFile);
    for (YamlMap& r : top.map_list("dispatchers")) {
      DispatcherRow d;
      d.where = r.path();
      d.model = normalize_name(r.str("model"));
      d.gpu = r.str("gpu");
      d.precisions = r.str_list("precisions");
      for (const std::string& p : d.precisions)
        if (p != "bf16" && p != "fp8" && p != "mxfp8" && p != "nvfp4")
          throw InputError(r.path() + ".precisions", "must list bf16, fp8, mxfp8 or nvfp4, got '" + p + "'");
      const std::string k = r.str("dispatcher");
      if (k != "alltoall") throw InputError(r.path() + ".dispatcher", "must be alltoall (flex is the default), got '" + k + "'");
      d.from = read_dispatcher_container(r, "from");
      d.until = read_dispatcher_container(r, "until");
      if (!(d.from < d.until)) throw InputError(r.path() + ".until", "must be a container after `from`");
      r.str("recipe");
      r.reject_unknown_keys();
      rows.push_back(std::move(d));
    }
    top.reject_unknown_keys();
  }
  return rows;
}

const std::vector<DispatcherRow>& dispatcher_rows() {
  static const std::vector<DispatcherRow> r = read_dispatcher_rows();
  return r;
}

}  // namespace

std::optional<MoeDispatcherReading> recipe_moe_dispatcher(std::string_view model, std::string_view accelerator,
                                                          std::string_view precision, const ContainerVersion& container) {
  const std::string key = normalize_name(model);
  for (const DispatcherRow& r : dispatcher_rows()) {
    if (r.model.empty() || key.rfind(r.model, 0) != 0 || r.gpu != accelerator) continue;
    if (container < r.from || !(container < r.until)) continue;
    for (const std::string& p : r.precisions)
      if (p == precision)
        return MoeDispatcherReading{r.dispatcher, fmt::format("MoE token dispatcher {}: the container's Megatron-Bridge "
                                                              "recipe ({})",
                                                              to_string(r.dispatcher), r.where)};
  }
  return std::nullopt;
}

}  // namespace gpuplan
