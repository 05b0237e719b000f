#pragma once

#include <optional>

#include "compare/recommend.h"

namespace gpuplan::compare {

// The smallest purchase that does the job: of the ranked systems that are feasible (fit, meet the
// deadline or the serving limits, within budget) and priced, the one whose whole units cost the least
// capital (ties: the least IT power, then the rank). A generation whose efficiencies were never fitted
// competes only when the ranking puts it among the fitted ones (RecommendSpec::unfitted_last false)
// or no fitted system qualifies. The ranking itself (the job's cost, or the cost per hour of serving)
// can prefer a larger purchase that runs the job for less; this answers what the least money buys.
// Returns the index into res.ranked; none when no system is feasible and priced.
std::optional<std::size_t> smallest_purchase(const RecommendResult& res);

}  // namespace gpuplan::compare
