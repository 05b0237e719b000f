#pragma once
// Human formatting helpers of the terminal text.
#include <ostream>
#include <string>
#include <vector>

namespace gpuplan::api {

std::string human_bytes(double bytes);                   // "141.1 GB"
std::string human_rate(double per_s, const char* unit);  // "989.4 T" + unit
// A probability as a percentage: "37%", "0.4%", "< 0.1%", "> 99.9%".
std::string probability_text(double p);

// A plain text table: the header, a rule of dashes, the rows; columns two spaces apart, as wide as
// their widest cell, trailing blanks cut. The first `left_columns` columns are left-aligned and the
// rest right-aligned; -1: a column is right-aligned when every cell of it is a number (or "-").
void print_table(std::ostream& os, const std::vector<std::string>& header,
                 const std::vector<std::vector<std::string>>& rows, int left_columns = -1);

}  // namespace gpuplan::api
