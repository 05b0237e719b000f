#include "core/output_path.h"

#include <sys/stat.h>

#include <filesystem>

#include "core/error.h"

namespace gpuplan {

namespace fs = std::filesystem;

namespace {

constexpr const char* kOutputOptions[] = {"--out", "--write", "--write-bands", "--write-trace", "--output-dir"};

bool is_output_option(const std::string& option) {
  for (const char* o : kOutputOptions)
    if (option == o) return true;
  return false;
}

bool same_file(const struct stat& a, const struct stat& b) { return a.st_dev == b.st_dev && a.st_ino == b.st_ino; }

}  // namespace

void check_output_path(const std::string& path, const std::string& option, const std::vector<NamedInput>& inputs) {
  if (path.empty()) throw InputError(option, "an empty file name");
  struct stat out {};
  if (::stat(path.c_str(), &out) != 0) return;  // a new file: no input can be it
  if (S_ISDIR(out.st_mode)) throw InputError(option, "'" + path + "' is a directory; give a file name to write");
  if (!S_ISREG(out.st_mode))
    throw InputError(option, "'" + path + "' is not a regular file (a device, FIFO or socket is never written)");
  for (const auto& [input_option, input] : inputs) {
    if (input.empty()) continue;
    struct stat in {};
    if (::stat(input.c_str(), &in) != 0) continue;
    bool clash = same_file(in, out);
    if (!clash && S_ISDIR(in.st_mode)) {  // a file inside an input directory (--catalog DIR)
      std::error_code ec;
      const fs::path parent = fs::canonical(path, ec).parent_path();
      struct stat p {};
      clash = !ec && ::stat(parent.c_str(), &p) == 0 && same_file(in, p);
    }
    if (clash)
      throw InputError(option, "'" + path + "' is an input of this run (" + input_option + " '" + input +
                                   "'); give another file to write, inputs are never overwritten");
  }
}

std::vector<NamedInput> inputs_from_args(const std::vector<std::string>& args) {
  std::vector<NamedInput> out;
  std::string option = "argument";  // the option the next value belongs to
  for (const auto& a : args) {
    if (a.size() > 2 && a.starts_with("--")) {
      const auto eq = a.find('=');
      if (eq != std::string::npos) {
        const std::string name = a.substr(0, eq);
        if (!is_output_option(name)) out.emplace_back(name, a.substr(eq + 1));
        option = "argument";
      } else {
        option = a;
      }
      continue;
    }
    if (!is_output_option(option)) out.emplace_back(option, a);
    option = "argument";
  }
  return out;
}

void check_output_dir(const std::string& dir, const std::string& option) {
  if (dir.empty()) throw InputError(option, "an empty directory name");
  std::error_code ec;
  if (fs::exists(dir, ec) && !fs::is_directory(dir, ec))
    throw InputError(option, "'" + dir + "' exists and is not a directory");
}

}  // namespace gpuplan
