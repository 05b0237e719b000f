#include "recipe/recipe_keys.h"

#include <string>

#include "core/error.h"

namespace gpuplan {

int read_recipe_either(YamlMap& entry, const char* key) {
  const std::string v = entry.str(key);
  if (v == "true") return 1;
  if (v == "false") return 0;
  if (v == "any") return -1;
  throw InputError(entry.path() + "." + key, "must be true, false or any, got '" + v + "'");
}

bool read_recipe_fp8_gemm_triton(YamlMap& entry, bool fp4) {
  if (!entry.has("fp8_gemm")) return false;
  const std::string v = entry.str("fp8_gemm");
  if (v != "auto" && v != "triton") throw InputError(entry.path() + ".fp8_gemm", "must be auto or triton, got '" + v + "'");
  if (v == "triton" && fp4)
    throw InputError(entry.path() + ".fp8_gemm", "triton applies to fp8 entries (FP4 weights run no block-FP8 GEMMs)");
  return v == "triton";
}

bool recipe_keys_meet(int a, int b) { return a < 0 || b < 0 || a == b; }

bool recipe_key_matches(int entry, bool row) { return entry < 0 || entry == (row ? 1 : 0); }

}  // namespace gpuplan
