#include "search/fits_from.h"

#include <algorithm>

namespace gpuplan {

FitsFrom fits_from_doubling(int gpus, int max_gpus, const std::function<SearchResult(int)>& search) {
  FitsFrom out;
  if (gpus <= 0) return out;
  for (long long g = 2LL * gpus; g <= max_gpus; g *= 2) {
    const SearchResult r = search(static_cast<int>(g));
    if (!r.top.empty()) {
      out.gpus = static_cast<int>(g);
      out.plan = r.top.front().plan;
      return out;
    }
  }
  return out;
}

FitsFrom fits_from_halving(int gpus, int min_gpus, const std::function<SearchResult(int)>& search) {
  FitsFrom out;
  for (int g = gpus; g % 2 == 0 && g / 2 >= std::max(1, min_gpus);) {
    g /= 2;
    const SearchResult r = search(g);
    if (!r.top.empty()) {
      out.gpus = g;
      out.plan = r.top.front().plan;
      return out;
    }
  }
  return out;
}

}  // namespace gpuplan
