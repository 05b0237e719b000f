#include "schedule/slowdown.h"

namespace gpuplan::schedule {

SlowdownModel fixed_slowdown(double penalty) {
  return [penalty](const Job&, const PlacementShape& shape) {
    return shape.split_groups > 0 ? 1.0 + penalty : 1.0;
  };
}

SlowdownModel default_slowdown(double comm_share, double bandwidth_ratio) {
  return fixed_slowdown(comm_share * (bandwidth_ratio - 1.0));
}

}  // namespace gpuplan::schedule
