// Cost-of-ownership profiles (`gpuplan cost --costs FILE`).
#include "cost/cost_profile.h"
#include "fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  gpuplan::fuzz::expect_clean([&] {
    const auto p = gpuplan::cost::parse_cost_profile(gpuplan::fuzz::text_of(data, size), "fuzz.yaml",
                                               gpuplan::cost::builtin_cost_profile());
    gpuplan::cost::validate_cost_profile(p);
  });
  return 0;
}
