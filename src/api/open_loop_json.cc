// The open loop's figures and odds in a command's document and text (see open_loop_json.h).
#include "api/open_loop_json.h"

#include <fmt/format.h>

#include <optional>

namespace gpuplan::api {

namespace {

nlohmann::json edge(const std::optional<double>& x) { return x ? nlohmann::json(*x) : nlohmann::json(nullptr); }

nlohmann::json figure_band_json(const sizing::FigureBand& b) { return {{"low", edge(b.low)}, {"high", edge(b.high)}}; }

nlohmann::json error_band_json(const ErrorBand& b) {
  return {{"kind", b.kind}, {"low_log", b.low_log}, {"high_log", b.high_log}, {"widened_by", b.widened_by}};
}

}  // namespace

void add_open_loop_latencies(nlohmann::json& j, const OpenLoopResult& r) {
  j["ttft_mean_s"] = r.ttft_mean_s;
  j["ttft_p50_s"] = r.ttft_p50_s;
  j["ttft_p99_s"] = r.ttft_p99_s;
  j["tpot_mean_s"] = r.tpot_mean_s;
  j["tpot_p50_s"] = r.tpot_p50_s;
  j["tpot_p99_s"] = r.tpot_p99_s;
  j["tokens_per_s_per_user"] = r.tokens_per_s_per_user_p50;
}

nlohmann::json open_loop_odds_json(const sizing::OpenLoopOdds& odds, const sizing::Candidate& c, long long seed) {
  return {{"draws", odds.draws},
          {"seed", seed},
          {"p_stable", odds.p_stable},
          {"tpot_band", error_band_json(c.tpot_band)},
          {"ttft_band", error_band_json(c.ttft_band)},
          {"bands", {{"ttft_mean_s", figure_band_json(odds.ttft_mean_s)},
                     {"ttft_p50_s", figure_band_json(odds.ttft_p50_s)},
                     {"ttft_p99_s", figure_band_json(odds.ttft_p99_s)},
                     {"tpot_p50_s", figure_band_json(odds.tpot_p50_s)},
                     {"tpot_p99_s", figure_band_json(odds.tpot_p99_s)},
                     {"tokens_per_s_per_user", figure_band_json(odds.tokens_per_s_per_user)}}}};
}

std::string open_loop_bands_text(const sizing::OpenLoopOdds& odds, const std::string& tail) {
  // A band without an upper edge (more than a tenth of the draws cannot keep up) reads "at least".
  const auto range = [](const sizing::FigureBand& b, double scale, const char* unit) {
    return b.high ? fmt::format("{:.3g}-{:.3g} {}", scale * *b.low, scale * *b.high, unit)
                  : fmt::format("at least {:.3g} {}", scale * *b.low, unit);
  };
  if (!odds.ttft_p99_s.low)
    return fmt::format("  under the model's error ({} draws) fewer than a tenth keep up: no 80% band; P(keeps up) "
                       "{:.2f}{}\n",
                       odds.draws, odds.p_stable, tail);
  return fmt::format("  80% bands under the model's error ({} draws): TTFT p99 {}, TPOT p50 {}, TPOT p99 {}; "
                     "P(keeps up) {:.2f}{}\n",
                     odds.draws, range(odds.ttft_p99_s, 1, "s"), range(odds.tpot_p50_s, 1e3, "ms"),
                     range(odds.tpot_p99_s, 1e3, "ms"), odds.p_stable, tail);
}

}  // namespace gpuplan::api
