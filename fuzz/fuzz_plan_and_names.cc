// Text the user types: plan strings (--plan tp=4,pp=2,...) and model names (--model, dataset cells).
#include "fuzz_common.h"
#include "model/model_registry.h"
#include "plan/plan.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text = gpuplan::fuzz::text_of(data, size);
  gpuplan::fuzz::expect_clean([&] { gpuplan::to_string(gpuplan::parse_training_plan(text)); });
  // Names only: a name that is an existing path would be read as a file.
  if (text.find('/') == std::string::npos && text.find(".json") == std::string::npos)
    gpuplan::fuzz::expect_clean([&] { gpuplan::resolve_model(text); });
  return 0;
}
