#include "api/system_list.h"

#include <fmt/format.h>

#include "core/error.h"
#include "core/suggest.h"

namespace gpuplan::api {

std::vector<std::string> resolve_system_list(const Catalog& catalog, const std::vector<std::string>& given,
                                             const char* option) {
  std::vector<std::string> names, spelled;
  if (given.empty()) {
    for (const auto& s : catalog.systems()) names.push_back(s.name);
    return names;
  }
  for (const auto& g : given) {
    const std::string name = catalog.system(g, option).name;
    for (std::size_t i = 0; i < names.size(); ++i)
      if (names[i] == name)
        throw InputError(option, spelled[i] == g
                                     ? fmt::format("{} is given twice; give each system once", echo_name(g))
                                     : fmt::format("{} and {} are the same system ({}); give each system once",
                                                   echo_name(spelled[i]), echo_name(g), name));
    names.push_back(name);
    spelled.push_back(g);
  }
  return names;
}

}  // namespace gpuplan::api
