#pragma once
// For unit tests: the built-in catalog, loaded once per test binary and shared read-only by every
// test file of it (one definition, so the files of a folder can be compiled as one unity batch).
#include "catalog/catalog.h"

namespace gpuplan {

inline const Catalog& test_catalog() {
  static const Catalog c = Catalog::load({});
  return c;
}

}  // namespace gpuplan
