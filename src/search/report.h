#pragma once
// The versioned JSON form of search and scaling results (what the CLI prints with --json and what
// reports and bindings read).
#include <nlohmann/json.hpp>

#include "search/scaling.h"
#include "search/search.h"

namespace gpuplan {

nlohmann::json plan_json(const TrainingPlan& plan);             // {"text", "tp", "pp", ...}
nlohmann::json breakdown_json(const StepBreakdown& parts);      // named parts, seconds, with total_s
nlohmann::json memory_summary_json(const TrainingMemory& mem);  // per-GPU bytes by kind vs capacity
nlohmann::json candidate_json(const TrainingPlan& plan, const TrainingResult& result);
nlohmann::json stats_json(const SearchStats& stats);            // enumerated, evaluated, dropped{reason: n}

}  // namespace gpuplan
