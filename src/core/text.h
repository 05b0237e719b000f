#pragma once
// Small text helpers shared by every folder: ASCII case folding for matching names a user or a
// table wrote, spaces trimmed from a cell, and a power figure in kilowatts.
#include <string>
#include <string_view>

namespace gpuplan {

// "H100-SXM" -> "h100-sxm"; ASCII letters only (names in tables and catalogs are ASCII).
std::string to_lower(std::string s);

// " full\r\n" -> "full": `s` without its leading and trailing whitespace.
std::string trim(std::string_view s);

// 132000 W -> "132 kW" (decimals = 0) or "132.0 kW" (decimals = 1).
std::string kilowatts_text(double watts, int decimals);

// `s` with every byte that is not part of a well-formed UTF-8 sequence (a stray continuation byte,
// a truncated or overlong sequence, a surrogate, a code point past U+10FFFF) replaced by U+FFFD:
// text from outside (an HTTP request, a file) made safe to put into JSON.
std::string valid_utf8(std::string_view s);

// Whole groups of `per` needed for `count` items (count >= 0, per > 0): ceil(count / per).
constexpr long long ceil_div(long long count, long long per) { return (count + per - 1) / per; }

}  // namespace gpuplan
