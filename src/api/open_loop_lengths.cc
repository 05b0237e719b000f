// Request lengths of open-loop traffic (see open_loop_lengths.h).
#include "api/open_loop_lengths.h"

#include <fmt/format.h>

#include "core/error.h"

namespace gpuplan::api {

void add_open_loop_length_options(CLI::App& app, OpenLoopLengths& o) {
  app.add_option("--isl-max", o.isl_max,
                 "Open loop: lengths vary as a dataset's: prompts exponential about --isl, cut at this many tokens, "
                 "outputs geometric about --osl (MLPerf's Llama-2-70B dataset: 1024 about a mean of 300, "
                 "data/serving/mlperf_scenarios.yaml); 0: every request exactly --isl/--osl")
      ->capture_default_str();
}

void check_open_loop_lengths(const OpenLoopLengths& o, long long isl) {
  if (o.isl_max != 0 && (o.isl_max < isl || o.isl_max > 10'000'000))
    throw InputError("--isl-max", fmt::format("must be 0 (fixed lengths) or from --isl ({}) to 10000000, got {}", isl,
                                              o.isl_max));
}

void apply_open_loop_lengths(const OpenLoopLengths& o, long long isl, OpenLoopCurve& curve) {
  check_open_loop_lengths(o, isl);
  curve.prompt_isl_max = o.isl_max;
}

nlohmann::json open_loop_lengths_json(const OpenLoopLengths& o) {
  if (o.isl_max <= 0) return {{"law", "fixed"}};
  return {{"law", "dataset"}, {"isl_max", o.isl_max}};
}

std::string open_loop_lengths_text(const OpenLoopLengths& o) {
  return o.isl_max <= 0 ? "fixed lengths" : fmt::format("prompts vary up to {} tokens", o.isl_max);
}

}  // namespace gpuplan::api
