#include "core/input_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "core/error.h"

namespace gpuplan {

namespace fs = std::filesystem;

namespace {

thread_local const InputFilePolicy* t_policy = nullptr;

// True when canonical `path` is `root` or inside it (component-wise, so "/data2" is not in "/data").
bool is_under(const fs::path& path, const fs::path& root) {
  auto p = path.begin();
  for (auto r = root.begin(); r != root.end(); ++r, ++p) {
    if (r->empty()) continue;  // a trailing separator
    if (p == path.end() || *p != *r) return false;
  }
  return true;
}

// Under a scope: the canonical path of a file under one of its roots, or nullopt. A relative path is
// looked up under each root in turn.
std::optional<fs::path> resolve_under_roots(const std::string& path, const InputFilePolicy& policy) {
  if (path.empty() || path.find('\0') != std::string::npos) return std::nullopt;
  const fs::path given(path);
  std::vector<fs::path> candidates;
  if (given.is_absolute()) candidates.push_back(given);
  else
    for (const auto& r : policy.roots) candidates.push_back(fs::path(r) / given);
  for (const auto& c : candidates) {
    std::error_code ec;
    const fs::path real = fs::canonical(c, ec);
    if (ec) continue;
    for (const auto& r : policy.roots)
      if (is_under(real, fs::path(r))) return real;
  }
  return std::nullopt;
}

std::string outside_roots(const std::string& path, const InputFilePolicy& policy) {
  return "no readable file '" + path + "' under the data directories this server reads from (" +
         policy.roots_option + ")";
}

class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

}  // namespace

InputFileScope::InputFileScope(InputFilePolicy policy) : policy_(std::move(policy)), previous_(t_policy) {
  policy_.roots = canonical_directories(policy_.roots);
  t_policy = &policy_;
}

InputFileScope::~InputFileScope() { t_policy = previous_; }

const InputFilePolicy* active_input_file_policy() { return t_policy; }

std::vector<std::string> canonical_directories(const std::vector<std::string>& dirs) {
  std::vector<std::string> out;
  for (const auto& d : dirs) {
    std::error_code ec;
    const fs::path real = fs::canonical(d, ec);
    if (!ec && fs::is_directory(real, ec)) out.push_back(real.string());
  }
  return out;
}

std::optional<std::string> find_input_file(const std::string& path) {
  std::error_code ec;
  if (const InputFilePolicy* p = t_policy) {
    auto real = resolve_under_roots(path, *p);
    if (!real || !fs::is_regular_file(*real, ec)) return std::nullopt;
    return real->string();
  }
  if (path.empty() || !fs::is_regular_file(path, ec)) return std::nullopt;
  return path;
}

std::string read_input_file(const std::string& path, const std::string& field) {
  const InputFilePolicy* policy = t_policy;
  const std::uint64_t max_bytes = policy ? policy->max_bytes : kMaxInputFileBytes;
  std::string open_path = path;
  if (policy) {
    auto real = resolve_under_roots(path, *policy);
    if (!real) throw InputError(field, outside_roots(path, *policy));
    open_path = real->string();
  }
  if (path.empty()) throw InputError(field, "an empty file name");
  if (path.find('\0') != std::string::npos) throw InputError(field, "a file name with a NUL byte");
  // O_NONBLOCK: opening a FIFO does not wait for a writer; the type is checked on what was opened.
  Fd fd(::open(open_path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY));
  if (fd.get() < 0) {
    const int err = errno;
    throw InputError(field, "cannot read file '" + path + "' (" + std::strerror(err) + ")");
  }
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) throw InputError(field, "cannot read file '" + path + "'");
  if (S_ISDIR(st.st_mode)) throw InputError(field, "'" + path + "' is a directory; give a file");
  if (!S_ISREG(st.st_mode))
    throw InputError(field, "'" + path + "' is not a regular file (devices, FIFOs and sockets are never read)");
  if (static_cast<std::uint64_t>(st.st_size) > max_bytes)
    throw InputError(field, "'" + path + "' is " + std::to_string(st.st_size) + " bytes; at most " +
                                std::to_string(max_bytes) + " are read");
  std::string text;
  text.reserve(static_cast<std::size_t>(st.st_size));
  char buf[65536];
  for (;;) {
    const ssize_t n = ::read(fd.get(), buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      const int err = errno;
      throw InputError(field, "cannot read file '" + path + "' (" + std::strerror(err) + ")");
    }
    if (n == 0) break;
    text.append(buf, static_cast<std::size_t>(n));
    if (text.size() > max_bytes)  // grew while read
      throw InputError(field, "'" + path + "' is over " + std::to_string(max_bytes) + " bytes, the most read");
  }
  return text;
}

}  // namespace gpuplan
