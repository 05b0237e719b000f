#pragma once
// The request lengths of open-loop traffic, shared by the commands that answer a steady demand
// (`infer --requests-per-s`, `size`): every request exactly --isl / --osl; lengths that vary as a
// dataset's do (--isl-max: prompts on [0, that many tokens] with mean --isl, truncated exponential; outputs geometric
// about --osl), the law `validate` scores MLPerf's Server rows with (OpenLoopCurve::prompt_isl_max); or
// as a benchmark client draws them (--length-low F: uniform in [F, 1] x the longest, --isl/--osl their
// means, as infer's closed loop reads it; OpenLoopCurve::length_low). One definition and one reading, so
// the same demand gives the same figure through both commands.
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <string>

#include "inference/open_loop.h"

namespace gpuplan::api {

struct OpenLoopLengths {
  long long isl_max = 0;  // 0: fixed lengths; else the longest prompt, at least --isl
  double length_low = 1;  // 1: fixed lengths; else the shortest share of the longest, in (0, 1)
};

// --isl-max; and --length-low where the command has none of its own (`infer` registers it for its
// closed loop too and passes it on).
void add_open_loop_length_options(CLI::App& app, OpenLoopLengths& o, bool length_low);

// Checks the options against the mean prompt `isl` (InputError naming --isl-max or --length-low with the
// allowed range; not both), before any work.
void check_open_loop_lengths(const OpenLoopLengths& o, long long isl);
// Sets the curve's length law (options checked).
void apply_open_loop_lengths(const OpenLoopLengths& o, OpenLoopCurve& curve);

// {"law": "fixed"}, {"law": "dataset", "isl_max": N} or {"law": "client_uniform", "length_low": F}; and
// the same in words for a text header.
nlohmann::json open_loop_lengths_json(const OpenLoopLengths& o);
std::string open_loop_lengths_text(const OpenLoopLengths& o);

}  // namespace gpuplan::api
