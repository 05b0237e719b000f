#pragma once
// A command's main table as CSV (the CLI's --csv): the rows of its JSON document's table, one line each,
// nested objects as dotted columns ("band.low"), lists of scalars joined by "; ", RFC 4180 quoting. The
// text, the JSON and the CSV come from the one document, so they cannot disagree.
#include <nlohmann/json.hpp>

#include <string>

namespace gpuplan::api {

// The key of the document's table: the top-level array of objects with the most rows (the first in
// key order on a tie); empty when the document has none.
std::string document_table_key(const nlohmann::json& doc);

// The table as CSV: a header of every column any row has (in first-seen order), then one line per
// row. InputError("--csv") when the document has no table.
std::string document_csv(const nlohmann::json& doc);

}  // namespace gpuplan::api
