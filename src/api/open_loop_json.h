#pragma once
// The open loop's figures and odds as `infer --requests-per-s` writes them, whether it bought the
// deployment (infer_open_loop.h) or was told it (infer_open_loop_point.h): one layout, one text.
#include <nlohmann/json.hpp>

#include <string>

#include "inference/open_loop.h"
#include "sizing/odds.h"
#include "sizing/sizing.h"

namespace gpuplan::api {

// TTFT and TPOT at the mean, p50 and p99 and the median request's speed, into `j` (a stable result's).
void add_open_loop_latencies(nlohmann::json& j, const OpenLoopResult& r);

// The odds object: draws, seed, p_stable, the bands drawn from (`tpot_band`, `ttft_band`) and each
// figure's 80% band (`bands`); the caller adds its share meeting the SLA or limits.
nlohmann::json open_loop_odds_json(const sizing::OpenLoopOdds& odds, const sizing::Candidate& candidate, long long seed);

// The line of the 80% bands (TTFT p99, TPOT p50 and p99; a band without an upper edge reads "at least")
// and P(keeps up), followed by `tail` (", P(meets the SLA) 0.93"); or, where fewer than a tenth of the
// draws keep up, that.
std::string open_loop_bands_text(const sizing::OpenLoopOdds& odds, const std::string& tail);

}  // namespace gpuplan::api
