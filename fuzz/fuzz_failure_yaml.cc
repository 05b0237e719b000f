// Failure models (`gpuplan goodput --failures FILE`).
#include "deploy/failures.h"
#include "fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  gpuplan::fuzz::expect_clean([&] { gpuplan::deploy::parse_failure_model(gpuplan::fuzz::text_of(data, size), "fuzz.yaml"); });
  return 0;
}
