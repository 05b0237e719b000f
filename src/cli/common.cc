#include "cli/common.h"

#include <fmt/format.h>

#include <cstdlib>
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
bool g_json_errors = false;
}  // namespace

void set_json_errors(bool on) { g_json_errors = on; }

void print_error(const std::string& message, const std::string& field, int exit_code) {
  std::cerr << "error: " << message << "\n";
  if (!g_json_errors) return;
  nlohmann::json doc = {{"schema", "gpuplan.error/v1"}, {"message", message},
                        {"field", field.empty() ? nlohmann::json(nullptr) : nlohmann::json(field)},
                        {"exit_code", exit_code}};
  std::cout << doc.dump(2) << "\n";
}

int parse_args(CLI::App& app, int argc, char** argv) {
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
  } catch (const std::exception& e) {
    print_error(e.what(), "", kExitFailure);
    return kExitFailure;
  }
}

void print_json(const std::string& kind, nlohmann::json payload) {
  nlohmann::json doc;
  doc["schema"] = "gpuplan." + kind + "/v1";
  for (auto& [k, v] : payload.items()) doc[k] = v;
  std::cout << doc.dump(2) << "\n";
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
