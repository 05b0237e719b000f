// gpuplan train: predict one optimizer step of a training job under a plan.
#include <fmt/format.h>

#include <iostream>
#include <utility>

#include "api/band_json.h"
#include "api/train.h"
#include "api/text.h"
#include "api/fabric_options.h"
#include "api/training_json.h"
#include "core/error.h"
#include "core/suggest.h"
#include "model/model_dims.h"
#include "model/model_registry.h"
#include "training/expert_overlap.h"
#include "training/flop_convention.h"
#include "validate/blank_plan.h"
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
  app.add_option("--arch", req.arch_text,
                 "Model dimensions replacing --model's, e.g. layers=126,hidden=16384,heads=128,kv_heads=8,"
                 "vocab=128256,ffn_hidden=53248 (per expert for MoE),experts=0,topk=0. A --model no built-in "
                 "model matches is built from them alone (layers, hidden, heads and vocab needed)");
  app.add_option("--framework-release", req.framework_release,
                 fmt::format("The training framework's release: a year ({} to {}) or a NeMo container version "
                             "YY.MM or YY.MM.NN (e.g. 25.09; the container implies the year). Before 2022 no "
                             "sequence parallelism and no distributed optimizer (zero=0), before 2023 no TP "
                             "communication overlap, before 25.09 (Megatron-Core 0.14; a year: before 2025) no "
                             "expert all-to-all overlap; what the release lacks is off in the plan unless --plan "
                             "states it",
                             kOldestFrameworkRelease, kNewestFrameworkRelease))
      ->capture_default_str();
  app.add_option("--attention-kernel", req.attention_kernel,
                 "The attention kernel the training stack runs: native (the GPU generation's own fused kernels: "
                 "cuDNN fused attention in Transformer Engine, FlashAttention-3; the fitted rate) or "
                 "flash-attention-2 (the flash-attn package, PyTorch SDPA's flash backend: on Hopper the "
                 "Ampere-design kernel's rate, FlashAttention-2's published H100/A100 speed-up on the Ampere "
                 "rate; modelled on ampere, ada and hopper). Default: as --framework-release has it (on Hopper "
                 "the native kernels from 2024; docs/training-model.md, \"Framework release\")");
  app.add_option("--ep-overlap", req.ep_overlap,
                 "on or off: the MoE expert all-to-all overlapped with another micro-batch's compute "
                 "(Megatron-Core --overlap-moe-expert-parallel-comm). Default: on for a MoE model with ep > 1 "
                 "where --framework-release has it (25.09 on), off otherwise (docs/training-model.md, "
                 "\"Expert all-to-all overlap\"); a --plan ep_overlap key states it too, and this option wins "
                 "over it");
  app.add_option("--flop-convention", req.flop_convention,
                 "How tflops_per_gpu counts FLOPs: model (model FLOPs with causal attention, recompute not "
                 "counted), narayanan-2021 (Narayanan et al. 2021 Eq. 3, counting the recomputed forward and the "
                 "logits) or noncausal-attention (attention as if unmasked: PaLM's 6N + 12 L H Q T, MosaicML, "
                 "torchtitan)")
      ->capture_default_str();
  add_fabric_options(app, req.fabric_opts);
  add_finetune_options(app, req.finetune);
}

namespace {

// --model, with --arch's dimensions replacing its own (or alone, for a name no built-in model matches).
ModelArch train_model(const TrainRequest& req) {
  if (!req.given("--arch")) return resolve_model(req.model_name, "--model");
  const ModelDims dims = parse_model_dims(req.arch_text);
  std::vector<std::string> notes;
  bool builtin = false;
  ModelArch m = model_with_dims(req.model_name, req.model_name, dims, notes, &builtin);
  if (!builtin && !(dims.layers && dims.hidden && dims.heads && dims.vocab))
    throw InputError("--arch", fmt::format("'{}' is no built-in model: --arch must give at least layers, hidden, heads "
                                           "and vocab to build it, got '{}'",
                                           echo_name(req.model_name), echo_name(req.arch_text)));
  return m;
}

}  // namespace

