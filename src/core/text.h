#pragma once
// Small text helpers shared by every folder: ASCII case folding for matching names a user or a
// table wrote, and a power figure in kilowatts.
#include <string>

namespace gpuplan {

// "H100-SXM" -> "h100-sxm"; ASCII letters only (names in tables and catalogs are ASCII).
std::string to_lower(std::string s);

// 132000 W -> "132 kW" (decimals = 0) or "132.0 kW" (decimals = 1).
std::string kilowatts_text(double watts, int decimals);

// Whole groups of `per` needed for `count` items (count >= 0, per > 0): ceil(count / per).
constexpr long long ceil_div(long long count, long long per) { return (count + per - 1) / per; }

}  // namespace gpuplan
