#pragma once
// When no plan fits a job: the GPU count at which one would. The count doubles from the job's (whole
// units stay whole) until a search finds a plan that fits, so a "does not fit" answer can say how
// many GPUs the model needs at that global batch and sequence length, and with which plan.
#include <functional>

#include "search/search.h"

namespace gpuplan {

struct FitsFrom {
  int gpus = 0;        // 0: no doubling up to the limit fits
  TrainingPlan plan;   // the search's best plan at `gpus`
};

// The first of 2g, 4g, 8g, ... (g = gpus, at most max_gpus) at which search(count) finds a plan
// that fits. `search` runs the command's own search at that count (its hardware resolved for it).
FitsFrom fits_from_doubling(int gpus, int max_gpus, const std::function<SearchResult(int)>& search);

}  // namespace gpuplan
