#pragma once
// Rental prices per GPU-hour by catalog system, with their sources: data/cost/rent.yaml, overridden by
// `--rent-usd-per-gpu-hour SYSTEM=PRICE`.
#include <map>
#include <string>
#include <vector>

#include "catalog/catalog.h"

namespace gpuplan::sizing {

struct RentPrice {
  double usd_per_gpu_hour = 0;
  std::string source;
};

// The built-in prices (data/cost/rent.yaml), by system name.
const std::map<std::string, RentPrice>& builtin_rent_prices();

// The built-in prices with `overrides` ("SYSTEM=PRICE", PRICE in USD per GPU-hour, 0 to 1000) on top, each
// under the catalog's name of its system; InputError naming `field` for a malformed entry or a system the
// catalog does not have.
std::map<std::string, RentPrice> rent_prices(const Catalog& catalog, const std::vector<std::string>& overrides,
                                             const std::string& field);

}  // namespace gpuplan::sizing
