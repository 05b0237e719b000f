#pragma once
// Presenting a training result: the JSON object and the human table, shared by train, search and scale.
#include <nlohmann/json.hpp>

#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include "api/output.h"
#include "model/model.h"
#include "physics/hardware.h"
#include "plan/plan.h"
#include "search/fits_from.h"
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
// When no plan of a search fits: says so (text or document, naming the closest plan and, where a
// doubling of the GPUs fits, that count and its plan: fits_from) and returns kExitDoesNotFit.
int report_no_plan_fits(Output& out, const std::string& kind, const ModelArch& model, const Hardware& hw,
                        const TrainingWorkload& w, const SearchResult& found, const FitsFrom& fits_from);
// The largest job fits_from_doubling tries: 131,072 GPUs.
inline constexpr int kFitsFromMaxGpus = 1 << 17;
// Where no plan of `found` fits: plans divide but none fits memory -> fits_from_doubling up to
// kFitsFromMaxGpus; none divides -> fits_from_halving down to min_gpus.
FitsFrom fits_from_search(const SearchResult& found, int gpus, int min_gpus,
                          const std::function<SearchResult(int)>& search);
// "It fits from 256 GPUs (...): <plan>" (doubled) or "It runs on 512 GPUs (...): <plan>" (halved), or that
// none tried fits; with a newline.
std::string fits_from_line(const FitsFrom& from, bool halved = false);
// The global batch a training command runs: the one given (given > 0), or the model's default
// (training/default_batch.h), with the words that say which.
struct BatchChoice {
  long long sequences = 0;
  bool given = false;
  std::string basis;  // "given (--global-batch)" or the default's basis
};
BatchChoice choose_global_batch(const ModelArch& model, int seq_len, long long given);
// "global batch 2048 x 8192 tokens = 16.8M tokens (default for a 406B-parameter model: ...; --global-batch to change)"
std::string batch_line(const BatchChoice& b, int seq_len);
nlohmann::json batch_json(const BatchChoice& b, int seq_len);
// What the prediction rests on: empty when the generation's training efficiencies were fitted on
// measurements and the kind (dense or MoE) has a band of its own there; otherwise one sentence each
// ("the cdna3 generation's training efficiencies were never fitted ...: the wider unfitted band applies").
std::vector<std::string> fit_notes(const Hardware& hw, const ModelArch& model, const std::string& band_generation);
// The MFU check against the best published for the generation and precision
// (data/training/published_mfu.yaml): {"mfu_6n_bf16_peak", "best_published", "source", "above"}; best_published
// null where nothing of that generation and precision is published. `note` gets a sentence when above
// or when nothing is published, empty otherwise.
nlohmann::json published_mfu_check(const Hardware& hw, Precision precision, const TrainingResult& r, std::string& note);
void print_training_text(std::ostream& os, const ModelArch& model, const Hardware& hw, const TrainingPlan& plan,
                         const TrainingWorkload& w, const TrainingResult& r);

}  // namespace gpuplan::api
