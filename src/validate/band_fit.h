#pragma once
// Fits error bands (src/catalog/error_band.h) on held-out residuals, and checks how many held-out rows
// their bands hold (coverage). The residuals come from `calibrate --bands`: training rows predicted by
// a fit that did not see their source family; serving rows of files the serving fit never saw.
#include <map>
#include <string>
#include <vector>

#include "catalog/error_band.h"
#include "validate/inference_cases.h"
#include "validate/training_cases.h"
#include "validate/validation.h"

namespace gpuplan {

// One held-out prediction: log(measured / predicted) in the direction the band kind measures (a
// rate for training and serving throughput; a time for serving latency).
struct HeldOutResidual {
  std::string kind, generation, family;
  double log_ratio = 0;
};

// The residual of one prediction of a row's metric.
double band_log_ratio(double reported, double predicted, bool reciprocal);

// A source family: the source id up to its first '-' (DGXC-..., MBRIDGE-..., NEMO-...).
std::string source_family(const std::string& source_id);

struct BandFitOptions {
  double nominal = 0.80;  // share of held-out rows a band is meant to hold
  int few_rows = 10;      // cells with fewer rows also take the edges of their kind pooled over generations
  double unfitted_margin = 1.25;  // the unfitted band: this much wider than the widest it must contain
  std::string fitted_on, fitted_date;
};

// Bands per (kind, generation) from `held_out`, plus one "unfitted" band per kind from `unfitted`
// (rows predicted with the prior efficiencies: what a generation without measurements gets).
// Rules (docs/training-model.md, "Error bands"): a band is for rows of a source family nobody fitted
// on. Edges = the cell's mean family shift (family medians of log(measured/predicted)) plus, in
// quadrature, the (1-nominal)/2 and (1+nominal)/2 quantiles of the within-family residuals and a new
// family's shift: t quantile (degrees of freedom: families less one, pooled over the kind's
// generations) times the spread of family shifts (less the medians' own sampling noise) times
// sqrt(1 + 1/families); stretched to include 0; cells under few_rows take the union with their
// kind's pooled edges; every edge is then widened by (1 + 1/sqrt(rows)); the unfitted band holds every
// fitted band of its kind and its own quantiles, times unfitted_margin; a kind without any rows gets
// the widest unfitted band of all kinds.
// `measured` lists (kind, generation) pairs the catalog fits: one without held-out rows of its own (no
// other source family measures it) gets its kind's pooled band, widened by its families' rule.
using BandCell = std::pair<std::string, std::string>;
std::vector<ErrorBand> fit_error_bands(const std::vector<HeldOutResidual>& held_out,
                                       const std::vector<HeldOutResidual>& unfitted, const BandFitOptions& opts = {},
                                       const std::vector<BandCell>& measured = {});

// Share of residuals inside their band (find_band), overall ("all") and per kind.
std::map<std::string, Coverage> band_coverage(const std::vector<HeldOutResidual>& residuals,
                                              const std::vector<ErrorBand>& bands);

// Leave-one-family-out check of the bands themselves: each family's residuals against bands fitted on
// the other families' residuals. Overall ("all") and per kind.
std::map<std::string, Coverage> band_coverage_lofo(const std::vector<HeldOutResidual>& held_out,
                                                   const std::vector<HeldOutResidual>& unfitted,
                                                   const BandFitOptions& opts = {},
                                                   const std::vector<BandCell>& measured = {});

}  // namespace gpuplan
