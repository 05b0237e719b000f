#pragma once
// Human formatting helpers of the terminal text.
#include <string>

namespace gpuplan::api {

std::string human_bytes(double bytes);                   // "141.1 GB"
std::string human_rate(double per_s, const char* unit);  // "989.4 T" + unit

}  // namespace gpuplan::api
