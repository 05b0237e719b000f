#pragma once
// The systems a command is asked about (`--system` repeated or comma-separated): each resolved to its
// catalog name, every catalog system where none is given.
#include <string>
#include <vector>

#include "catalog/catalog.h"

namespace gpuplan::api {

// The catalog names of `given` in the order given, or every catalog system when it is empty. An unknown
// name is the catalog's InputError naming `option`; a system given twice (by one name or by two of its
// names, "hgx-h100" and an alias) is an InputError naming `option` and both spellings: the command would
// answer for it twice (and `size` would split its odds of being the cheapest between the two).
std::vector<std::string> resolve_system_list(const Catalog& catalog, const std::vector<std::string>& given,
                                             const char* option);

}  // namespace gpuplan::api
