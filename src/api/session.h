#pragma once
// Loading the catalog a Session (or one CLI run) evaluates against.
#include <string>
#include <vector>

#include "catalog/catalog.h"

namespace gpuplan::api {

// The built-in catalog overlaid by $GPUPLAN_CATALOG (colon-separated folders), then `catalog_dirs`,
// then the calibration files merged last; checked. InputError naming the file that cannot be read.
Catalog load_catalog(const std::vector<std::string>& catalog_dirs, const std::vector<std::string>& calibration_files);

}  // namespace gpuplan::api
