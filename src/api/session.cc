#include "api/session.h"

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "api/api.h"
#include "core/error.h"

namespace gpuplan::api {

Catalog load_catalog(const std::vector<std::string>& catalog_dirs, const std::vector<std::string>& calibration_files) {
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
  dirs.insert(dirs.end(), catalog_dirs.begin(), catalog_dirs.end());
  Catalog catalog = Catalog::load(dirs);
  for (const auto& file : calibration_files) {
    std::ifstream f(file, std::ios::binary);
    if (!f) throw InputError("--calibration", "cannot read file '" + file + "'");
    std::stringstream text;
    text << f.rdbuf();
    catalog.merge_yaml(text.str(), file);
  }
  catalog.check();
  return catalog;
}

struct Session::State {
  Catalog catalog;
};

Session::Session(std::vector<std::string> catalog_dirs, std::vector<std::string> calibration_files)
    : state_(std::make_unique<State>(State{load_catalog(catalog_dirs, calibration_files)})) {}
Session::~Session() = default;
Session::Session(Session&&) noexcept = default;
Session& Session::operator=(Session&&) noexcept = default;

const Catalog& Session::catalog() const { return state_->catalog; }

}  // namespace gpuplan::api
