#pragma once
// Error bands: how far a prediction of a given kind, on a given accelerator generation, has been from
// published measurements it was not fitted on (leave-one-source-family-out, `gpuplan calibrate
// --bands`). A band is a nominal 80% interval of measured/predicted, stored as natural-log offsets, with
// the rows and source families behind it. Data: data/catalog/error_bands.yaml.
#include <optional>
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

// The ground of a band: what the rows its parameters and its band were fitted on cover, per dimension
// along which a question can lie off that ground (a source family, a precision on the generation, a
// GPU count, a model size, a serving engine, an accelerator). Empty or 0: not recorded (no widening along
// that dimension).
struct BandGround {
  std::vector<std::string> precisions;  // precisions the generation's rows of the kind ran (lower case)
  // Serving engines (serving_engines.yaml entry names) with at least min_band_rows rows of the kind on
  // the generation: an engine with fewer rows than a band needs is not on the ground.
  std::vector<std::string> engines;
  // Accelerators (catalog names) with at least min_band_rows rows of the kind on the generation: a chip of
  // the generation measured less (H20, H800, GH200) shares its parameters but not its balance of compute,
  // memory and links, so its questions lie off the ground.
  std::vector<std::string> accelerators;
  // Sources (lower case) of those rows: a row's source id as written (a source's round or version:
  // "nemo-24.07", "mlperf-v5.0"), a serving row's with its framework ("aic-silicon-sample / vllm 0.19.0"):
  // a row of any other (a new source, or a known one's new round or release) lies off the ground along
  // the source dimension.
  std::vector<std::string> sources;
  int gpus_min = 0, gpus_max = 0;        // GPU counts of those rows
  double params_b_min = 0, params_b_max = 0;  // total parameters of their models, billions
};

// How much wider a band is where a question lies off its ground, per dimension: the multiplier is the
// product of 1 + (factor - 1) x distance over the dimensions, and each log-edge moves out by (multiplier
// - 1) x the band's half-width (widened_log_edges) (distance in [0, 1]: 1 for a source
// family, a precision, a serving engine or an accelerator never fitted; for a GPU count or a model size outside the fitted range,
// log2 of the ratio to the nearest fitted edge, capped at 1). Fitted by `calibrate --bands` so that the
// nominal band holds its share of the rows of the source families left out of the fit, each family
// weighing its effective sample (docs/training-model.md, "Error bands off the data").
struct BandWidening {
  double source = 1, precision = 1, scale = 1, model_size = 1, engine = 1, accelerator = 1;
};

struct ErrorBand {
  std::string kind;
  std::string generation;  // accelerator generation, or "unfitted"
  // measured / predicted lies in [exp(low_log), exp(high_log)] for 80% of held-out rows (after widening).
  double low_log = -0.5;
  double high_log = 0.5;
  // exp(low_log), exp(high_log), kept by set_edges so that a lookup needs no exp (0: not set).
  double low_ratio = 0, high_ratio = 0;
  // The held-out rows' median log(measured / predicted), within the edges: where the band's own rows centre
  // (a TTFT band's median lies well below its midpoint). Unset: the midpoint (a band of a catalog of one's
  // own, or one fitted on too few rows for quantiles). Widening moves the edges, not the median.
  std::optional<double> median_log;
  void set_edges(double low, double high);
  int rows = 0;      // held-out rows behind the band (0: none; a rule, not a measurement)
  int families = 0;  // source families those rows came from
  std::string fitted_on, fitted_date, method, origin;
  BandGround ground;
  BandWidening widening;
  // Why the band is wider than its known-ground edges (band_for): "precision bf16 never fitted on
  // blackwell_ultra", "scale 16384 GPUs above fitted 8192"; only dimensions whose fitted factor widens
  // (above 1). Empty on the band file's own entries.
  std::vector<std::string> widened_by;
  // The serving engine of the question the band answers (band_for, serving kinds): the engine entry it
  // named, or kBandEngineNotStated; blank for training bands and the band file's own entries.
  std::string engine;
};

// The engine of a serving question that states none: no engine widens its band.
inline constexpr std::string_view kBandEngineNotStated = "not stated";

// A figure with its band: value, low and high in the figure's own unit, and the band it came from.
struct BandedFigure {
  double value = 0, low = 0, high = 0;
  int rows = 0, families = 0;
  std::string kind, generation;  // of the band used ("unfitted" when the generation has none)
  std::vector<std::string> widened_by;  // why the band was widened off its ground (ErrorBand::widened_by)
  std::string engine;                   // the question's serving engine (ErrorBand::engine; blank: training)
  // "+/- 12%": the larger of the two half-widths relative to the value.
  double plus_minus_pct() const;
};

// The band of (kind, generation): the exact entry, else the kind's "unfitted" entry, else a built-in
// rule (+/-60%, no rows). Pure; a linear scan of a few dozen entries.
const ErrorBand& find_band(const std::vector<ErrorBand>& bands, std::string_view kind, std::string_view generation);

