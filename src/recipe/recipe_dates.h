#pragma once
// Dates of the recipe tables (data/recipes/*.yaml): ISO days (YYYY-MM-DD, compared as strings) and
// the day ranges an entry is in force for (an empty end: open). One place for the three readers
// (dynamo_prefill_recipes, dynamo_decode_recipes, mori_recipes).
#include <optional>
#include <string>

namespace gpuplan {

// True when `d` has the form YYYY-MM-DD.
bool is_recipe_date(const std::string& d);

// A table's date cell as an ISO day: "2026-02-13", "2026-02-13T10:20:00Z", "2026/02/13", "13.02.2026",
// "Feb 13, 2026", "13 February 2026", and "02/13/2026" or "13/02/2026" where the day is the one above
// 12; nullopt for a blank cell, an impossible day, or a slashed date whose order is ambiguous ("02/03/2026").
std::optional<std::string> read_row_date(const std::string& cell);

// True when `date` falls in [from, to]; an empty `to` is open.
bool recipe_date_in_range(const std::string& date, const std::string& from, const std::string& to);

// True when the ranges [a_from, a_to] and [b_from, b_to] share a day (an empty end: open).
bool recipe_date_ranges_meet(const std::string& a_from, const std::string& a_to, const std::string& b_from,
                             const std::string& b_to);

}  // namespace gpuplan
