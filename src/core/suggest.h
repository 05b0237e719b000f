#pragma once
// "Did you mean" for names the user typed: models, accelerators, keys, sub-commands.
#include <string>
#include <string_view>
#include <vector>

namespace gpuplan {

// Edit distance (insert, delete, substitute), case-insensitive.
int edit_distance(std::string_view a, std::string_view b);

// The closest candidate, or "" when none is close enough to be a plausible typo.
std::string closest_match(std::string_view typed, const std::vector<std::string>& candidates);

// " (did you mean 'x'?)" or "" — ready to append to an error message.
std::string did_you_mean(std::string_view typed, const std::vector<std::string>& candidates);

// `name` for an error message: cut to `max_chars` with "... (N characters)" when longer, so a
// megabyte of input is not echoed back whole.
std::string echo_name(std::string_view name, size_t max_chars = 80);

// Lower-case, with every character other than a-z0-9 removed: "Llama-3.1 70B" -> "llama3170b".
std::string normalize_name(std::string_view name);

}  // namespace gpuplan
