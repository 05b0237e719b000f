// gpuplan train: predict one optimizer step of a training job under a plan.
#include <fmt/format.h>

#include <iostream>

#include "api/band_json.h"
#include "api/train.h"
#include "api/text.h"
#include "api/fabric_options.h"
#include "api/training_json.h"
#include "core/error.h"
#include "model/model_registry.h"
#include "physics/hardware.h"
#include "search/search.h"
#include "training/training_step.h"

namespace gpuplan::api {

void add_train_options(CLI::App& app, TrainRequest& req) {
  app.description("Predict one training step: time, tokens/s, MFU (6N-style and with attention, against the "
               "precision's peak and the BF16 peak), per-GPU memory, and a breakdown of where the time goes "
               "(compute by op class, exposed communication by kind, pipeline bubble, optimizer).");
  app.add_option("--model", req.model_name, kModelOptionHelp)
      ->capture_default_str();
  app.add_option("--system", req.system, "Catalog system (e.g. hgx-h100, gb200-nvl72) or accelerator")
      ->capture_default_str();
  app.add_option("--gpus", req.w.num_gpus, "Number of GPUs")->capture_default_str();
  app.add_option("--global-batch", req.w.global_batch,
                 "Sequences per optimizer step (default: follows the model, as published pre-training schedules "
                 "chose it: about 12.6M tokens for a 405B model, 6.3M for 70B, 3.1M for 8B; a round sequence "
                 "count, 2^a x 3^b)");
  app.add_option("--seq", req.w.seq_len, "Sequence length, tokens")->capture_default_str();
  app.add_option("--precision", req.precision, "bf16, fp8, mxfp8 or nvfp4")->capture_default_str();
  app.add_option("--plan", req.plan_text,
                 "Parallel plan, e.g. tp=4,pp=4,vp=5,cp=2,ep=1,mbs=1,recompute=none,zero=1 (dp is derived from "
                 "--gpus; if given it must agree). Without --plan: the fastest plan that fits, as `search` finds it. "
                 "A plan that does not fit in memory is reported first and exits with code 3");
  add_fabric_options(app, req.fabric_opts);
  add_finetune_options(app, req.finetune);
}

int train(const Catalog& catalog, TrainRequest req, Output& output) {
  if (req.w.num_gpus < 1 || req.w.num_gpus > 1000000) throw InputError("--gpus", fmt::format("must be 1 to 1000000, got {}", req.w.num_gpus));
  req.check_global_batch(req.w.global_batch);
  if (req.w.seq_len < 1 || req.w.seq_len > 10000000) throw InputError("--seq", fmt::format("must be 1 to 10000000, got {}", req.w.seq_len));
  auto p = parse_precision(req.precision);
  if (!p) throw InputError("--precision", fmt::format("must be bf16, fp8, mxfp8 or nvfp4, got '{}'", req.precision));
  req.w.precision = *p;
  req.w.finetune = finetune_spec(req.finetune, req);
  const ModelArch model = resolve_model(req.model_name, "--model");
  const BatchChoice batch = choose_global_batch(model, req.w.seq_len, req.given("--global-batch") ? req.w.global_batch : 0);
  req.w.global_batch = batch.sequences;
  Hardware hw = resolve_hardware(catalog, req.system);
  apply_fabric_options(catalog, hw, req.w.num_gpus, req.fabric_opts);
  require_training_precision(hw, req.w.precision);
  TrainingPlan plan;
  std::string chosen_by;  // empty: the user's plan
  if (req.given("--plan")) {
    TrainingPlan base;
    base.dp = 0;  // derived from --gpus unless the plan names it (then the two must agree)
    plan = parse_training_plan(req.plan_text, base);
  } else {
    // No plan given: the command's own choice is the fastest plan that fits, as `search` finds it.
    const SearchResult found = search_plans(model, hw, req.w);
    if (found.top.empty()) return report_no_plan_fits(output, "train", model, hw, req.w, found);
    plan = found.top.front().plan;
    chosen_by = fmt::format("the fastest of {} plans that fit (search)", found.stats.evaluated);
  }
  const TrainingResult r = evaluate_training(model, hw, plan, req.w);
  if (!r.valid()) throw_plan_violations(r.violations);
  const bool fits = r.memory.fits;
  // Error band of the throughput (the step time's is its reciprocal): held-out error of this kind and generation.
  // Widened where the question lies off the ground the band was fitted on (band_for).
  const ErrorBand eb = band_for(catalog.error_bands(), training_band_kind(model.is_moe()), hw.accelerator.generation,
                                {false, std::string(to_string(req.w.precision)), req.w.num_gpus, total_params(model) / 1e9});
  const BandedFigure tput = with_band(r.tokens_per_s_per_gpu, eb), step = with_band(r.step_time_s, eb, true);
  if (output.json()) {
    nlohmann::json j = training_json(model, hw, plan, req.w, r);
    j["plan_source"] = chosen_by.empty() ? "user" : "search";
    j["global_batch_basis"] = batch_json(batch, req.w.seq_len);
    j["fits"] = fits;
    if (!fits) j["status"] = does_not_fit_status(r.memory);
    j["band"] = {{"tokens_per_s_per_gpu", band_json(tput)}, {"step_time_s", band_json(step)}};
    j["fit_notes"] = fit_notes(hw, model, tput.generation);
    std::string mfu_note;
    j["published_mfu"] = published_mfu_check(hw, req.w.precision, r, mfu_note);
    if (!mfu_note.empty()) j["fit_notes"].push_back(mfu_note);
    output.emit("train", std::move(j));
    return fits ? kExitOk : kExitDoesNotFit;
  }
  if (!fits) output.os() << does_not_fit_line(r.memory) << "\n\n";
  if (!chosen_by.empty()) output.os() << "plan chosen: " << chosen_by << " (give --plan to fix one)\n";
  output.os() << batch_line(batch, req.w.seq_len) << "\n";
  print_training_text(output.os(), model, hw, plan, req.w, r);
  output.os() << fmt::format("\n  error band: tokens/s/GPU {:.0f} ({:.0f} to {:.0f}), step {:.3f} s ({:.3f} to {:.3f}): {}\n",
                           tput.value, tput.low, tput.high, step.value, step.low, step.high, band_text(tput));
  for (const std::string& note : fit_notes(hw, model, tput.generation)) output.os() << "  note: " << note << "\n";
  std::string mfu_note;
  published_mfu_check(hw, req.w.precision, r, mfu_note);
  if (!mfu_note.empty()) output.os() << "  note: " << mfu_note << "\n";
  return fits ? kExitOk : kExitDoesNotFit;
}


}  // namespace gpuplan::api
