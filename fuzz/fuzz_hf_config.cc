// Hugging Face config.json import.
#include "fuzz_common.h"
#include "model/model_registry.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  gpuplan::fuzz::expect_clean([&] { gpuplan::import_hf_config(gpuplan::fuzz::text_of(data, size), "config.json"); });
  return 0;
}
