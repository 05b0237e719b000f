#pragma once
// Presenting a training result: the JSON object and the human table, shared by train, search and scale.
#include <nlohmann/json.hpp>

#include <ostream>

#include "model/model.h"
#include "physics/hardware.h"
#include "plan/plan.h"
#include "training/training_step.h"

namespace gpuplan::cli {

nlohmann::json breakdown_json(const StepBreakdown& s);
nlohmann::json memory_json(const TrainingMemory& m);
nlohmann::json training_json(const ModelArch& model, const Hardware& hw, const TrainingPlan& plan,
                             const TrainingWorkload& w, const TrainingResult& r);
void print_training_text(std::ostream& os, const ModelArch& model, const Hardware& hw, const TrainingPlan& plan,
                         const TrainingWorkload& w, const TrainingResult& r);

}  // namespace gpuplan::cli
