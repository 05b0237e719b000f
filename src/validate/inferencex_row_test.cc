// The deployment cells of an InferenceX-schema row: yes/no flags and speculative decoding in the forms
// tables write them, blank GPU counts derived, contradictions and unreadable cells refused with the
// column named; and the whole file gives the same predictions whichever form its cells take.
#include "validate/inferencex_row.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>

#include "catalog/catalog.h"
#include "validate/inference_cases.h"
#include "validate/validation.h"

namespace gpuplan {
namespace {

CsvTable one_row(const std::map<std::string, std::string>& cells) {
  CsvTable t;
  t.rows.emplace_back();
  for (const auto& [k, v] : cells) {
    t.header.push_back(k);
    t.rows[0].push_back(v);
  }
  return t;
}

// A disaggregated row as the file writes it: one prefill worker of 8, two decode workers of 8.
std::map<std::string, std::string> disaggregated_cells() {
  return {{"disaggregated", "yes"}, {"prefill_workers", "1"}, {"prefill_tp", "8"}, {"prefill_ep", "8"},
          {"prefill_attention_dp", "no"}, {"decode_workers", "2"}, {"decode_tp", "8"}, {"decode_ep", "8"},
          {"decode_attention_dp", "yes"}, {"prefill_gpus", "8"}, {"decode_gpus", "16"}, {"gpus", "24"},
          {"spec_decode", "mtp"}};
}

TEST(InferenceXRow, YesNoForms) {
  for (const char* s : {"yes", "YES", " y ", "true", "True", "1", "on"})
    EXPECT_EQ(read_yes_no_cell(s), YesNoCell::yes) << s;
  for (const char* s : {"no", "No", "n", "FALSE", "0", "off"}) EXPECT_EQ(read_yes_no_cell(s), YesNoCell::no) << s;
  EXPECT_EQ(read_yes_no_cell(""), YesNoCell::blank);
  EXPECT_EQ(read_yes_no_cell("   "), YesNoCell::blank);
  for (const char* s : {"maybe", "2", "yes?", "nope"}) EXPECT_EQ(read_yes_no_cell(s), YesNoCell::unreadable) << s;
}

TEST(InferenceXRow, SpecDecodeForms) {
  for (const char* s : {"mtp", "MTP", "mtp (3 draft tokens)", "nextn", "EAGLE"})
    EXPECT_EQ(read_spec_decode_cell(s), SpecDecodeCell::mtp) << s;
  for (const char* s : {"none", "None", "no", "off", "0", "-"})
    EXPECT_EQ(read_spec_decode_cell(s), SpecDecodeCell::none) << s;
  EXPECT_EQ(read_spec_decode_cell(""), SpecDecodeCell::blank);
  for (const char* s : {"ngram", "medusa", "draft-model"})
    EXPECT_EQ(read_spec_decode_cell(s), SpecDecodeCell::unreadable) << s;
}

TEST(InferenceXRow, StatedDeploymentIsReadAsItIs) {
  InferenceXDeployment d;
  ASSERT_FALSE(read_inferencex_deployment(one_row(disaggregated_cells()), 0, d));
  EXPECT_TRUE(d.disaggregated);
  EXPECT_FALSE(d.prefill_attention_dp);
  EXPECT_TRUE(d.decode_attention_dp);
  EXPECT_TRUE(d.mtp);
  EXPECT_EQ(d.prefill_gpus, 8);
  EXPECT_EQ(d.decode_gpus, 16);
  EXPECT_EQ(d.gpus, 24);
  EXPECT_EQ(d.decode_workers, 2);
  EXPECT_TRUE(d.notes.empty());
}

TEST(InferenceXRow, BlankCellsAreDerivedAndSaid) {
  // No disaggregated cell: the prefill pool the row states makes it disaggregated.
  auto cells = disaggregated_cells();
  cells["disaggregated"] = "";
  cells["gpus"] = "";
  cells["decode_gpus"] = "";
  InferenceXDeployment d;
  ASSERT_FALSE(read_inferencex_deployment(one_row(cells), 0, d));
  EXPECT_TRUE(d.disaggregated);
  EXPECT_EQ(d.decode_gpus, 16);  // 2 workers x 8
  EXPECT_EQ(d.gpus, 24);
  EXPECT_EQ(d.notes.size(), 3u);
  // One pool blank beside a stated total: the total less the other pool (the records' TP/EP may be
  // narrower than the workers).
  cells = disaggregated_cells();
  cells["decode_gpus"] = "";
  cells["decode_tp"] = "1";
  cells["decode_ep"] = "1";
  ASSERT_FALSE(read_inferencex_deployment(one_row(cells), 0, d));
  EXPECT_EQ(d.decode_gpus, 16);
  // An aggregated row without gpus: its workers x width; without the disaggregated cell and any
  // prefill pool it is aggregated.
  ASSERT_FALSE(read_inferencex_deployment(
      one_row({{"decode_workers", "1"}, {"decode_tp", "8"}, {"decode_ep", "1"}, {"spec_decode", ""}}), 0, d));
  EXPECT_FALSE(d.disaggregated);
  EXPECT_FALSE(d.mtp);
  EXPECT_EQ(d.gpus, 8);
  EXPECT_EQ(d.decode_gpus, 8);
  EXPECT_EQ(d.notes.size(), 3u);  // disaggregated, spec_decode and gpus read by a rule
  // An aggregated row whose table writes its (absent) prefill pool as 0.
  ASSERT_FALSE(read_inferencex_deployment(one_row({{"disaggregated", ""}, {"prefill_workers", "0"}, {"prefill_gpus", "0"},
                                                   {"decode_workers", "1"}, {"decode_tp", "8"}, {"gpus", "8"}}),
                                          0, d));
  EXPECT_FALSE(d.disaggregated);
  EXPECT_EQ(d.gpus, 8);
}

TEST(InferenceXRow, UnreadableOrContradictoryCellsNameTheColumn) {
  InferenceXDeployment d;
  auto reason = [&](const std::string& column, const std::string& value) {
    auto cells = disaggregated_cells();
    cells[column] = value;
    return read_inferencex_deployment(one_row(cells), 0, d).value_or("");
  };
  EXPECT_NE(reason("disaggregated", "partly").find("disaggregated 'partly' is not yes or no"), std::string::npos);
  EXPECT_NE(reason("decode_attention_dp", "8").find("decode_attention_dp"), std::string::npos);
  EXPECT_NE(reason("spec_decode", "ngram").find("spec_decode 'ngram'"), std::string::npos);
  EXPECT_NE(reason("gpus", "32").find("gpus 32 differs from prefill_gpus 8 + decode_gpus 16"), std::string::npos);
  EXPECT_NE(reason("decode_workers", "two").find("decode_workers 'two' is not a count"), std::string::npos);
  EXPECT_NE(reason("prefill_gpus", "-8").find("prefill_gpus '-8'"), std::string::npos);
  EXPECT_NE(reason("gpus", "0").find("gpus 0 is below 1"), std::string::npos);
  auto cells = disaggregated_cells();
  cells["gpus"] = "";
  cells["decode_gpus"] = "";
  cells["decode_tp"] = "";
  cells["decode_ep"] = "";
  EXPECT_NE(read_inferencex_deployment(one_row(cells), 0, d).value_or("").find("the decode pool's size is unknown"),
            std::string::npos);
}

// The file with its cells in other forms (flags as true/false and 1/0, the disaggregated and gpus
// columns blank, another model id and spelling of MTP, lengths as 1k/8K, counts as 4,096, days as
// "Feb 13, 2026") maps to the same cases and predictions.
TEST(InferenceXRow, CellFormsGiveTheSamePredictions) {
  const std::string file = std::string(GPUPLAN_SHARED_DATA_DIR) + "/benchmarks/inferencex-deepseek-r1.csv";
  if (!std::filesystem::exists(file)) GTEST_SKIP() << "no " << file;
  const CsvTable t = read_csv_file(file, "--dataset");
  CsvTable u = t;
  auto set = [&](size_t row, const char* column, const std::string& v) { u.rows[row][size_t(u.column(column))] = v; };
  for (size_t i = 0; i < u.rows.size(); ++i) {
    const bool dis = t.cell(i, "disaggregated") == "yes";
    set(i, "disaggregated", i % 2 ? "" : (dis ? "True" : "False"));
    for (const char* c : {"prefill_attention_dp", "decode_attention_dp"})
      if (!t.cell(i, c).empty()) set(i, c, t.cell(i, c) == "yes" ? "1" : "0");
    set(i, "gpus", "");
    // The total is blank too: the pool is its workers x max(TP, EP) where the record's widths are
    // the workers' (some Dynamo + SGLang records understate them as TP = EP = 1).
    double w = 0, tp = 0, ep = 0, g = 0;
    if (dis && parse_cell_number(t.cell(i, "prefill_workers"), w) && parse_cell_number(t.cell(i, "prefill_tp"), tp) &&
        parse_cell_number(t.cell(i, "prefill_ep"), ep) && parse_cell_number(t.cell(i, "prefill_gpus"), g) &&
        w * std::max(tp, ep) == g)
      set(i, "prefill_gpus", "");
    set(i, "spec_decode", t.cell(i, "spec_decode") == "mtp" ? "MTP" : "None");
    set(i, "model", "deepseek-ai/DeepSeek-R1-0528");
    // Nominal lengths as the runs name them ("8k/1k"), counts with thousands groups.
    for (const char* c : {"isl", "osl"})
      if (t.cell(i, c) == "1024" || t.cell(i, c) == "8192") set(i, c, t.cell(i, c) == "1024" ? "1k" : "8K");
    // Run days as "Feb 13, 2026".
    static const char* kMonths[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
    const std::string day = t.cell(i, "date");
    if (day.size() == 10)
      set(i, "date", fmt::format("{} {}, {}", kMonths[std::stoi(day.substr(5, 2)) - 1], std::stoi(day.substr(8, 2)),
                                 day.substr(0, 4)));
    double conc = 0;
    if (parse_cell_number(t.cell(i, "concurrency"), conc) && conc >= 1000)
      set(i, "concurrency", fmt::format("{},{:03d}", int(conc) / 1000, int(conc) % 1000));
  }
  const Catalog cat = Catalog::load({});
  std::vector<SkippedRow> sa, sb;
  const auto a = map_inferencex_cases(t, cat, sa);
  const auto b = map_inferencex_cases(u, cat, sb);
  ASSERT_TRUE(sa.empty());
  ASSERT_TRUE(sb.empty()) << sb.front().reason;
  ASSERT_EQ(a.size(), b.size());
  for (size_t k = 0; k < a.size(); ++k) {
    ASSERT_EQ(a[k].row, b[k].row);
    ASSERT_EQ(a[k].metric, b[k].metric);
    EXPECT_DOUBLE_EQ(predict_inference_case(a[k]), predict_inference_case(b[k])) << a[k].row << " " << a[k].metric;
  }
}

}  // namespace
}  // namespace gpuplan
