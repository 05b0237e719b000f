#include "api/session.h"

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <unordered_map>

#include "api/api.h"
#include "core/input_file.h"
#include "core/error.h"
#include "physics/hardware.h"

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
    catalog.merge_yaml(read_input_file(file, "--calibration"), file);
  }
  catalog.check();
  return catalog;
}

struct Session::State {
  Catalog catalog;
  // Every system's and accelerator's hardware by its catalog name: resolving a name costs about as
  // much as evaluating an inference point (normalized lookups of the system, its accelerator, its
  // networks and the generation's efficiency), and the catalog never changes after this.
  std::unordered_map<std::string, Hardware> hardware;
};

namespace {

std::unordered_map<std::string, Hardware> resolve_all(const Catalog& catalog) {
  std::unordered_map<std::string, Hardware> out;
  auto add = [&](const std::string& name) {
    if (out.count(name)) return;
    try {
      out.emplace(name, resolve_hardware(catalog, name));
    } catch (const InputError&) {
      // left out: resolving it on each call gives the same error where it is asked for
    }
  };
  for (const auto& s : catalog.systems()) add(s.name);
  for (const auto& a : catalog.accelerators()) add(a.name);
  return out;
}

}  // namespace

Session::Session(std::vector<std::string> catalog_dirs, std::vector<std::string> calibration_files)
    : state_(std::make_unique<State>(State{load_catalog(catalog_dirs, calibration_files), {}})) {
  state_->hardware = resolve_all(state_->catalog);
}
Session::~Session() = default;
Session::Session(Session&&) noexcept = default;
Session& Session::operator=(Session&&) noexcept = default;

const Catalog& Session::catalog() const { return state_->catalog; }

const Hardware* Session::hardware(const std::string& name) const {
  const auto it = state_->hardware.find(name);
  return it == state_->hardware.end() ? nullptr : &it->second;
}

}  // namespace gpuplan::api
