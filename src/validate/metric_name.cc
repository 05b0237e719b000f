#include "validate/metric_name.h"

#include <cctype>
#include <utility>
#include <vector>

#include "core/text.h"

namespace gpuplan {

std::string canonical_metric_name(const std::string& cell) {
  // Letters and digits only, "/" read as "per"; then one spelling for each word.
  std::string k;
  for (char ch : to_lower(cell)) {
    if (std::isalnum(static_cast<unsigned char>(ch))) k += ch;
    else if (ch == '/') k += "per";
  }
  for (const auto& [from, to] : std::vector<std::pair<std::string, std::string>>{
           {"seconds", "s"}, {"second", "s"}, {"sec", "s"}, {"tokens", "tok"}, {"tflops", "tflop"}}) {
    for (size_t at = k.find(from); at != std::string::npos; at = k.find(from, at + to.size()))
      k.replace(at, from.size(), to);
  }
  static const std::vector<std::pair<std::string, std::vector<std::string>>> kNames = {
      {"step_time_s", {"steptimes", "iterationtimes"}},
      {"tokens_per_sec_per_gpu", {"tokperspergpu", "throughputtokperspergpu"}},
      {"tflops_per_gpu", {"tfloppergpu", "tflopperspergpu", "modeltfloppergpu", "modeltflopperspergpu"}},
      {"mfu", {"mfu", "mfupct", "mfupercent"}},
      {"tokens_per_sec_total", {"tokperstotal", "totaltokpers", "throughputtokpers"}},
      {"tokens_per_sec_per_user", {"tokpersperuser"}},
      {"ttft_ms", {"ttftms", "timetofirsttokenms"}},
      {"tpot_ms", {"tpotms", "timeperoutputtokenms"}},
  };
  for (const auto& [name, spellings] : kNames)
    for (const auto& s : spellings)
      if (k == s) return name;
  return "";
}

}  // namespace gpuplan
