#include "doctor/recorded.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/error.h"
#include "core/input_file.h"

namespace gpuplan::doctor {
namespace {

ToolOutput read_tool(const std::filesystem::path& dir, const std::string& stem) {
  ToolOutput t;
  std::error_code ec;
  const auto text = dir / (stem + ".txt"), exit = dir / (stem + ".exit");
  if (!std::filesystem::exists(text, ec)) {
    t.status = ToolStatus::missing;
    return t;
  }
  t.text = read_input_file(text.string(), "--replay");
  t.status = ToolStatus::ok;
  if (std::filesystem::exists(exit, ec)) {
    std::istringstream e(read_input_file(exit.string(), "--replay"));
    if ((e >> t.exit_code) && t.exit_code != 0) t.status = ToolStatus::failed;
  }
  return t;
}

}  // namespace

Environment load_recorded(const std::string& dir) {
  if (!std::filesystem::is_directory(dir)) throw InputError("--replay", "'" + dir + "' is not a directory");
  Environment env;
  env.smi_query = read_tool(dir, "nvidia-smi-query");
  env.smi_topo = read_tool(dir, "nvidia-smi-topo");
  env.nvcc = read_tool(dir, "nvcc-version");
  env.torch = read_tool(dir, "torch");
  return env;
}

}  // namespace gpuplan::doctor
