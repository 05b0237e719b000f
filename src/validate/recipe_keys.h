#pragma once
// Keys of the recipe tables (data/recipes/*.yaml) that an entry may leave open: true / false / any.
// One reading for the readers that take them (dynamo_prefill_recipes, mori_recipes).
#include "core/yaml_reader.h"

namespace gpuplan {

// The key's value as 1 (true), 0 (false) or -1 (any); an InputError naming the key otherwise.
int read_recipe_either(YamlMap& entry, const char* key);

// True when two entries' values of such a key can match one row (-1 meets both values).
bool recipe_keys_meet(int a, int b);

// True when an entry's value (-1: any) matches the row's.
bool recipe_key_matches(int entry, bool row);

}  // namespace gpuplan
