#include "training/expert_overlap.h"

#include <fmt/format.h>

#include "core/error.h"
#include "core/suggest.h"
#include "recipe/ep_overlap_recipes.h"

namespace gpuplan {

namespace {

std::optional<ContainerVersion> tag_of(std::string_view source_id, std::initializer_list<const char*> prefixes) {
  const size_t dash = source_id.find('-');
  if (dash == std::string_view::npos) return std::nullopt;
  const std::string prefix = normalize_name(source_id.substr(0, dash));
  bool known = false;
  for (const char* p : prefixes) known = known || prefix == p;
  if (!known) return std::nullopt;
  return parse_container_version(source_id.substr(source_id.rfind('-') + 1));
}

}  // namespace

bool release_overlaps_expert_a2a(const ModelArch& m, const TrainingPlan& p, const FrameworkRelease& r) {
  return m.is_moe() && p.ep > 1 && r.ep_a2a_overlap;
}

ExpertOverlapChoice expert_a2a_overlap_for_row(const ModelArch& m, const TrainingPlan& p, const FrameworkRelease& release,
                                               const std::optional<ContainerVersion>& container,
                                               std::string_view model_name, std::string_view accelerator,
                                               Precision precision) {
  if (container && release.ep_a2a_overlap) {
    if (const auto rec = recipe_ep_overlap(model_name, accelerator, to_string(precision), *container)) {
      const bool on = rec->overlaps && m.is_moe() && p.ep > 1;
      const std::string by = rec->row ? fmt::format("{} ({})", rec->row->recipe, rec->row->where)
                                      : fmt::format("no row for this GPU and precision: the table's default ({})", rec->table);
      return {on, fmt::format("expert all-to-all {}: the NeMo {} recipe for this model, GPU and precision {} it; {}",
                              on ? "overlapped" : "not overlapped", to_string(*container),
                              rec->overlaps ? "overlaps" : "does not overlap", by)};
    }
  }
  const bool on = release_overlaps_expert_a2a(m, p, release);
  return {on, release.ep_a2a_overlap
                  ? fmt::format("expert all-to-all {}: the {} framework has the overlap (Megatron-Core 0.14, NeMo 25.09 on){}",
                                on ? "overlapped" : "not overlapped", release.text(),
                                container ? " and no recipe table covers this model in that container" : "")
                  : fmt::format("expert all-to-all not overlapped: the {} framework predates it (Megatron-Core 0.14, NeMo 25.09)",
                                release.text())};
}

std::optional<ContainerVersion> nemo_container_of_source(std::string_view source_id) {
  return tag_of(source_id, {"nemofw", "nemo", "mbridge"});
}

std::optional<ContainerVersion> release_tag_of_source(std::string_view source_id) {
  return tag_of(source_id, {"nemofw", "nemo", "mbridge", "dgxc"});
}

bool parse_on_off(const std::string& text, const std::string& field) {
  if (text == "on") return true;
  if (text == "off") return false;
  throw InputError(field, fmt::format("must be on or off, got '{}'", text));
}

}  // namespace gpuplan
