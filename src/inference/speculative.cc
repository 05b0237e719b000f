#include "inference/speculative.h"

#include <algorithm>

namespace gpuplan {

bool has_mtp_module(const ModelArch& m) { return m.family == "deepseek"; }

double mtp_accepted_length(int draft_tokens, double accept) {
  const double a = std::clamp(accept, 0.0, 1.0);
  double len = 1.0, term = 1.0;
  for (int i = 0; i < draft_tokens; ++i) {
    term *= a;
    len += term;
  }
  return len;
}

}  // namespace gpuplan
