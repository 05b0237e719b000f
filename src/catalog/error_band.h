#pragma once
// Error bands: how far a prediction of a given kind, on a given accelerator generation, has been from
// published measurements it was not fitted on (leave-one-source-family-out, `gpuplan calibrate
// --bands`). A band is a nominal 80% interval of measured/predicted, stored as natural-log offsets, with
// the rows and source families behind it. Data: data/catalog/error_bands.yaml.
#include <string>
#include <string_view>
#include <vector>

namespace gpuplan {

// Kinds of prediction that earn separate bands. Training bands describe a rate (tokens/s, TFLOP/s,
// MFU; step times are their reciprocal); serving throughput bands a rate (tokens/s per GPU or in
// all); serving TPOT bands the decode interval (TPOT; tokens/s per user is its reciprocal); serving
// TTFT bands the time to first token, whose queueing for the prefill and the KV cache makes its
// errors spread about twice as wide as the decode interval's (docs/training-model.md, Error bands).
inline constexpr std::string_view kBandTrainingDense = "training_dense";
inline constexpr std::string_view kBandTrainingMoe = "training_moe";
inline constexpr std::string_view kBandServingAggThroughput = "serving_aggregated_throughput";
inline constexpr std::string_view kBandServingAggTpot = "serving_aggregated_tpot";
inline constexpr std::string_view kBandServingAggTtft = "serving_aggregated_ttft";
inline constexpr std::string_view kBandServingDisaggThroughput = "serving_disaggregated_throughput";
inline constexpr std::string_view kBandServingDisaggTpot = "serving_disaggregated_tpot";
inline constexpr std::string_view kBandServingDisaggTtft = "serving_disaggregated_ttft";
const std::vector<std::string>& band_kinds();

// Generation name of the band that serves generations without measurements of the kind.
inline constexpr std::string_view kBandUnfitted = "unfitted";

struct ErrorBand {
  std::string kind;
  std::string generation;  // accelerator generation, or "unfitted"
  // measured / predicted lies in [exp(low_log), exp(high_log)] for 80% of held-out rows (after widening).
  double low_log = -0.5;
  double high_log = 0.5;
  // exp(low_log), exp(high_log), kept by set_edges so that a lookup needs no exp (0: not set).
  double low_ratio = 0, high_ratio = 0;
  void set_edges(double low, double high);
  int rows = 0;      // held-out rows behind the band (0: none; a rule, not a measurement)
  int families = 0;  // source families those rows came from
  std::string fitted_on, fitted_date, method, origin;
};

// A figure with its band: value, low and high in the figure's own unit, and the band it came from.
struct BandedFigure {
  double value = 0, low = 0, high = 0;
  int rows = 0, families = 0;
  std::string kind, generation;  // of the band used ("unfitted" when the generation has none)
  // "+/- 12%": the larger of the two half-widths relative to the value.
  double plus_minus_pct() const;
};

// The band of (kind, generation): the exact entry, else the kind's "unfitted" entry, else a built-in
// rule (+/-60%, no rows). Pure; a linear scan of a few dozen entries.
const ErrorBand& find_band(const std::vector<ErrorBand>& bands, std::string_view kind, std::string_view generation);

// The serving figures that earn separate bands.
enum class ServingFigure {
  throughput,  // tokens/s per GPU, or in all
  tpot,        // time per output token; tokens/s per user through the reciprocal
  ttft,        // time to first token
};

// The band kind of a training prediction (MoE or dense) and of a serving one.
std::string_view training_band_kind(bool moe);
std::string_view serving_band_kind(bool disaggregated, ServingFigure figure);

// `value` with its band. `reciprocal`: the figure is the inverse of what the band measures (a step time or
// a $/token under a throughput band; a token rate under a TPOT band), so the band flips.
BandedFigure with_band(double value, const ErrorBand& band, bool reciprocal = false);

// The ratio a/b of two banded figures: the log-offsets' centres subtract and half-widths add in
// quadrature (independent errors). Rows and families are the smaller side's.
BandedFigure ratio_band(const BandedFigure& a, const BandedFigure& b);

// Whether two figures' bands overlap: the gap between them is within the model's error.
bool bands_overlap(const BandedFigure& a, const BandedFigure& b);

// Reads one `error_bands:` entry (strict keys); writes a YAML document with a top-level `error_bands:` list.
class YamlMap;
ErrorBand parse_error_band(YamlMap& m, const std::string& origin);
std::string error_bands_to_yaml(const std::vector<ErrorBand>& bands, const std::string& header_comment);

}  // namespace gpuplan
