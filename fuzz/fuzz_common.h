#pragma once
// Shared by the libFuzzer harnesses: what counts as a clean outcome. A parser given any bytes either
// returns or throws InputError (malformed input at the boundary); anything else (another exception,
// a crash, a sanitizer report, a hang) is a finding.
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/error.h"

namespace gpuplan::fuzz {

inline std::string text_of(const uint8_t* data, size_t size) {
  return std::string(reinterpret_cast<const char*>(data), size);
}

// Runs `body`; InputError is the expected way to refuse input.
template <typename F>
void expect_clean(F&& body) {
  try {
    body();
  } catch (const InputError&) {
  }
}

}  // namespace gpuplan::fuzz
