#pragma once
// The request lengths of open-loop traffic, shared by the commands that answer a steady demand
// (`infer --requests-per-s`, `size`): every request exactly --isl / --osl, or lengths that vary as a
// dataset's do (--isl-max: prompts exponential about --isl, cut at that many tokens; outputs geometric
// about --osl), the law `validate` scores MLPerf's Server rows with (OpenLoopCurve::prompt_isl_max). One
// definition and one reading, so the same demand gives the same figure through both commands.
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <string>

#include "inference/open_loop.h"

namespace gpuplan::api {

struct OpenLoopLengths {
  long long isl_max = 0;  // 0: fixed lengths; else the longest prompt, at least --isl
};

void add_open_loop_length_options(CLI::App& app, OpenLoopLengths& o);

// Checks --isl-max against the mean prompt (InputError naming --isl-max with the allowed range) and sets
// the curve's prompt law.
void apply_open_loop_lengths(const OpenLoopLengths& o, long long isl, OpenLoopCurve& curve);
void check_open_loop_lengths(const OpenLoopLengths& o, long long isl);

// {"law": "fixed"} or {"law": "dataset", "isl_max": N}; and the same in words for a text header.
nlohmann::json open_loop_lengths_json(const OpenLoopLengths& o);
std::string open_loop_lengths_text(const OpenLoopLengths& o);

}  // namespace gpuplan::api
