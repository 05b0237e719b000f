// Site files (gpuplan.site/v1): positions, cooling, feed.
#include "deploy/site.h"
#include "fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  gpuplan::fuzz::expect_clean([&] {
    gpuplan::deploy::parse_site_yaml(gpuplan::fuzz::text_of(data, size), "fuzz.yaml", gpuplan::deploy::builtin_site_defaults());
  });
  return 0;
}