int train(const Catalog& catalog, TrainRequest req, Output& output) {
  if (req.w.num_gpus < 1 || req.w.num_gpus > 1000000) throw InputError("--gpus", fmt::format("must be 1 to 1000000, got {}", req.w.num_gpus));
  req.check_global_batch(req.w.global_batch);
  if (req.w.seq_len < 1 || req.w.seq_len > 10000000) throw InputError("--seq", fmt::format("must be 1 to 10000000, got {}", req.w.seq_len));
  auto p = parse_precision(req.precision);
  if (!p) throw InputError("--precision", fmt::format("must be bf16, fp8, mxfp8 or nvfp4, got '{}'", req.precision));
  req.w.precision = *p;
  req.w.finetune = finetune_spec(req.finetune, req);
  const FrameworkRelease release = parse_framework_release(req.framework_release);
  AttentionKernel kernel = AttentionKernel::release;
  if (req.given("--attention-kernel")) {
    const auto k = parse_attention_kernel(req.attention_kernel);
    if (!k)
      throw InputError("--attention-kernel", fmt::format("must be native or flash-attention-2, got '{}'",
                                                         echo_name(req.attention_kernel)));
    kernel = *k;
  }
  const int ep_overlap_stated = req.given("--ep-overlap") ? (parse_on_off(req.ep_overlap, "--ep-overlap") ? 1 : 0) : -1;
  const auto flops = parse_flop_convention(req.flop_convention);
  if (!flops)
    throw InputError("--flop-convention", fmt::format("must be model, narayanan-2021 or noncausal-attention, got '{}'",
                                                      echo_name(req.flop_convention)));
  const ModelArch model = train_model(req);
  const BatchChoice batch = choose_global_batch(model, req.w.seq_len, req.given("--global-batch") ? req.w.global_batch : 0);
  req.w.global_batch = batch.sequences;
  Hardware hw = resolve_hardware(catalog, req.system);
  apply_fabric_options(catalog, hw, req.w.num_gpus, req.fabric_opts);
  require_training_precision(hw, req.w.precision);
  hw = with_release_kernels(std::move(hw), release, catalog, kernel);
  TrainingPlan plan;
  std::string chosen_by;  // empty: the user's plan
  if (req.given("--plan")) {
    TrainingPlan base = with_release_limits(TrainingPlan{}, release);
    base.dp = 0;  // derived from --gpus unless the plan names it (then the two must agree)
    plan = parse_training_plan(req.plan_text, base);
  } else if (!release.newest_features()) {
    // An older framework: the fastest plan that fits among those it could run (every field searched
    // as for a row's blank plan, with what the release lacks off).
    TrainingPlan base = with_release_limits(TrainingPlan{}, release);
    base.dp = 0;
    BlankFields all;
    all.tp = all.pp = all.vp = all.cp = all.ep = all.mbs = all.recompute = true;
    all.ep = model.is_moe();
    all.sequence_parallel_available = release.sequence_parallel;
    TrainingPlan split = base;  // the release's rule for a plan with EP > 1
    split.ep = 2;
    all.ep_overlap = release_overlaps_expert_a2a(model, split, release);
    const BlankFill fill = fill_blank_plan(model, hw, req.w, base, all);
    if (!fill.found) throw InputError("--gpus", "no plan divides the model over these GPUs: " + fill.note);
    plan = fill.plan;
    chosen_by = "the fastest plan the " + release.text() + " framework could run (" + fill.note + ")";
  } else {
    // No plan given: the command's own choice is the fastest plan that fits, as `search` finds it.
    const SearchResult found = search_plans(model, hw, req.w);
    if (found.top.empty()) {
      const FitsFrom from = fits_from_search(found, req.w.num_gpus, 1, [&](int gpus) {
        Hardware at = resolve_hardware(catalog, req.system);
        apply_fabric_options(catalog, at, gpus, req.fabric_opts);
        at = with_release_kernels(std::move(at), release, catalog, kernel);
        TrainingWorkload w = req.w;
        w.num_gpus = gpus;
        return search_plans(model, at, w);
      });
      return report_no_plan_fits(output, "train", model, hw, req.w, found, from);
    }
    plan = found.top.front().plan;
    chosen_by = fmt::format("the fastest of {} plans that fit (search)", found.stats.evaluated);
  }
  // The expert all-to-all overlap: as stated, else as the plan's key states it, else where the release
  // has it for a MoE plan with EP > 1, whatever the model (training/expert_overlap.h).
  if (ep_overlap_stated >= 0) plan.ep_overlap = ep_overlap_stated == 1;
  else if (!(req.given("--plan") && req.plan_text.find("ep_overlap") != std::string::npos))
    plan.ep_overlap = release_overlaps_expert_a2a(model, plan, release);
  const TrainingResult r = evaluate_training(model, hw, plan, req.w);
  if (!r.valid()) throw_plan_violations(r.violations);
  const bool fits = r.memory.fits;
  // Error band of the throughput (the step time's is its reciprocal): held-out error of this kind and generation.
  // Widened where the question lies off the ground the band was fitted on (band_for).
  const ErrorBand eb = training_band(catalog, model, hw, req.w);  // as search bands the same plan
  const BandedFigure tput = with_band(r.tokens_per_s_per_gpu, eb), step = with_band(r.step_time_s, eb, true);
  if (output.json()) {
    nlohmann::json j = training_json(model, hw, plan, req.w, r);
    j["framework_release"] = release.year;
    j["framework_container"] = release.container ? nlohmann::json(to_string(*release.container)) : nlohmann::json(nullptr);
    j["ep_overlap"] = plan.ep_overlap;
    j["attention_kernel"] = to_string(effective_attention_kernel(release, kernel, hw.accelerator.generation));
    j["flop_convention"] = std::string(to_string(*flops));
    j["tflops_per_gpu"] = tflops_per_gpu(*flops, model, req.w, r);
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
  const bool hopper = hw.accelerator.generation == "hopper";
  if (const std::string note = release_note(release, model.is_moe(), hopper && kernel == AttentionKernel::release);
      !note.empty())
    output.os() << note << "\n";
  if (hopper && kernel == AttentionKernel::flash_attention_2)
    output.os() << "attention: FlashAttention-2, the Ampere-design kernel, at its rate on Hopper "
                   "(--attention-kernel)\n";
  if (*flops != FlopConvention::model)
    output.os() << fmt::format("TFLOP/s per GPU counted as {}: {:.1f}\n", to_string(*flops),
                               tflops_per_gpu(*flops, model, req.w, r));
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
