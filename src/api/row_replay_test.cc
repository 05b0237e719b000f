// Every validated row replays as a command: a sample of rows from every validation file (every Nth
// scored row), each row's `command` run through the API (the same options the CLI parses) gives the
// row's predicted figure.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include "api/api.h"
#include "core/csv.h"
#include "core/error.h"
#include "validate/inference_cases.h"
#include "validate/open_loop_cases.h"
#include "validate/training_cases.h"
#include "validate/validation.h"

namespace gpuplan::api {
namespace {

const Session& replay_session() {
  static const Session s;
  return s;
}

// The command's words (single-quoted words as the shell reads them).
std::vector<std::string> command_words(const std::string& line) {
  std::vector<std::string> out;
  std::string cur;
  bool quoted = false, any = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char ch = line[i];
    if (ch == '\'') {
      quoted = !quoted;
      any = true;
    } else if (ch == '\\' && !quoted && i + 1 < line.size()) {
      cur += line[++i];
    } else if (ch == ' ' && !quoted) {
      if (any || !cur.empty()) out.push_back(cur);
      cur.clear();
      any = false;
    } else {
      cur += ch;
    }
  }
  if (any || !cur.empty()) out.push_back(cur);
  return out;
}

// `gpuplan infer|train --a 1 --flag ... --json` as run()'s options.
nlohmann::json replay_options(const std::vector<std::string>& w) {
  nlohmann::json o = nlohmann::json::object();
  for (size_t i = 2; i < w.size(); ++i) {
    const bool value = i + 1 < w.size() && w[i + 1].rfind("--", 0) != 0;
    o[w[i]] = value ? nlohmann::json(w[i + 1]) : nlohmann::json(true);
    if (value) ++i;
  }
  return o;
}

// The value at `field` ("step_time_s", or "mfu.with_attention": a path into nested objects); null when absent.
const nlohmann::json* field_at(const nlohmann::json& doc, const std::string& field) {
  const nlohmann::json* v = &doc;
  size_t pos = 0;
  while (pos <= field.size()) {
    size_t end = field.find('.', pos);
    if (end == std::string::npos) end = field.size();
    const std::string key = field.substr(pos, end - pos);
    if (!v->is_object() || !v->contains(key)) return nullptr;
    v = &(*v)[key];
    pos = end + 1;
  }
  return v;
}

struct ReplayCount {
  size_t rows = 0, same = 0;
  std::vector<std::string> differ;
};

// `blank`: training plan columns to blank in every row (their values then come from the blank-plan fill).
ReplayCount replay_rows_of(const std::string& name, size_t every, const std::vector<std::string>& blank = {}) {
  const std::string path = std::string(GPUPLAN_SHARED_DATA_DIR) + "/benchmarks/" + name;
  ReplayCount out;
  if (!std::filesystem::exists(path)) return out;
  const Catalog& catalog = replay_session().catalog();
  CsvTable t = read_csv_file(path, "--dataset");
  for (const std::string& col : blank)
    if (const int c = t.column(col); c >= 0)
      for (auto& row : t.rows)
        if (static_cast<size_t>(c) < row.size()) row[static_cast<size_t>(c)].clear();
  std::vector<SkippedRow> skipped;
  ValidationReport rep;
  if (is_training_schema(t)) {
    const std::vector<TrainingCase> cases = map_training_cases(t, catalog, skipped);
    std::vector<TrainingCase> sample;
    for (size_t i = 0; i < cases.size(); i += every) sample.push_back(cases[i]);
    rep = validate_training(sample, {}, name);
  } else {
    std::vector<InferenceCase> cases =
        is_inferencex_schema(t) ? map_inferencex_cases(t, catalog, skipped) : map_inference_cases(t, catalog, skipped);
    std::vector<InferenceCase> sample;
    for (size_t i = 0; i < cases.size(); i += every) sample.push_back(cases[i]);
    rep = validate_inference(sample, {}, name, &catalog);
  }
  for (const auto& r : rep.rows) {
    ++out.rows;
    const auto w = command_words(r.command);
    EXPECT_GE(w.size(), 3u) << r.command;
    if (w.size() < 3) continue;
    EXPECT_EQ(w[0], "gpuplan");
    double got = -1;
    std::string why;
    try {
      const nlohmann::json doc = run(replay_session(), w[1], replay_options(w));
      if (const nlohmann::json* v = field_at(doc, r.command_field); v && v->is_number())
        got = v->get<double>() * r.command_scale;
      else
        why = "no field " + r.command_field;
    } catch (const InputError& e) {
      why = std::string(e.field()) + ": " + e.what();
    }
    if (std::fabs(got - r.predicted) <= 1e-6 * std::fabs(r.predicted)) {
      ++out.same;
    } else {
      out.differ.push_back(fmt::format("row {} {} predicted {} replayed {} {}\n  {}", r.row, r.metric, r.predicted, got,
                                       why, r.command));
    }
  }
  return out;
}

void expect_rows_replay(const std::string& name, size_t every, const std::vector<std::string>& blank = {}) {
  const ReplayCount r = replay_rows_of(name, every, blank);
  if (r.rows == 0) GTEST_SKIP() << name << " not present";
  std::string list;
  for (size_t i = 0; i < r.differ.size() && i < 12; ++i) list += r.differ[i] + "\n";
  EXPECT_EQ(r.same, r.rows) << name << ": " << r.differ.size() << " of " << r.rows << " rows replay differently\n"
                            << list;
}

// The open-loop rows (rows measured under Poisson arrivals at a known rate: MLPerf's Server and
// Interactive p99s, a stated request rate's means) and MLPerf's limit checks, every `every`th, replay as
// `infer --requests-per-s` on the row's deployment.
void expect_open_loop_rows_replay(const std::string& name, size_t every) {
  const std::string path = std::string(GPUPLAN_SHARED_DATA_DIR) + "/benchmarks/" + name;
  if (!std::filesystem::exists(path)) GTEST_SKIP() << name << " not present";
  const Catalog& catalog = replay_session().catalog();
  const CsvTable t = read_csv_file(path, "--dataset");
  std::vector<SkippedRow> skipped;
  const std::vector<InferenceCase> cases = map_inference_cases(t, catalog, skipped);
  const OpenLoopValidation v = validate_open_loop(t, cases, skipped, {}, &catalog);
  struct Replay {
    std::string command, field;
    double scale, predicted;
    size_t row;
  };
  std::vector<Replay> all;
  for (const auto& r : v.rows) all.push_back({r.command, r.command_field, r.command_scale, r.predicted, r.row});
  for (const auto& l : v.limits) all.push_back({l.command, "max_rate_within_limits_per_s", 1.0, l.max_rate_per_s, l.row});
  ASSERT_FALSE(all.empty()) << name;
  size_t rows = 0, same = 0;
  std::string list;
  for (size_t i = 0; i < all.size(); i += every) {
    const Replay& x = all[i];
    ++rows;
    const auto w = command_words(x.command);
    ASSERT_GE(w.size(), 3u) << x.command;
    double got = -1;
    std::string why;
    try {
      nlohmann::json options = replay_options(w);
      options["--draws"] = "1";  // the odds' draws leave the central figures as they are
      const nlohmann::json doc = run(replay_session(), w[1], options);
      if (const nlohmann::json* f = field_at(doc, x.field); f && f->is_number()) got = f->get<double>() * x.scale;
      else why = "no field " + x.field;
    } catch (const InputError& e) {
      why = std::string(e.field()) + ": " + e.what();
    }
    if (std::fabs(got - x.predicted) <= 1e-6 * std::fabs(x.predicted)) ++same;
    else list += fmt::format("row {} predicted {} replayed {} {}\n  {}\n", x.row, x.predicted, got, why, x.command);
  }
  EXPECT_EQ(same, rows) << name << ": open-loop rows replay differently\n" << list;
}

TEST(RowReplay, OpenLoopMlperf) { expect_open_loop_rows_replay("mlperf-inference-v4.1-v5.0.csv", 3); }
TEST(RowReplay, OpenLoopRequestRates) { expect_open_loop_rows_replay("inference.csv", 5); }

TEST(RowReplay, InferenceCsv) { expect_rows_replay("inference.csv", 20); }
TEST(RowReplay, MlperfInference) { expect_rows_replay("mlperf-inference-v4.1-v5.0.csv", 20); }
TEST(RowReplay, InferenceX) { expect_rows_replay("inferencex-deepseek-r1.csv", 20); }
TEST(RowReplay, TrainingCsv) { expect_rows_replay("training.csv", 4); }
// Rows with a blank plan replay as `train` with the plan the fill chose stated.
TEST(RowReplay, TrainingCsvBlankPlan) {
  expect_rows_replay("training.csv", 7, {"tp", "pp", "vp", "cp", "ep", "dp", "mbs", "recompute"});
}
TEST(RowReplay, AIConfigurator) { expect_rows_replay("aiconfigurator-silicon-sample-ttft-tpot.csv", 200); }

}  // namespace
}  // namespace gpuplan::api
