// A table's date cell is read as the day it names in any unambiguous form, and never guessed: an
// impossible day or a slashed date whose day/month order is open is unread (the row then says so).
#include "recipe/recipe_dates.h"

#include <gtest/gtest.h>

#include <utility>
#include <vector>

namespace gpuplan {
namespace {

TEST(RowDate, UnambiguousFormsReadAsTheirDay) {
  for (const auto& [cell, want] : std::vector<std::pair<const char*, const char*>>{
           {"2026-02-13", "2026-02-13"},
           {"2026-02-13T10:20:00Z", "2026-02-13"},
           {" 2026/2/13 ", "2026-02-13"},
           {"13.02.2026", "2026-02-13"},
           {"02/13/2026", "2026-02-13"},
           {"13/02/2026", "2026-02-13"},
           {"Feb 13, 2026", "2026-02-13"},
           {"13 February 2026", "2026-02-13"},
           {"2024-02-29", "2024-02-29"}}) {
    const auto got = read_row_date(cell);
    ASSERT_TRUE(got.has_value()) << cell;
    EXPECT_EQ(*got, want) << cell;
    EXPECT_TRUE(is_recipe_date(*got)) << cell;
  }
  for (const char* cell : {"", "  ", "02/03/2026", "2026-02-30", "2025-02-29", "2026-13-01", "13.02.26", "yesterday",
                           "Foo 13, 2026", "2026"})
    EXPECT_FALSE(read_row_date(cell).has_value()) << cell;
}

TEST(RowDate, RangesAreInclusiveAndOpenEnded) {
  EXPECT_TRUE(recipe_date_in_range("2026-02-13", "2026-02-13", "2026-02-13"));
  EXPECT_TRUE(recipe_date_in_range("2027-01-01", "2026-02-13", ""));
  EXPECT_FALSE(recipe_date_in_range("2026-02-12", "2026-02-13", ""));
  EXPECT_TRUE(recipe_date_ranges_meet("2026-01-01", "2026-02-01", "2026-02-01", ""));
  EXPECT_FALSE(recipe_date_ranges_meet("2026-01-01", "2026-01-31", "2026-02-01", ""));
}

}  // namespace
}  // namespace gpuplan
