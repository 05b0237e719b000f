#pragma once
// RFC 4180 CSV reading (quoted fields, embedded commas, quotes and newlines) into named columns.
#include <map>
#include <string>
#include <vector>

namespace gpuplan {

struct CsvTable {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
  // Column index by name, -1 when absent.
  int column(const std::string& name) const;
  // Cell of row i by column name; "" when the column is absent or the row is short.
  const std::string& cell(size_t row, const std::string& name) const;
};

// The number a cell starts with (leading spaces skipped; text after it ignored, as in "8 (est.)" or a
// note's "attn_dp=8, ..."): finite and within +-(2^31 - 1), the range of every count and measurement in
// the datasets (larger would overflow the int fields they fill). False for a blank cell, text, nan, inf,
// 1e400 or 99999999999.
// Thousands groups are read as one number ("23,406" = 23406); a magnitude suffix on the digits
// ("8k") makes the cell unreadable rather than 8.
bool parse_cell_number(const std::string& cell, double& out);
// A token length: as parse_cell_number, and "1k", "8k", "128k" as 1024, 8192, 131072 (the field's
// "8k/1k" naming of 8192-token prompts).
bool parse_token_count_cell(const std::string& cell, double& out);

// Parses CSV text; the first record is the header. Records end at LF, CRLF or a lone CR (old Mac files). `origin` names the file in errors.
CsvTable parse_csv(const std::string& text, const std::string& origin);
// Reads and parses a CSV file; a missing file is an InputError naming `field`.
CsvTable read_csv_file(const std::string& path, const std::string& field);

}  // namespace gpuplan
