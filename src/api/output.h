#pragma once
// Where a command's result goes: the versioned JSON document (run(), the CLI's --json) or the
// terminal text (the CLI). One evaluation feeds both, so the two cannot disagree.
#include <nlohmann/json.hpp>

#include <ostream>
#include <string>
#include <vector>

namespace gpuplan::api {

// Exit codes of the CLI, returned by every command function: 0 success, 2 bad input (thrown as
// InputError, never returned), 3 the plan asked for (or every plan the command could choose) does
// not fit in memory: the result is still produced, with the shortfall first.
inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;
inline constexpr int kExitBadInput = 2;
inline constexpr int kExitDoesNotFit = 3;

// {"schema": "gpuplan.<kind>/v1", ...payload}.
nlohmann::json document(const std::string& kind, nlohmann::json payload);

struct Output {
  // Null: build the document; else the human text goes there.
  std::ostream* text = nullptr;
  nlohmann::json doc;
  // The CLI's stderr for progress and notes (e.g. "replacing the existing file"); null: silent.
  std::ostream* notes = nullptr;
  // Progress of long runs (schedule) to `notes`: the CLI sets it when stderr is a terminal.
  bool progress = false;

  bool json() const { return text == nullptr; }
  std::ostream& os() const { return *text; }
  // Sets the document: {"schema": "gpuplan.<kind>/v1", ...payload}.
  void emit(const std::string& kind, nlohmann::json payload) { doc = document(kind, std::move(payload)); }
};

// Before writing `path` (given with `option`): an InputError when it is the same file as one of
// `inputs` (the files the command reads), so `--out c.yaml` cannot replace the cluster file it
// reads; when the file exists it is replaced and a note to `notes` (when not null) says so.
void check_output_file(const std::string& path, const std::string& option, const std::vector<std::string>& inputs,
                       std::ostream* notes);

// The same for a command line `args` (the CLI's argv, a report's tokens): every argument but the
// values of output options is an input (core/output_path.h inputs_from_args), named by its option.
void check_output_file_of_args(const std::string& path, const std::string& option, const std::vector<std::string>& args,
                               std::ostream* notes);

}  // namespace gpuplan::api
