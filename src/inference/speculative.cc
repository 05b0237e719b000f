#include "inference/speculative.h"

#include <algorithm>

#include "catalog/catalog.h"

namespace gpuplan {

double mtp_accept_default() {
  static const double a = Catalog::builtin().default_serving_engine().mtp_accept.value_or(0.0);
  return a;
}

bool has_mtp_module(const ModelArch& m) { return m.family == "deepseek"; }

double mtp_exposed_host_s(double step_s, double per_seq_s, double rank_sequences) {
  return std::max(0.0, step_s) + std::max(0.0, per_seq_s) * std::max(0.0, rank_sequences);
}

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
