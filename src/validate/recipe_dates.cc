#include "validate/recipe_dates.h"

#include <algorithm>
#include <cctype>

namespace gpuplan {

bool is_recipe_date(const std::string& d) {
  return d.size() == 10 && d[4] == '-' && d[7] == '-' &&
         std::all_of(d.begin(), d.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)) || c == '-'; });
}

bool recipe_date_in_range(const std::string& date, const std::string& from, const std::string& to) {
  return date >= from && (to.empty() || date <= to);
}

bool recipe_date_ranges_meet(const std::string& a_from, const std::string& a_to, const std::string& b_from,
                             const std::string& b_to) {
  return (a_to.empty() || b_from <= a_to) && (b_to.empty() || a_from <= b_to);
}

}  // namespace gpuplan
