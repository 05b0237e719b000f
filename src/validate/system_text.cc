#include "validate/system_text.h"

#include <cctype>
#include <string>
#include <vector>

namespace gpuplan {
namespace {

// Lower case, with '-' and '_' read as spaces (MLPerf writes "DGX-H100_H100-SXM-80GBx8").
std::string folded(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    out += (c == '-' || c == '_') ? ' ' : static_cast<char>(std::tolower(c));
  }
  return out;
}

bool alnum_at(const std::string& s, size_t i) {
  return i < s.size() && std::isalnum(static_cast<unsigned char>(s[i]));
}

// Whether `name` (folded) stands in `text` (folded) as a whole name.
bool names(const std::string& text, const std::string& name) {
  if (name.empty()) return false;
  for (size_t at = text.find(name); at != std::string::npos; at = text.find(name, at + 1))
    if ((at == 0 || !alnum_at(text, at - 1)) && !alnum_at(text, at + name.size())) return true;
  return false;
}

// Of `spellings`, the longest that stands whole in `t` (folded) and `accept`s (folded), if longer than
// `longest`; updates `longest`.
template <typename Accept>
const std::string* longest_named(const std::string& t, const std::vector<std::string>& spellings, size_t& longest,
                                 Accept accept) {
  const std::string* found = nullptr;
  for (const std::string& name : spellings) {
    const std::string n = folded(name);
    if (n.size() > longest && accept(n) && names(t, n)) {
      longest = n.size();
      found = &name;
    }
  }
  return found;
}

}  // namespace

SystemReading read_system(const Catalog& catalog, const std::string& accelerator, const std::string& text) {
  SystemReading best;
  const std::string t = folded(text);
  size_t longest = 0;
  for (const System& s : catalog.systems()) {
    if (s.accelerator != accelerator) continue;
    std::vector<std::string> spellings = s.aliases;
    spellings.push_back(s.display_name);
    if (const std::string* name = longest_named(t, spellings, longest, [](const std::string&) { return true; }))
      best = {&s, *name};
  }
  return best;
}

AcceleratorReading read_accelerator_variant(const Catalog& catalog, const std::string& gpu_column,
                                            const Accelerator& column_accelerator, const std::string& text) {
  AcceleratorReading best;
  const std::string t = folded(text);
  const std::string column = folded(gpu_column);
  if (column.empty()) return best;
  // A refinement of the column's name: the column's name, then a separator and more.
  const auto refines = [&](const std::string& n) {
    return n.size() > column.size() + 1 && n.compare(0, column.size(), column) == 0 && n[column.size()] == ' ';
  };
  size_t longest = 0;
  for (const Accelerator& a : catalog.accelerators()) {
    if (a.name == column_accelerator.name || a.generation != column_accelerator.generation) continue;
    std::vector<std::string> spellings = a.aliases;
    spellings.push_back(a.display_name);
    spellings.push_back(a.name);
    if (const std::string* name = longest_named(t, spellings, longest, refines)) best = {&a, *name};
  }
  return best;
}

}  // namespace gpuplan
