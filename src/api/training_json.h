#pragma once
// Presenting a training result: the JSON object and the human table, shared by train, search and scale.
#include <nlohmann/json.hpp>

#include <ostream>

#include "api/output.h"
#include "model/model.h"
#include "physics/hardware.h"
#include "plan/plan.h"
#include "search/search.h"
#include "training/training_step.h"

namespace gpuplan::api {

nlohmann::json breakdown_json(const StepBreakdown& s);
nlohmann::json memory_json(const TrainingMemory& m);
nlohmann::json training_json(const ModelArch& model, const Hardware& hw, const TrainingPlan& plan,
                             const TrainingWorkload& w, const TrainingResult& r);
// Throws the InputError for a plan's divisibility violations, naming the options involved
// (a dp that contradicts --gpus names both).
[[noreturn]] void throw_plan_violations(const std::vector<Violation>& violations);
// Throws InputError(field) when the accelerator lacks tensor cores for the training precision,
// naming the formats it has.
void require_training_precision(const Hardware& hw, Precision p, const std::string& field = "--precision");
// "DOES NOT FIT: the plan needs 84.6 GB per GPU of 80.0 GB usable (short 4.6 GB)", and its JSON form.
std::string does_not_fit_line(const TrainingMemory& m);
nlohmann::json does_not_fit_status(const TrainingMemory& m);
// When no plan of a search fits: says so (text or document, naming the closest plan) and returns
// kExitDoesNotFit.
int report_no_plan_fits(Output& out, const std::string& kind, const ModelArch& model, const Hardware& hw,
                        const TrainingWorkload& w, const SearchResult& found);
void print_training_text(std::ostream& os, const ModelArch& model, const Hardware& hw, const TrainingPlan& plan,
                         const TrainingWorkload& w, const TrainingResult& r);

}  // namespace gpuplan::api
