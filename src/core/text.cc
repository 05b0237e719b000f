#include "core/text.h"

#include <fmt/format.h>

#include <cctype>

namespace gpuplan {

std::string to_lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string kilowatts_text(double watts, int decimals) { return fmt::format("{:.{}f} kW", watts / 1e3, decimals); }

}  // namespace gpuplan
