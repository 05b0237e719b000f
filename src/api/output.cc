#include "api/output.h"

#include <filesystem>
#include <stdexcept>

#include "core/error.h"

namespace gpuplan::api {

nlohmann::json document(const std::string& kind, nlohmann::json payload) {
  // The payload's own object gains the schema (its keys are sorted: where it goes does not matter);
  // a "schema" the payload already has is kept, as one written over it was before.
  if (payload.is_null()) payload = nlohmann::json::object();
  if (!payload.is_object()) throw std::logic_error("document(" + kind + "): the payload must be a JSON object");
  payload.get_ref<nlohmann::json::object_t&>().emplace("schema", "gpuplan." + kind + "/v1");
  return payload;
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
