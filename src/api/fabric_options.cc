#include "api/fabric_options.h"

#include <fmt/format.h>

#include <algorithm>

#include "core/error.h"
#include "fabric/system_fabric.h"

namespace gpuplan::api {

double parse_oversubscription(const std::string& text, const std::string& field) {
  auto num = [&](const std::string& s) {
    size_t used = 0;
    double v = 0;
    try {
      v = std::stod(s, &used);
    } catch (...) {
      used = 0;
    }
    if (used == 0 || used != s.size() || !(v > 0))
      throw InputError(field, fmt::format("'{}' is not a ratio like 2 or 2:1 (range 1 to 64)", text));
    return v;
  };
  const auto colon = text.find(':');
  double r = 0;
  if (colon == std::string::npos) {
    r = num(text);
  } else {
    const double a = num(text.substr(0, colon)), b = num(text.substr(colon + 1));
    r = std::max(a, b) / std::min(a, b);
  }
  if (!(r >= 1 && r <= 64)) throw InputError(field, fmt::format("{:g} is out of range [1, 64] (r for r:1)", r));
  return r;
}

void add_fabric_options(CLI::App& app, FabricOptions& opts) {
  app.add_option("--fabric-oversubscription", opts.oversubscription,
                 "Scale-out leaf oversubscription r:1; groups wider than one scalable unit get 1/r past the leaf "
                 "(gpuplan fabric)")
      ->capture_default_str();
  app.add_option("--fabric-topology", opts.topology,
                 "rail-optimized or rail-only (cross-rail all-to-all is forwarded over NVLink)")
      ->capture_default_str();
}

void apply_fabric_options(const Catalog& catalog, Hardware& hw, long long gpus, const FabricOptions& opts) {
  (void)gpus;  // the fabric's shape (scalable unit, u/d) is the same at any size
  const double r = parse_oversubscription(opts.oversubscription, "--fabric-oversubscription");
  const fabric::Topology t = parse_fabric_topology(opts.topology);
  if (r == 1 && t == fabric::Topology::rail_optimized) return;
  const System* sys = catalog.find_system(hw.system_name);
  if (!sys)
    throw InputError("--fabric-oversubscription",
                     fmt::format("'{}' is not a catalog system, so it has no fabric to shape", hw.system_name));
  fabric::shape_scaleout(catalog, *sys, hw.fabric, r, t);
}

fabric::Topology parse_fabric_topology(const std::string& text) {
  if (text == "rail-optimized") return fabric::Topology::rail_optimized;
  if (text == "rail-only") return fabric::Topology::rail_only;
  throw InputError("--fabric-topology", fmt::format("must be rail-optimized or rail-only, got '{}'", text));
}

}  // namespace gpuplan::api
