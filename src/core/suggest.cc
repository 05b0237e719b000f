#include "core/suggest.h"

#include <algorithm>
#include <cctype>
#include <string>

namespace gpuplan {

int edit_distance(std::string_view a, std::string_view b) {
  std::vector<int> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = static_cast<int>(j);
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = static_cast<int>(i);
    for (size_t j = 1; j <= b.size(); ++j) {
      const bool same = std::tolower(static_cast<unsigned char>(a[i - 1])) ==
                        std::tolower(static_cast<unsigned char>(b[j - 1]));
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (same ? 0 : 1)});
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

std::string normalize_name(std::string_view name) {
  std::string out;
  for (char c : name) {
    const auto u = static_cast<unsigned char>(c);
    if (std::isalnum(u)) out.push_back(static_cast<char>(std::tolower(u)));
  }
  return out;
}

std::string echo_name(std::string_view name, size_t max_chars) {
  if (name.size() <= max_chars) return std::string(name);
  return std::string(name.substr(0, max_chars)) + "... (" + std::to_string(name.size()) + " characters)";
}

std::string closest_match(std::string_view typed, const std::vector<std::string>& candidates) {
  // Names are short; a typo of one is too. Past this length no candidate is a plausible typo and the
  // quadratic edit distance would only burn time (a 5 MB name took 11 s).
  constexpr size_t kMaxTypedChars = 256;
  if (typed.size() > kMaxTypedChars) return std::string();
  std::string best;
  int best_d = 1 << 30;
  const std::string t = normalize_name(typed);
  for (const auto& c : candidates) {
    const std::string n = normalize_name(c);
    int d = edit_distance(t, n);
    if (!t.empty() && n.find(t) != std::string::npos) d = std::min(d, 1);  // a unique prefix/substring
    if (d < best_d) {
      best_d = d;
      best = c;
    }
  }
  const int allowed = std::max(2, static_cast<int>(t.size()) / 3);
  return best_d <= allowed ? best : std::string();
}

std::string did_you_mean(std::string_view typed, const std::vector<std::string>& candidates) {
  const std::string m = closest_match(typed, candidates);
  return m.empty() ? std::string() : " (did you mean '" + m + "'?)";
}

}  // namespace gpuplan
