#pragma once
// Numbers as a planner writes them: thousands separators, a scale word (k, M, B, T) instead of an
// exponent, three significant figures at most past the thousands: "$6,530", "4,490 GPU-hours",
// "15 T tokens", "$1.25 M"; never "$0.00653M" or "1.5e+04B".
#include <string>

namespace gpuplan {

// 6530.4 -> "6,530"; decimals after the point (default none).
std::string with_commas(double v, int decimals = 0);
// Dollars: "$0.42" below $10, "$6,530" below $1 M, then "$1.25 M", "$3.40 B".
std::string usd_text(double usd);
// A count with its unit: "4,490 GPU-hours" below a million, then "1.25 M tokens", "15 T tokens".
std::string count_text(double n, const std::string& unit);

}  // namespace gpuplan
