// Catalog overlays (accelerators, systems, networks, efficiencies), merged over the built-in catalog.
#include "catalog/catalog.h"
#include "fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const gpuplan::Catalog builtin = gpuplan::Catalog::load({});
  gpuplan::fuzz::expect_clean([&] {
    gpuplan::Catalog c = builtin;
    c.merge_yaml(gpuplan::fuzz::text_of(data, size), "fuzz.yaml");
    c.check();
  });
  return 0;
}
