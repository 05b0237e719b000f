#pragma once
// When no plan fits a job: the GPU count at which one would. Where plans divide but none fits in
// memory, the count doubles from the job's (whole units stay whole) until a search finds a plan that
// fits; where none divides (more GPUs than the global batch can spread over), it halves. So a "does
// not fit" answer can say how many GPUs the model needs, or takes, at that global batch and sequence
// length, and with which plan.
#include <functional>

#include "search/search.h"

namespace gpuplan {

struct FitsFrom {
  int gpus = 0;        // 0: no count tried fits
  TrainingPlan plan;   // the search's best plan at `gpus`
};

// The first of 2g, 4g, 8g, ... (g = gpus, at most max_gpus) at which search(count) finds a plan
// that fits. `search` runs the command's own search at that count (its hardware resolved for it).
FitsFrom fits_from_doubling(int gpus, int max_gpus, const std::function<SearchResult(int)>& search);

// When no plan even divides the job (too many GPUs for the global batch: data parallelism cannot
// split fewer sequences than ranks): the first of g/2, g/4, ... (at least min_gpus) at which
// search(count) finds a plan that fits.
FitsFrom fits_from_halving(int gpus, int min_gpus, const std::function<SearchResult(int)>& search);

}  // namespace gpuplan
