#include "api/output.h"

#include <filesystem>

#include "core/error.h"

namespace gpuplan::api {

nlohmann::json document(const std::string& kind, nlohmann::json payload) {
  nlohmann::json doc;
  doc["schema"] = "gpuplan." + kind + "/v1";
  for (auto& [k, v] : payload.items()) doc[k] = std::move(v);
  return doc;
}

void check_output_file(const std::string& path, const std::string& option, const std::vector<std::string>& inputs,
                       std::ostream* notes) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::exists(path, ec)) return;
  if (fs::is_directory(path, ec)) throw InputError(option, "'" + path + "' is a directory, not a file");
  for (const auto& in : inputs) {
    if (in.empty()) continue;
    std::error_code e2;
    if (fs::equivalent(path, in, e2))
      throw InputError(option, "'" + path + "' is an input of this command; it would be overwritten. Write elsewhere");
  }
  if (notes) *notes << "note: " << option << ": replacing the existing file '" << path << "'\n";
}

}  // namespace gpuplan::api
