#pragma once
// Shared pieces of the sub-commands: the options every command takes, catalog loading, JSON output.
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <iostream>
#include <string>
#include <vector>

#include "api/band_json.h"
#include "api/cost_options.h"
#include "api/csv_table.h"
#include "api/fabric_options.h"
#include "api/options.h"
#include "api/output.h"
#include "api/text.h"
#include "api/training_json.h"
#include "catalog/catalog.h"
#include "core/error.h"

namespace gpuplan::cli {

// The CLI is a face of the API (src/api): its option definitions, evaluations, documents and the
// presentation helpers come from there.
using namespace gpuplan::api;

struct CommonOptions {
  std::vector<std::string> catalog_dirs;  // --catalog DIR (repeatable), then $GPUPLAN_CATALOG
  std::vector<std::string> calibration_files;  // --calibration FILE: catalog YAML merged last (probe output)
  bool json = false;                      // --json
  bool csv = false;                       // --csv: the document's table (api/csv_table.h)
};

// Adds --catalog, --calibration and --json to a command, and --csv where `csv` (the commands present()
// prints: their document's table).
void add_common_options(CLI::App& app, CommonOptions& opts, bool csv = false);
// The built-in catalog overlaid by --catalog dirs and $GPUPLAN_CATALOG (colon-separated).
Catalog load_catalog(const CommonOptions& opts);

// With --json anywhere on the command line (main() sets this), errors are printed as a JSON document
// on stdout too: {"schema": "gpuplan.error/v1", "message", "field", "exit_code"}; the exit code and the
// stderr line stay as they are.
void set_json_errors(bool on);
// Reports an error: "error: MESSAGE" on stderr, and the JSON document when set_json_errors(true).
void print_error(const std::string& message, const std::string& field, int exit_code);

// Parses argv with CLI11; returns -1 to continue, or the exit code (help printed: 0; error: 2).
int parse_args(CLI::App& app, int argc, char** argv);
// The same, recording the options given into the API request (RequestBase::given).
int parse_args(CLI::App& app, int argc, char** argv, RequestBase& req);

// Wraps a command body: InputError and CLI11 errors -> message on stderr and exit 2; anything else
// -> message and exit 1.
template <typename F>
int run_guarded(F&& body);
int report_exception();

// Before writing `path` (given with `option`): an InputError when it is the same file as one of
// `inputs` (every argument of its command line; the one naming the output is dropped), so `--out c.yaml` cannot
// replace the cluster file it reads; when the file exists it is replaced and a note on stderr says so.
void check_output_file(const std::string& path, const std::string& option, const std::vector<std::string>& inputs);

// Prints a versioned JSON document: {"schema": "gpuplan.<kind>/v1", ...payload}.
void print_json(const std::string& kind, nlohmann::json payload);

// Today's date in UTC as YYYY-MM-DD (stamps fitted or measured calibrations).
std::string today_utc();

bool stderr_is_terminal();
// Prints the document (the API's Output) as the CLI's --json.
void print_document(const nlohmann::json& doc);

// Runs one API command function for the CLI: its text on stdout, or with --json its document.
// Returns the exit code (0 or 3).
template <typename F>
int present(const CommonOptions& common, F&& command) {
  const bool doc = common.json || common.csv;
  Output out;
  if (!doc) out.text = &std::cout;
  out.notes = &std::cerr;
  out.progress = stderr_is_terminal();
  const int rc = command(out);
  if (common.csv)
    std::cout << document_csv(out.doc);
  else if (common.json)
    print_document(out.doc);
  return rc;
}

template <typename F>
int run_guarded(F&& body) {
  try {
    return body();
  } catch (...) {
    return report_exception();
  }
}

}  // namespace gpuplan::cli
