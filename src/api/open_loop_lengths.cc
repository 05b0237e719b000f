// Request lengths of open-loop traffic (see open_loop_lengths.h).
#include "api/open_loop_lengths.h"

#include <fmt/format.h>

#include "core/error.h"

namespace gpuplan::api {

void add_open_loop_length_options(CLI::App& app, OpenLoopLengths& o, bool length_low) {
  app.add_option("--isl-max", o.isl_max,
                 "Open loop: lengths vary as a dataset's: prompts on [0, this many tokens] with mean --isl (the "
                 "maximum-entropy law there, a truncated exponential), "
                 "outputs geometric about --osl (MLPerf's Llama-2-70B dataset: 1024 about a mean of 300, "
                 "data/serving/mlperf_scenarios.yaml); 0: every request exactly --isl/--osl")
      ->capture_default_str();
  if (length_low)
    app.add_option("--length-low", o.length_low,
                   "Open loop: lengths as a benchmark client draws them, uniform in [this, 1] x the longest, "
                   "--isl/--osl their means (InferenceX's client: 0.8); 1: every request exactly --isl/--osl")
        ->capture_default_str();
}

void check_open_loop_lengths(const OpenLoopLengths& o, long long isl) {
  if (o.isl_max != 0 && (o.isl_max < isl || o.isl_max > 10'000'000))
    throw InputError("--isl-max", fmt::format("must be 0 (fixed lengths) or from --isl ({}) to 10000000, got {}", isl,
                                              o.isl_max));
  if (!(o.length_low > 0 && o.length_low <= 1))
    throw InputError("--length-low", fmt::format("must be in (0, 1] (1: fixed lengths), got {}", o.length_low));
  if (o.isl_max != 0 && o.length_low < 1)
    throw InputError("--length-low", "give --isl-max (a dataset's lengths) or --length-low (a benchmark client's "
                                     "uniform lengths), not both");
}

void apply_open_loop_lengths(const OpenLoopLengths& o, OpenLoopCurve& curve) {
  curve.prompt_isl_max = o.isl_max;
  curve.length_low = o.length_low;
}

nlohmann::json open_loop_lengths_json(const OpenLoopLengths& o) {
  if (o.isl_max > 0) return {{"law", "dataset"}, {"isl_max", o.isl_max}};
  if (o.length_low < 1) return {{"law", "client_uniform"}, {"length_low", o.length_low}};
  return {{"law", "fixed"}};
}

std::string open_loop_lengths_text(const OpenLoopLengths& o) {
  if (o.isl_max > 0) return fmt::format("prompts vary up to {} tokens", o.isl_max);
  if (o.length_low < 1) return fmt::format("lengths uniform in {:g}-1 x the longest", o.length_low);
  return "fixed lengths";
}

}  // namespace gpuplan::api
