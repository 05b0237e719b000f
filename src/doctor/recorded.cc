#include "doctor/recorded.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/error.h"

namespace gpuplan::doctor {
namespace {

ToolOutput read_tool(const std::filesystem::path& dir, const std::string& stem) {
  ToolOutput t;
  std::ifstream f(dir / (stem + ".txt"));
  if (!f) {
    t.status = ToolStatus::missing;
    return t;
  }
  std::stringstream ss;
  ss << f.rdbuf();
  t.text = ss.str();
  t.status = ToolStatus::ok;
  std::ifstream e(dir / (stem + ".exit"));
  if (e && (e >> t.exit_code) && t.exit_code != 0) t.status = ToolStatus::failed;
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