// A question as the band sees it: what it asks, along the dimensions of BandGround. Blank or 0: not
// known (no widening along that dimension). A planner's own cluster is a source no fit saw, so the
// source is off the ground unless source_fitted, or the question is a published row (`validate`) whose
// source family is among the band's ground sources.
struct BandQuestion {
  bool source_fitted = false;
  std::string precision;  // "bf16", "fp8", ... (to_string(Precision))
  int num_gpus = 0;
  double params_b = 0;  // total parameters, billions
  std::string engine;   // serving engine, a serving_engines.yaml entry name ("vllm", "sglang", ...)
  std::string accelerator;  // catalog accelerator name ("h20"); the band lookups fill it from the hardware
  std::string source;       // the row's source (band_source_key), or blank: a planner's own question
};

// Distance of a question from a band's ground per dimension, each in [0, 1], and the reasons in words,
// each with its dimension ("source", "precision", "scale", "model_size", "engine", "accelerator").
struct GroundReason {
  std::string dimension, text;
};
struct GroundDistance {
  double source = 0, precision = 0, scale = 0, model_size = 0, engine = 0, accelerator = 0;
  std::vector<GroundReason> why;
};
GroundDistance ground_distance(const ErrorBand& band, const BandQuestion& q);

// The factor on a band's log-edges: the product over dimensions of 1 + (factor - 1) x distance; never
// below 1, and never smaller for a larger distance along any dimension.
double widening_multiplier(const BandWidening& w, const GroundDistance& d);

// A band's log-edges widened by `multiplier` (>= 1): each edge moves out by (multiplier - 1) x the
// band's half-width, both by the same amount. On a band symmetric about 0 that is the edges times the
// multiplier; on a skewed band (TTFT on known ground: -14% / +251%, where the prediction is nearly a
// floor) the thin side widens as much as the wide one, since off the ground the shift of a new
// source's errors can go either way. Clamped to [-5, 5].
struct LogEdges {
  double low_log = 0, high_log = 0;
};
LogEdges widened_log_edges(double low_log, double high_log, double multiplier);

// The fitted factor of one dimension ("source", ...; 1 for a name that is none).
double widening_factor(const BandWidening& w, std::string_view dimension);

// find_band's entry widened for the question: edges times widening_multiplier, widened_by the reasons
// along dimensions whose factor is above 1 (a factor of 1 widens nothing, so its reason is not listed).
ErrorBand band_for(const std::vector<ErrorBand>& bands, std::string_view kind, std::string_view generation,
                   const BandQuestion& q);
ErrorBand widen_band(const ErrorBand& band, const GroundDistance& d);

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

// How the errors of two predictions of one question on two systems move together: the correlation of
// their log(measured / predicted), for systems of one accelerator generation and of two. Measured on
// pairs of rows of one source that ran the same workload on different accelerators (`calibrate
// --bands`, fit_band_correlation): the harness, the software and the workload's own quirks are shared,
// so a model that is 20% slow on one side tends to be slow on the other. 0: independent (the rule
// without a fit). Data: data/catalog/error_bands.yaml, `error_band_correlation`.
struct BandCorrelation {
  double same_generation = 0, cross_generation = 0;
  int pairs_same = 0, pairs_cross = 0;  // the row pairs behind each figure
  std::string fitted_on, fitted_date, method;
  // The correlation of two figures' errors: same_generation when both bands are one fitted generation's.
  double between(const BandedFigure& a, const BandedFigure& b) const;
};

// The ratio a/b of two banded figures: the log-offsets' centres subtract and half-widths combine as
// correlated normals, h^2 = ha^2 + hb^2 - 2 rho ha hb with rho = correlation.between(a, b) (0:
// independent, in quadrature). Rows and families are the smaller side's.
BandedFigure ratio_band(const BandedFigure& a, const BandedFigure& b, const BandCorrelation& correlation = {});

// The chance that the true figure is at least `threshold`, reading the figure's band as a log-normal
// whose 10% and 90% quantiles are its edges (the band's own nominal 80%). A figure without a band (low
// or high not above 0, or low == high): 1 or 0 by its value.
double probability_at_least(const BandedFigure& f, double threshold);

// Whether two figures' bands overlap: the gap between them is within the model's error.
bool bands_overlap(const BandedFigure& a, const BandedFigure& b);

// Reads one `error_bands:` entry (strict keys); writes a YAML document with a top-level `error_bands:` list.
class YamlMap;
ErrorBand parse_error_band(YamlMap& m, const std::string& origin);
// Reads the `error_band_correlation:` map (strict keys; correlations in [0, 1]).
BandCorrelation parse_band_correlation(YamlMap& m);
// The bands, and the correlation where it was fitted (pairs_same + pairs_cross > 0).
std::string error_bands_to_yaml(const std::vector<ErrorBand>& bands, const std::string& header_comment,
                                const BandCorrelation& correlation = {});

}  // namespace gpuplan
