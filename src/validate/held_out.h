#pragma once
// Held-out residuals for the error bands: how far predictions fall from rows no fit saw.
#include <vector>

#include "validate/band_fit.h"
#include "validate/calibrate.h"

namespace gpuplan {

// Leave-one-source-family-out on training rows: for each family, calibrate() on the other families'
// rows (starting from the priors), then predict the family's rows with that fit (a generation the other
// families do not measure is predicted with the priors and goes to `unfitted` instead: it measures
// the error of an unmeasured generation, not of a fit). One residual per row predicted.
std::vector<HeldOutResidual> training_held_out_residuals(const std::vector<TrainingCase>& cases,
                                                         const CalibrationOptions& opts,
                                                         std::vector<HeldOutResidual>& unfitted);

// Training rows predicted with the cases' own (catalog) efficiencies: the model as shipped, for rows of
// sources no fit saw (calibrate --bands --new-ground).
std::vector<HeldOutResidual> training_residuals(const std::vector<TrainingCase>& cases);

// Every training row predicted with the prior efficiencies: the error of a generation without measurements.
std::vector<HeldOutResidual> training_prior_residuals(const std::vector<TrainingCase>& cases);

// Serving rows predicted with the cases' own (catalog) efficiencies: held out when the serving fit
// did not see the file (calibrate --inference fits on the AIConfigurator sample alone).
std::vector<HeldOutResidual> serving_residuals(const std::vector<InferenceCase>& cases);

// Serving rows predicted with the prior efficiencies (training and serving parameters alike).
std::vector<HeldOutResidual> serving_prior_residuals(const std::vector<InferenceCase>& cases);

}  // namespace gpuplan
