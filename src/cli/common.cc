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

#include "core/error.h"

namespace gpuplan::cli {

void add_common_options(CLI::App& app, CommonOptions& opts) {
  app.add_option("--catalog", opts.catalog_dirs,
                 "Directory of catalog YAML files overriding or extending the built-in catalog "
                 "(repeatable; also $GPUPLAN_CATALOG, colon-separated)");
  app.add_option("--calibration", opts.calibration_files,
                 "Catalog YAML merged after everything else, e.g. the efficiencies `gpuplan probe --out` "
                 "measured on this machine (repeatable)");
  app.add_flag("--json", opts.json, "Print the versioned JSON result instead of tables");
}

Catalog load_catalog(const CommonOptions& opts) {
  std::vector<std::string> dirs;
  if (const char* env = std::getenv("GPUPLAN_CATALOG"); env && *env) {
    std::string s(env);
    size_t pos = 0;
    while (pos <= s.size()) {
      size_t end = s.find(':', pos);
      if (end == std::string::npos) end = s.size();
      if (end > pos) dirs.push_back(s.substr(pos, end - pos));
      pos = end + 1;
    }
  }
  dirs.insert(dirs.end(), opts.catalog_dirs.begin(), opts.catalog_dirs.end());
  Catalog catalog = Catalog::load(dirs);
  for (const auto& file : opts.calibration_files) {
    std::ifstream f(file, std::ios::binary);
    if (!f) throw InputError("--calibration", "cannot read file '" + file + "'");
    std::stringstream text;
    text << f.rdbuf();
    catalog.merge_yaml(text.str(), file);
  }
  catalog.check();
  return catalog;
}

namespace {

// Every value of a numeric option must be a finite number: NaN passes every `x < lo || x > hi` range
// check, and inf overflows what is computed from it. Applied by parse_args to every option whose
// type is numeric, so options added later are covered without a line of their own.
const CLI::Validator& finite_number() {
  static const CLI::Validator v(
      [](std::string& s) -> std::string {
        const char* b = s.c_str();
        char* end = nullptr;
        const double x = std::strtod(b, &end);
        if (end == b) return {};  // not a number at all: the type conversion reports it
        if (!std::isfinite(x)) return "must be a finite number, got '" + s + "'";
        return {};
      },
      "", "FINITE");  // no description: the help keeps showing the plain type
  return v;
}

bool numeric_type(const std::string& type_name) {
  for (const char* t : {"FLOAT", "INT", "UINT", "NUMBER"})
    if (type_name.find(t) != std::string::npos) return true;
  return false;
}

void check_numbers_finite(CLI::App& app) {
  for (CLI::Option* o : app.get_options())
    if (numeric_type(o->get_type_name())) o->check(finite_number());
  for (CLI::App* sub : app.get_subcommands({})) check_numbers_finite(*sub);
}

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
  check_numbers_finite(app);
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
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::exists(path, ec)) return;
  if (fs::is_directory(path, ec)) throw InputError(option, "'" + path + "' is a directory, not a file");
  std::vector<std::string> others = inputs;  // the output's own argument is not an input
  if (auto it = std::find(others.begin(), others.end(), path); it != others.end()) others.erase(it);
  for (const auto& in : others) {
    if (in.empty()) continue;
    std::error_code e2;
    if (fs::equivalent(path, in, e2))
      throw InputError(option, "'" + path + "' is an input of this command; it would be overwritten. Write elsewhere");
  }
  std::cerr << "note: " << option << ": replacing the existing file '" << path << "'\n";
}

InputError nothing_scored(const std::string& dataset, size_t rows, const std::string& first_skip_reason) {
  std::string msg = fmt::format("no row of '{}' could be scored ({} data rows", dataset, rows);
  msg += first_skip_reason.empty() ? ")" : fmt::format("; the first skipped: {})", first_skip_reason);
  return InputError("--dataset", msg);
}

void print_json(const std::string& kind, nlohmann::json payload) {
  nlohmann::json doc;
  doc["schema"] = "gpuplan." + kind + "/v1";
  for (auto& [k, v] : payload.items()) doc[k] = v;
  // Names come from user files; bytes that are not UTF-8 print as U+FFFD instead of aborting the dump.
  std::cout << doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
}

std::string today_utc() {
  const std::time_t t = std::time(nullptr);
  char buf[16];
  std::strftime(buf, sizeof buf, "%Y-%m-%d", std::gmtime(&t));
  return buf;
}

std::string human_bytes(double bytes) {
  const char* units[] = {"B", "KB", "MB", "GB", "TB", "PB"};
  int i = 0;
  while (bytes >= 1000.0 && i < 5) {
    bytes /= 1000.0;
    ++i;
  }
  return fmt::format("{:.1f} {}", bytes, units[i]);
}

std::string human_rate(double per_s, const char* unit) {
  const char* prefixes[] = {"", "K", "M", "G", "T", "P", "E"};
  int i = 0;
  while (per_s >= 1000.0 && i < 6) {
    per_s /= 1000.0;
    ++i;
  }
  return fmt::format("{:.1f} {}{}", per_s, prefixes[i], unit);
}

}  // namespace gpuplan::cli
