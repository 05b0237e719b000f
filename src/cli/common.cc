#include "cli/common.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <ctime>
#include <fstream>
#include <sstream>
#include <iostream>

#include <unistd.h>

#include "api/session.h"
#include "core/error.h"

namespace gpuplan::cli {

void add_common_options(CLI::App& app, CommonOptions& opts, bool csv) {
  app.add_option("--catalog", opts.catalog_dirs,
                 "Directory of catalog YAML files overriding or extending the built-in catalog "
                 "(repeatable; also $GPUPLAN_CATALOG, colon-separated)");
  app.add_option("--calibration", opts.calibration_files,
                 "Catalog YAML merged after everything else, e.g. the efficiencies `gpuplan probe --out` "
                 "measured on this machine (repeatable)");
  auto* json = app.add_flag("--json", opts.json, "Print the versioned JSON result instead of tables");
  if (!csv) return;
  app.add_flag("--csv", opts.csv,
               "Print the result's table as CSV: one line per row, nested fields as dotted columns (e.g. "
               "recommend's ranked systems)")
      ->excludes(json);
}

Catalog load_catalog(const CommonOptions& opts) { return api::load_catalog(opts.catalog_dirs, opts.calibration_files); }

namespace {

bool g_json_errors = false;

}  // namespace

void set_json_errors(bool on) { g_json_errors = on; }

void print_error(const std::string& message, const std::string& field, int exit_code) {
  std::cerr << "error: " << message << "\n";
  if (!g_json_errors) return;
  nlohmann::json doc = {{"schema", "gpuplan.error/v1"}, {"message", message},
                        {"field", field.empty() ? nlohmann::json(nullptr) : nlohmann::json(field)},
                        {"exit_code", exit_code}};
  std::cout << doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
}

int parse_args(CLI::App& app, int argc, char** argv) {
  check_option_values(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    print_error(std::string(e.what()) + "\nRun with --help for the options.", "", kExitBadInput);
    return kExitBadInput;
  }
  return -1;
}

int parse_args(CLI::App& app, int argc, char** argv, RequestBase& req) {
  const int rc = parse_args(app, argc, argv);
  if (rc < 0) record_given(app, req);
  return rc;
}

int report_exception() {
  try {
    throw;
  } catch (const InputError& e) {
    print_error(e.what(), e.field(), kExitBadInput);
    return kExitBadInput;
  } catch (const CLI::ParseError& e) {
    print_error(e.what(), "", kExitBadInput);
    return kExitBadInput;
  } catch (const YAML::Exception& e) {  // a conversion a reader did not guard: still the input's fault
    print_error(std::string("malformed YAML input: ") + e.what(), "", kExitBadInput);
    return kExitBadInput;
  } catch (const std::exception& e) {
    print_error(e.what(), "", kExitFailure);
    return kExitFailure;
  }
}

void check_output_file(const std::string& path, const std::string& option, const std::vector<std::string>& inputs) {
  api::check_output_file_of_args(path, option, inputs, &std::cerr);
}

bool stderr_is_terminal() { return isatty(STDERR_FILENO); }

void print_json(const std::string& kind, nlohmann::json payload) { print_document(document(kind, std::move(payload))); }

void print_document(const nlohmann::json& doc) {
  // Names come from user files; bytes that are not UTF-8 print as U+FFFD instead of aborting the dump.
  std::cout << doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
}

std::string today_utc() {
  const std::time_t t = std::time(nullptr);
  char buf[16];
  std::strftime(buf, sizeof buf, "%Y-%m-%d", std::gmtime(&t));
  return buf;
}

}  // namespace gpuplan::cli
