#include "api/output.h"

#include <filesystem>
#include <stdexcept>

#include "core/error.h"
#include "core/output_path.h"

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
  std::vector<NamedInput> named;
  for (const auto& in : inputs) named.emplace_back("input", in);
  check_output_path(path, option, named);
  std::error_code ec;
  if (notes && std::filesystem::exists(path, ec))
    *notes << "note: " << option << ": replacing the existing file '" << path << "'\n";
}

void check_output_file_of_args(const std::string& path, const std::string& option, const std::vector<std::string>& args,
                               std::ostream* notes) {
  check_output_path(path, option, inputs_from_args(args));
  std::error_code ec;
  if (notes && std::filesystem::exists(path, ec))
    *notes << "note: " << option << ": replacing the existing file '" << path << "'\n";
}

}  // namespace gpuplan::api
