#pragma once
// The one way gpuplan opens a file a user named (an option's value: a dataset, a trace, a cluster,
// a site, a cost profile, a claims file, a model's config.json, a calibration or catalog YAML).
// Only a regular file is read: a directory, device, FIFO or socket is refused before any byte is
// read (/dev/zero never ends, /dev/stdin waits forever), and so is a file over a size limit.
//
// A process that reads files for others (gpuplan serve) narrows this on the thread doing the work
// with an InputFileScope: only files under the directories it names are read (a relative path is
// looked up under each of them), and a path outside them gets the same answer whether or not a file
// is there; errors never quote a file's contents.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace gpuplan {

// Files larger than this are refused everywhere (the largest published dataset is a few MB).
inline constexpr std::uint64_t kMaxInputFileBytes = 256ull << 20;

struct InputFilePolicy {
  std::vector<std::string> roots;                 // directories files may be read under; empty: none
  std::uint64_t max_bytes = kMaxInputFileBytes;   // larger files are refused
  std::string roots_option = "--data-dir";        // the option that names the roots, for errors
};

// The contents of the file `path` that option `field` names. Throws InputError naming `field` when
// it does not exist, is not a regular file, is over the size limit, cannot be read, or (under an
// InputFileScope) is not under the scope's roots.
std::string read_input_file(const std::string& path, const std::string& field);

// The path read_input_file would read for `path`, when a regular file is there that it may read (for
// a name that may be a file or something else, such as a model name); nullopt otherwise.
std::optional<std::string> find_input_file(const std::string& path);

// While alive, read_input_file and find_input_file on this thread follow `policy`. Scopes nest.
class InputFileScope {
 public:
  explicit InputFileScope(InputFilePolicy policy);
  ~InputFileScope();
  InputFileScope(const InputFileScope&) = delete;
  InputFileScope& operator=(const InputFileScope&) = delete;

 private:
  InputFilePolicy policy_;
  const InputFilePolicy* previous_;
};

// The policy of the innermost scope on this thread; nullptr outside any.
const InputFilePolicy* active_input_file_policy();

// The canonical form of each directory that exists (symlinks and ".." resolved); others are left out.
std::vector<std::string> canonical_directories(const std::vector<std::string>& dirs);

}  // namespace gpuplan
