#pragma once
// Dates of the recipe tables (data/recipes/*.yaml): ISO days (YYYY-MM-DD, compared as strings) and
// the day ranges an entry is in force for (an empty end: open). One place for the three readers
// (dynamo_prefill_recipes, dynamo_decode_recipes, mori_recipes).
#include <string>

namespace gpuplan {

// True when `d` has the form YYYY-MM-DD.
bool is_recipe_date(const std::string& d);

// True when `date` falls in [from, to]; an empty `to` is open.
bool recipe_date_in_range(const std::string& date, const std::string& from, const std::string& to);

// True when the ranges [a_from, a_to] and [b_from, b_to] share a day (an empty end: open).
bool recipe_date_ranges_meet(const std::string& a_from, const std::string& a_to, const std::string& b_from,
                             const std::string& b_to);

}  // namespace gpuplan
