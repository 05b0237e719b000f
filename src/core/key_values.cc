#include "core/key_values.h"

#include <fmt/format.h>

#include <algorithm>

#include "core/error.h"
#include "core/suggest.h"

namespace gpuplan {

std::vector<std::pair<std::string, std::string>> key_value_items(const std::string& text, const std::string& option,
                                                                 const std::string& example) {
  std::vector<std::pair<std::string, std::string>> items;
  if (text.empty()) return items;
  for (size_t pos = 0; pos <= text.size();) {
    size_t end = text.find(',', pos);
    if (end == std::string::npos) end = text.size();
    const std::string item = text.substr(pos, end - pos);
    pos = end + 1;
    if (item.empty())
      throw InputError(option, fmt::format("empty item in '{}'; give key=value items separated by single commas "
                                           "(e.g. {})",
                                           echo_name(text), example));
    const size_t eq = item.find('=');
    if (eq == std::string::npos)
      throw InputError(option, fmt::format("expected key=value (e.g. {}), got '{}'", example, echo_name(item)));
    std::string k = item.substr(0, eq);
    if (std::any_of(items.begin(), items.end(), [&](const auto& kv) { return kv.first == k; }))
      throw InputError(option + "." + k, fmt::format("given twice in '{}'; give each key once", echo_name(text)));
    items.emplace_back(std::move(k), item.substr(eq + 1));
  }
  return items;
}

}  // namespace gpuplan
