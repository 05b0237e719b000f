#pragma once
// Error bands off the data: the ground each band was fitted on (BandGround), how far the rows of a
// source family left out of the fit lie from it, and the widening per dimension (BandWidening) that
// makes the nominal band hold its share of those rows (docs/training-model.md, "Error bands off the
// data").
#include <map>
#include <string>
#include <vector>

#include "catalog/error_band.h"
#include "validate/band_fit.h"

namespace gpuplan {

// The widening's domain: each training kind (training_dense, training_moe), and per serving figure
// ("serving_throughput", "serving_tpot", "serving_ttft": aggregated and disaggregated together); a factor
// is fitted per dimension and domain.
std::string band_domain(std::string_view kind);

// Sets each band's ground from the rows of its (kind, generation): their precisions, GPU counts and
// model sizes, and the serving engines with at least `min_engine_rows` of those rows (fewer than a band
// needs: min_band_rows) ("unfitted" bands keep none).
void attach_ground(std::vector<ErrorBand>& bands, const std::vector<HeldOutResidual>& rows, int min_engine_rows = 9);
// Sets each band's widening to its domain's.
void attach_widening(std::vector<ErrorBand>& bands, const std::map<std::string, BandWidening>& by_domain);

// The question a residual's row asks, from a source fitted (known ground) or not (new ground).
BandQuestion question_of(const HeldOutResidual& h, bool source_fitted);

// A row of a source family left out: its residual, the band of bands fitted (with their ground)
// without the family, and its distance from that band's ground.
// What a pass of new_ground_rows leaves out at a time: a source family, a serving engine (every row
// it ran, whichever source measured it; rows without an engine are never left out) or an accelerator
// (every row measured on it, whichever source); and, to check the
// bands (not to fit them), a source id (a round or version of a source: MLPerf-v5.0, every framework
// it ran) or a framework release (every row that ran it, whichever source). `unseen`: a row of a source no
// fit and no design choice saw (unseen_source_rows), not left out of anything.
enum class BandHoldOut { source_family, engine, accelerator, source_id, release, unseen };
struct NewGroundRow {
  HeldOutResidual row;
  ErrorBand band;
  GroundDistance distance;
  BandHoldOut held_out_by = BandHoldOut::source_family;
};
// Leave-one-out (by default one source family at a time): each group's rows against bands fitted, with
// their ground, on the other groups' rows.
std::vector<NewGroundRow> new_ground_rows(const std::vector<HeldOutResidual>& held_out,
                                          const std::vector<HeldOutResidual>& unfitted, const BandFitOptions& opts = {},
                                          const std::vector<BandCell>& measured = {},
                                          BandHoldOut by = BandHoldOut::source_family);

// Rows of sources the model was neither fitted nor built on (calibrate --bands --new-ground): each
// residual of the model as shipped against `bands` (fitted on every other row, their ground attached),
// its distance from that ground as a validation of the row measures it. Leaving a family out of the
// fits cannot show what its having shaped the model's design hides; these rows can.
std::vector<NewGroundRow> unseen_source_rows(const std::vector<HeldOutResidual>& rows,
                                             const std::vector<ErrorBand>& bands);

// The intra-group correlation of a quantity over left-out rows (one-way ANOVA: the between-group variance
// over the total), the group being the source family a row went out with (its engine in the engine's
// pass, its accelerator in the accelerator's); 0 with fewer than two groups. `values` parallel to `rows`.
double intra_group_correlation(const std::vector<const NewGroundRow*>& rows, const std::vector<double>& values);
// Each row's weight in a coverage count: 1 / (1 + (n - 1) rho), rho the intra-group correlation of
// `values` and n its group's rows, so a group's rows together weigh its effective sample size
// n / (1 + (n - 1) rho): rows of one source share its shift (fall outside a band together), and a new
// source is one more group, not one more row.
std::vector<double> effective_weights(const std::vector<const NewGroundRow*>& rows, const std::vector<double>& values);

// The widening per domain fitted on new-ground rows: coordinate by coordinate (source, precision, scale,
// model size, engine, accelerator; three passes), each factor the smallest in [1, max_factor] whose widened bands hold
// `nominal` of the domain's rows off the ground along that dimension, the rows weighted by
// effective_weights of their being outside the band unwidened along it (1 when they already do, or when fewer than min_band_rows rows lie off it). The
// engine factor is fitted on the rows of engines left out (BandHoldOut::engine), the accelerator factor on
// the rows of accelerators left out (BandHoldOut::accelerator), the others on the rows of source families
// left out. Where a domain has at least min_band_rows rows of unseen sources (BandHoldOut::unseen), the
// source factor is the larger of the one its left-out families need and the one its unseen sources need:
// the families left out shaped the model's design, so their rows alone understate a new source's error.
std::map<std::string, BandWidening> fit_widening(const std::vector<NewGroundRow>& rows, double nominal,
                                                 double max_factor = 6.0);

// Share of new-ground rows inside their band widened with `by_domain` (empty: the known-ground edges).
BandCoverage new_ground_coverage(const std::vector<NewGroundRow>& rows,
                                 const std::map<std::string, BandWidening>& by_domain);

// The widening's own check on new ground: each source family's rows (of the source-family pass, and of
// the unseen sources) against the factors fitted without that family's rows in any pass (fit_widening on
// the rest), so the family is new to the bands and to their widening alike.
BandCoverage nested_new_ground_coverage(const std::vector<NewGroundRow>& rows, double nominal,
                                        double max_factor = 6.0);

// How many rows lie off the ground along each dimension ("source", "precision", "scale", "model_size",
// "engine", "accelerator"), counting each row in the pass that fits that dimension's factor.
std::map<std::string, size_t> off_ground_counts(const std::vector<NewGroundRow>& rows);

}  // namespace gpuplan
