#pragma once
// The global batch a training command uses when none is given: tokens per optimizer step that follow
// the model, as published pre-training schedules chose them (data/training/batch_schedules.yaml), never
// a multiple of the GPU count. One function, used by every training command.
#include <string>

#include "model/model.h"

namespace gpuplan {

struct DefaultBatch {
  long long sequences = 0;  // the global batch, sequences of seq_len tokens (2^a x 3^b, b <= 2)
  double tokens = 0;        // sequences * seq_len
  double fitted_tokens = 0; // the power law's tokens before rounding to a power-of-two sequence count
  std::string basis;        // one line: where the figure comes from
};

// tokens = a * total_params^b, the least-squares fit in log-log through the published schedules,
// rounded (in log) to the nearest sequence count 2^a x 3^b with b <= 2 (at least 1). seq_len >= 1.
DefaultBatch default_global_batch(const ModelArch& model, int seq_len);

// The fit's coefficients and the schedules behind it (a, b, count).
struct BatchLaw {
  double a = 0, b = 0;
  int schedules = 0;
};
const BatchLaw& default_batch_law();

}  // namespace gpuplan
