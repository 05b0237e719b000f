#pragma once
// Keys of the recipe tables (data/recipes/*.yaml) that an entry may leave open: true / false / any,
// and the optional FP8 GEMM kernel. One reading for the readers that take them (dynamo_prefill_recipes,
// dynamo_decode_recipes, mori_recipes).
#include "core/yaml_reader.h"

namespace gpuplan {

// The key's value as 1 (true), 0 (false) or -1 (any); an InputError naming the key otherwise.
int read_recipe_either(YamlMap& entry, const char* key);

// The optional `fp8_gemm` key of a Dynamo + SGLang recipe entry (dynamo_prefill, dynamo_sglang_decode):
// true for `triton` (the environment leaves the dense block-FP8 GEMMs on SGLang's Triton kernel), false
// for `auto` or absent; an InputError naming the key otherwise.
// `fp4`: the entry's weights are FP4, which run no block-FP8 GEMMs: triton is then an error too.
bool read_recipe_fp8_gemm_triton(YamlMap& entry, bool fp4);

// True when two entries' values of such a key can match one row (-1 meets both values).
bool recipe_keys_meet(int a, int b);

// True when an entry's value (-1: any) matches the row's.
bool recipe_key_matches(int entry, bool row);

}  // namespace gpuplan
