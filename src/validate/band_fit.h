#pragma once
// Fits error bands (src/catalog/error_band.h) on held-out residuals, and checks how many held-out rows
// their bands hold (coverage). The residuals come from `calibrate --bands`: training rows predicted by
// a fit that did not see their source family; serving rows of files the serving fit never saw.
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "catalog/error_band.h"
#include "validate/inference_cases.h"
#include "validate/training_cases.h"
#include "validate/validation.h"

namespace gpuplan {

// One held-out prediction: log(measured / predicted) in the direction the band kind measures (a
// rate for training and serving throughput; a time for serving latency).
struct HeldOutResidual {
  HeldOutResidual() = default;
  HeldOutResidual(std::string kind_, std::string generation_, std::string family_, double log_ratio_,
                  std::string file_ = {})
      : kind(std::move(kind_)), generation(std::move(generation_)), family(std::move(family_)),
        log_ratio(log_ratio_), file(std::move(file_)) {}
  std::string kind, generation, family;
  double log_ratio = 0;
  std::string file;  // the shared file the row comes from (coverage is reported per file too)
  // The row's ground (src/catalog/error_band.h, BandGround): its precision, GPU count, model size.
  std::string precision;
  int num_gpus = 0;
  double params_b = 0;
  // The serving engine that ran the row: its framework string as read, then (calibrate --bands) the
  // serving_engines.yaml entry it names; blank for training rows and frameworks no entry names.
  std::string engine;
  // The row's source id as written (a source's round or version: MLPerf-v5.0, TRTLLM-perf-overview-v1.0)
  // and the framework release it ran (serving: the framework cell, "vllm 0.19.0"; training: the NeMo
  // container or the year it states); blank where the row states none.
  std::string source_id, release;
  // The question the row asked, as far as another accelerator could ask it too: its source id, model,
  // metric, precision, framework and workload (lengths, load, GPU count), without the accelerator and
  // the parallel layout; rows of one key on different accelerators pair up (fit_band_correlation).
  // Blank: the row pairs with none.
  std::string pair_key;
  std::string accelerator;  // the catalog accelerator it ran on
};

// The residual of one prediction of a row's metric.
double band_log_ratio(double reported, double predicted, bool reciprocal);

// A source family: the source id up to its first '-' (DGXC-..., MBRIDGE-..., NEMO-...).
std::string source_family(const std::string& source_id);
// The family of a row's residual: training, its source family; serving, its source family and
// framework ("InferenceX / Dynamo + SGLang"): rows of one engine share its scheduler, kernels and
// recipe, and one source (InferenceX) measures several engines.
std::string band_family_of(const TrainingCase& c);
std::string band_family_of(const InferenceCase& c);
// The source a row's band ground records (BandGround::sources): its source id as written (a source's
// round or version: NEMO-24.07, MLPerf-v5.0) and, for a serving row, the framework it ran ("AIC-silicon-sample
// / vllm 0.19.0"): a new round or release of a known family is a source the bands never saw.
std::string band_source_key(const std::string& source_id, const std::string& serving_framework);
// The key of a residual (serving kinds: its source id and framework release; training: its source id).
std::string band_source_key(const HeldOutResidual& h);

struct BandFitOptions {
  double nominal = 0.80;          // share of held-out rows a band is meant to hold
  double unfitted_margin = 1.25;  // the unfitted band: this much wider than the widest it must contain
  int min_families = 3;           // a generation's own band: rows from at least this many source families
  std::string fitted_on, fitted_date;
};

// The p quantile of sorted values at plotting position p(n+1) (1-based, linear interpolation between
// order statistics; Weibull's, R's type 6): a new row exchangeable with the n falls below the k-th
// smallest with probability k/(n+1), so the band between the (1-nominal)/2 and (1+nominal)/2 quantiles
// holds a new row with probability `nominal`, whatever the errors' distribution, and small samples take
// more extreme order statistics (a wider band for fewer rows, on average). Nothing when p(n+1) < 1 or
// > n: too few rows for that tail.
std::optional<double> predictive_quantile(const std::vector<double>& sorted, double p);

// Fewest rows with both quantiles of a nominal band: 2/(1-nominal) - 1 (9 for 80%).
int min_band_rows(double nominal);

struct BandEdges {
  double low_log = 0, high_log = 0;
  std::optional<double> median_log;  // the sample's median (predictive_band); unset for ranges and joins
};
// The nominal band of a sample of log(measured/predicted) residuals (predictive_quantile of each tail),
// stretched to include 0 (the band always holds the prediction); nothing under min_band_rows.
std::optional<BandEdges> predictive_band(std::vector<double> residuals, double nominal);

// Bands per (kind, generation) from `held_out`, plus one "unfitted" band per kind from `unfitted`
// (rows predicted with the prior efficiencies: what a generation without measurements gets).
// Rules (docs/training-model.md, "Error bands"): the residuals are already of rows no fit saw
// (training: leave-one-source-family-out fits), so a band is their predictive_band. A generation with
// at least min_band_rows rows from min_families source families or more gets its own; any other (fewer
// rows, or fewer families, whose shifts then make most of the sample) gets the kind's band pooled over generations, as
// does a generation of `measured` without held-out rows (no other source family measures it); a kind
// with under min_band_rows rows takes their range. The unfitted band holds every fitted band of its
// kind and the predictive band of its prior rows, times unfitted_margin; a kind without any rows gets
// the widest unfitted band of all kinds. Each band's rows and families are those of the sample behind it.
using BandCell = std::pair<std::string, std::string>;
std::vector<ErrorBand> fit_error_bands(const std::vector<HeldOutResidual>& held_out,
                                       const std::vector<HeldOutResidual>& unfitted, const BandFitOptions& opts = {},
                                       const std::vector<BandCell>& measured = {});

// Share of residuals inside their band (find_band): overall ("all") and per kind, and the same per
// shared file (HeldOutResidual::file).
struct BandCoverage {
  std::map<std::string, Coverage> by_kind;                         // "all" and each kind
  std::map<std::string, std::map<std::string, Coverage>> by_file;  // file -> "all" and each kind
  // Adds another count's rows and rows inside, kind by kind and file by file.
  void add(const BandCoverage& more);
};
BandCoverage band_coverage(const std::vector<HeldOutResidual>& residuals, const std::vector<ErrorBand>& bands);

// Leave-one-family-out check of the bands themselves: each family's residuals against bands fitted on
// the other families' residuals.
BandCoverage band_coverage_lofo(const std::vector<HeldOutResidual>& held_out,
                                const std::vector<HeldOutResidual>& unfitted, const BandFitOptions& opts = {},
                                const std::vector<BandCell>& measured = {});

// One pair of rows of one question on two accelerators: their residuals and the bands' half-widths and
// centres (log), and whether both accelerators are of one generation.
struct BandPair {
  double residual_a = 0, residual_b = 0;
  double centre_a = 0, centre_b = 0, half_a = 0, half_b = 0;
  bool same_generation = false;
  std::string family;  // the rows' source family (band_family_of; one key, one source)
};

// The pairs among `residuals` (same pair_key, different accelerators; one row per accelerator and key,
// the first), each with its kind's band on its generation (find_band: the band on known ground).
std::vector<BandPair> band_pairs(const std::vector<HeldOutResidual>& residuals, const std::vector<ErrorBand>& bands);

// The share of pairs whose measured ratio (residual_a - residual_b) lies in the ratio band built with
// correlation `rho` (ratio_band's rule).
double pair_coverage(const std::vector<BandPair>& pairs, double rho);

// The correlation of two systems' errors (BandCorrelation), per generation relation: the largest rho
// in [0, 0.95] (steps of 0.01) whose ratio bands still hold `nominal` of the pairs, so the ratio band is
// as narrow as the pairs allow and no narrower; 0 where even independent errors hold fewer, or where
// fewer than `min_pairs` pairs measure it. Cross-generation pairs share less than one generation's, so
// same_generation is at least cross_generation.
BandCorrelation fit_band_correlation(const std::vector<BandPair>& pairs, double nominal, int min_pairs = 30);

// The check on new ground: each source family's pairs against the correlation fitted without them
// (fit_band_correlation on the other families' pairs); the share inside, within a generation and across.
struct PairCoverage {
  int same_rows = 0, same_inside = 0, cross_rows = 0, cross_inside = 0;
};
PairCoverage pair_coverage_lofo(const std::vector<BandPair>& pairs, double nominal, int min_pairs = 30);

}  // namespace gpuplan
