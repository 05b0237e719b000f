// Rental prices per GPU-hour (see rent_prices.h).
#include "sizing/rent_prices.h"

#include <fmt/format.h>

#include <cmath>

#include "core/embedded_data.h"
#include "core/error.h"
#include "core/yaml_reader.h"
#include "core/yaml_tree.h"

namespace gpuplan::sizing {

const std::map<std::string, RentPrice>& builtin_rent_prices() {
  static const std::map<std::string, RentPrice> prices = [] {
    std::map<std::string, RentPrice> out;
    for (const auto& f : embedded_data_files()) {
      if (f.path != "cost/rent.yaml") continue;
      const std::string origin = "data/cost/rent.yaml";
      YamlMap root(embedded_yaml(f), origin);
      if (root.str("schema") != "gpuplan.rent/v1") throw InputError(origin, "schema must be gpuplan.rent/v1");
      YAML::Node systems = root.raw("systems");
      for (const auto& kv : systems) {
        const std::string name = kv.first.as<std::string>();
        YamlMap m(kv.second, origin + ": systems." + name);
        RentPrice p;
        p.usd_per_gpu_hour = m.num_in("usd_per_gpu_hour", 0.01, 1000);
        p.source = m.str("source");
        m.reject_unknown_keys();
        out[name] = p;
      }
      root.reject_unknown_keys();
      return out;
    }
    throw InputError("cost/rent.yaml", "not embedded in this build");
  }();
  return prices;
}

std::map<std::string, RentPrice> rent_prices(const Catalog& catalog, const std::vector<std::string>& overrides,
                                             const std::string& field) {
  std::map<std::string, RentPrice> out = builtin_rent_prices();
  for (const auto& o : overrides) {
    const auto eq = o.find('=');
    if (eq == std::string::npos || eq == 0)
      throw InputError(field, fmt::format("must be SYSTEM=PRICE (USD per GPU-hour), got '{}'", o));
    double price = 0;
    try {
      std::size_t used = 0;
      price = std::stod(o.substr(eq + 1), &used);
      if (used != o.size() - eq - 1) throw std::invalid_argument("trailing");
    } catch (const std::exception&) {
      throw InputError(field, fmt::format("price in '{}' is not a number", o));
    }
    if (!(std::isfinite(price) && price > 0 && price <= 1000))
      throw InputError(field, fmt::format("price must be above 0 and at most 1000 USD per GPU-hour, got '{}'", o));
    out[catalog.system(o.substr(0, eq), field).name] = {price, "user (" + field + ")"};
  }
  return out;
}

}  // namespace gpuplan::sizing
