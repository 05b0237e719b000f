// A document's table as CSV: the table found, nested fields as dotted columns, lists joined, quoting,
// missing cells empty, and a document without a table refused.
#include "api/csv_table.h"

#include <gtest/gtest.h>

#include "core/error.h"

namespace gpuplan::api {
namespace {

TEST(CsvTable, TheLongestListOfRows) {
  const auto doc = nlohmann::json::parse(
      R"({"schema": "gpuplan.x/v1", "notes": [{"a": 1}], "ranked": [{"name": "p"}, {"name": "q"}], "spec": {"k": 1}})");
  EXPECT_EQ(document_table_key(doc), "ranked");
  EXPECT_EQ(document_table_key(nlohmann::json::parse(R"({"ids": [1, 2, 3]})")), "");
}

TEST(CsvTable, FlattensQuotesAndFillsGaps) {
  const auto doc = nlohmann::json::parse(R"({"rows": [
      {"name": "a,b", "band": {"low": 1.5, "high": 2}, "reasons": ["x", "say \"y\""], "ok": true},
      {"name": "c", "extra": null, "rank": 2}]})");
  EXPECT_EQ(document_csv(doc),
            "rank,name,band.high,band.low,ok,reasons,extra\n"
            ",\"a,b\",2,1.5,true,\"x; say \"\"y\"\"\",\n"
            "2,c,,,,,\n");
}

TEST(CsvTable, NoTableIsRefused) {
  EXPECT_THROW(document_csv(nlohmann::json::parse(R"({"schema": "gpuplan.train/v1", "mfu": 0.4})")), InputError);
}

}  // namespace
}  // namespace gpuplan::api
