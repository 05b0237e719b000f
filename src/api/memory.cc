// gpuplan memory: per-GPU memory of training under a plan, or of inference at a concurrency.
#include <fmt/format.h>

#include <cmath>
#include <iostream>
#include <optional>

#include "api/memory.h"
#include "api/mode_options.h"
#include "api/text.h"
#include "core/error.h"
#include "memory/lora_memory.h"
#include "memory/inference_memory.h"
#include "memory/training_memory.h"
#include "model/model_registry.h"
#include "physics/hardware.h"
#include "training/default_batch.h"

namespace gpuplan::api {

namespace {

// Whole-number option in [lo, hi]; the message names the option and the range.
void check_range(const MemoryRequest& o, const char* name, long long v, long long lo, long long hi) {
  if (o.given(name) && (v < lo || v > hi))
    throw InputError(name, fmt::format("must be a whole number from {} to {}, got {}", lo, hi, v));
}

Precision parse_precision_option(const std::string& text, const char* name) {
  if (auto p = parse_precision(text)) return *p;
  throw InputError(name, fmt::format("unknown precision '{}'; allowed: {}", text, precision_names()));
}

// The GPU whose memory a plan is checked against (a catalog system or a bare accelerator).
struct MemoryTarget {
  const Accelerator* accelerator = nullptr;
  const System* system = nullptr;
  double capacity_bytes() const { return accelerator ? accelerator->memory_bytes : 0.0; }
  // "HGX H200 8-GPU (h200-sxm, 141.0 GB)" or "H200 SXM (141.0 GB)".
  std::string describe() const {
    if (!accelerator) return "an unknown GPU (give --system or --gpu for its capacity)";
    const double gb = accelerator->memory_bytes / 1e9;
    if (system)
      return fmt::format("{} ({}, {:.1f} GB)", system->display_name.empty() ? system->name : system->display_name,
                         accelerator->name, gb);
    return fmt::format("{} ({:.1f} GB)", accelerator->display_name.empty() ? accelerator->name : accelerator->display_name,
                       gb);
  }
};

MemoryTarget resolve_memory_target(const Catalog& catalog, const MemoryRequest& o) {
  MemoryTarget hw;
  if (!o.system.empty() && !o.gpu.empty()) throw InputError("--gpu", "give --system or --gpu, not both");
  if (!o.system.empty()) {
    // A system, or an accelerator resolved as train and infer resolve it (resolve_hardware: the system
    // built from it, else the bare accelerator); any other name is an error listing the systems.
    const Hardware resolved = resolve_hardware(catalog, o.system);
    hw.system = catalog.find_system(resolved.system_name);
    hw.accelerator = &catalog.accelerator(resolved.accelerator.name, "--system");
  } else if (!o.gpu.empty()) {
    hw.accelerator = &catalog.accelerator(o.gpu, "--gpu");
  }
  return hw;
}

nlohmann::json violations_json(const std::vector<Violation>& vs) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& v : vs) out.push_back({{"code", v.code}, {"subject", v.subject}, {"message", v.message}});
  return out;
}

// The fields the training and the inference documents share: the mode, the model and hardware, the
// capacity, the parts (the mode's own), the total, whether it fits and by how much, the violations.
// Capacity, fit and headroom are null where the hardware's memory is unknown.
template <typename MemoryResult>
nlohmann::json memory_header_json(const char* mode, const std::string& model, const MemoryTarget& hw, bool known,
                                  const MemoryResult& r, nlohmann::json parts) {
  nlohmann::json j;
  j["mode"] = mode;
  j["model"] = model;
  j["accelerator"] = hw.accelerator ? nlohmann::json(hw.accelerator->name) : nlohmann::json(nullptr);
  j["system"] = hw.system ? nlohmann::json(hw.system->name) : nlohmann::json(nullptr);
  j["capacity_bytes"] = known ? nlohmann::json(r.capacity_bytes) : nlohmann::json(nullptr);
  j["parts"] = std::move(parts);
  j["total_bytes"] = r.total_bytes;
  j["fits"] = known ? nlohmann::json(r.fits) : nlohmann::json(nullptr);
  j["headroom_bytes"] = known ? nlohmann::json(r.headroom_bytes) : nlohmann::json(nullptr);
  j["violations"] = violations_json(r.violations);
  return j;
}

std::string pct(double part, double capacity) {
  return capacity > 0 ? fmt::format("{:.1f}%", 100.0 * part / capacity) : std::string("-");
}

void print_parts(std::ostream& os, const std::vector<std::pair<std::string, double>>& parts, double total, double capacity) {
  os << fmt::format("  {:<14}{:>10}  {:>13}\n", "part", "GB", "% of capacity");
  for (const auto& [name, bytes] : parts)
    os << fmt::format("  {:<14}{:>10.1f}  {:>13}\n", name, bytes / 1e9, pct(bytes, capacity));
  os << fmt::format("  {:<14}{:>10.1f}  {:>13}\n", "total", total / 1e9, pct(total, capacity));
  if (capacity > 0) os << fmt::format("  {:<14}{:>10.1f}\n", "capacity", capacity / 1e9);
  os << "\n";
}

// A plan that does not fit in a known capacity is exit 3, as train's; the document is printed either way.
int fit_exit_code(bool known, bool fits) { return known && !fits ? kExitDoesNotFit : kExitOk; }

void print_verdict(std::ostream& os, bool known, bool fits, double headroom) {
  if (!known)
    os << "Capacity unknown: give --system or --gpu to check the fit.\n";
  else if (fits)
    os << fmt::format("FITS, headroom {:.1f} GB per GPU.\n", headroom / 1e9);
  else
    os << fmt::format("DOES NOT FIT, {:.1f} GB per GPU over capacity.\n", -headroom / 1e9);
}

int run_inference(const MemoryRequest& o, Output& output, const ModelArch& m, const MemoryTarget& hw) {
  refuse_ignored_options(o, {"--plan", "--gpus", "--global-batch", "--seq", "--loss-precision"},
                         "is a training option; with --inference use --context, --concurrency, --tp, --ep, --pp");
  check_range(o, "--context", o.context, 1, 10'000'000);
  check_range(o, "--concurrency", o.concurrency, 1, 100'000'000);
  check_range(o, "--tp", o.tp, 1, 1024);
  check_range(o, "--ep", o.ep, 1, 1024);
  check_range(o, "--pp", o.pp, 1, 1024);

  InferenceMemoryInput in;
  in.weight_precision = parse_precision_option(o.precision, "--precision");
  // KV cache precision: as given; else the weights' (the frameworks' default), fp8 for 4-bit weights.
  Precision kv = in.weight_precision;
  if (!o.kv_precision.empty()) kv = parse_precision_option(o.kv_precision, "--kv-precision");
  else if (kv == Precision::nvfp4 || kv == Precision::fp4) kv = Precision::fp8;
  else if (kv == Precision::w4a16) kv = Precision::bf16;  // weight-only: activations and KV stay 16-bit
  if (kv == Precision::w4a16)
    throw InputError("--kv-precision", "w4a16 is a weight format (4-bit weights, 16-bit activations); the KV cache "
                                       "is bf16, fp8, mxfp8, nvfp4 or fp4");
  in.kv_bytes_per_element = weight_bytes(kv);
  in.tp = o.tp;
  in.ep = o.ep;
  in.pp = o.pp;
  in.context_tokens = o.context;
  // The serving engine's reserve (the one infer's evaluator holds) unless --reserve-gb says otherwise.
  in.reserve_bytes = o.given("--reserve-gb") ? o.reserve_gb * 1e9 : kServingEngineReserveBytes;
  in.capacity_bytes = hw.capacity_bytes();
  const bool conc_given = o.given("--concurrency") > 0;
  in.concurrency = conc_given ? o.concurrency : 1;

  // Default TP: the smallest valid degree within the scale-up domain at which the weights and one
  // sequence (or the given concurrency) fit.
  const bool tp_given = o.given("--tp") > 0;
  if (!tp_given && in.capacity_bytes > 0) {
    const int domain = hw.system ? hw.system->nvlink_domain_gpus : std::max(1, hw.accelerator->max_scaleup_domain);
    const auto candidates = valid_inference_tp(m, std::max(1, domain));
    for (int t : candidates) {
      if (t % in.ep != 0 && in.ep % t != 0) continue;
      in.tp = t;
      if (inference_memory(m, in).fits) break;
    }
  }
  InferenceMemory r = inference_memory(m, in);
  if (!conc_given && r.max_concurrency > 1) {
    in.concurrency = r.max_concurrency;
    r = inference_memory(m, in);
  }

  const bool known = in.capacity_bytes > 0;
  if (output.json()) {
    nlohmann::json j = memory_header_json("inference", m.name, hw, known, r,
                                          {{"weights_bytes", r.weights_bytes},
                                           {"kv_cache_bytes", r.kv_cache_bytes},
                                           {"activations_bytes", r.activations_bytes},
                                           {"reserve_bytes", r.reserve_bytes}});
    j["inference"] = {{"tp", in.tp},
                      {"tp_source", tp_given || !known ? "given" : "smallest_that_fits"},
                      {"ep", in.ep},
                      {"pp", in.pp},
                      {"weight_precision", std::string(to_string(in.weight_precision))},
                      {"kv_precision", std::string(to_string(kv))},
                      {"context_tokens", in.context_tokens},
                      {"concurrency", in.concurrency},
                      {"concurrency_source", conc_given ? "given" : "max_that_fits"},
                      {"max_concurrency", known ? nlohmann::json(r.max_concurrency) : nlohmann::json(nullptr)},
                      {"kv_bytes_per_token", r.kv_bytes_per_token},
                      {"kv_bytes_per_sequence", r.kv_bytes_per_sequence},
                      {"kv_split", r.kv_split},
                      {"kv_block_tokens", in.kv_block_tokens},
                      {"max_batch_tokens", in.max_batch_tokens},
                      {"stage", r.stage}};
    output.emit("memory", std::move(j));
    return fit_exit_code(known, r.fits);
  }

  const std::string name = m.display_name.empty() ? m.name : m.display_name;
  output.os() << fmt::format("{} inference on {}, per GPU\n", name, hw.describe());
  output.os() << fmt::format("  tp {}{}, ep {}, pp {}; weights {}, KV cache {}\n", in.tp,
                           tp_given || !known ? "" : " (smallest that fits; set --tp)", in.ep, in.pp,
                           to_string(in.weight_precision), to_string(kv));
  output.os() << fmt::format("  context {} tokens per sequence, concurrency {}{}\n", in.context_tokens, in.concurrency,
                           conc_given ? "" : known ? " (the most that fit)" : " (set --concurrency)");
  if (in.pp > 1) output.os() << fmt::format("  reported: pipeline stage {}, the most loaded\n", r.stage);
  output.os() << "\n";
  print_parts(output.os(), {{"weights", r.weights_bytes},
               {"KV cache", r.kv_cache_bytes},
               {"activations", r.activations_bytes},
               {"reserve", r.reserve_bytes}},
              r.total_bytes, r.capacity_bytes);
  print_verdict(output.os(), known, r.fits, r.headroom_bytes);
  output.os() << fmt::format("KV cache: {} per token, {} per sequence of {} tokens (per GPU, blocks of {}).\n",
                           human_bytes(r.kv_bytes_per_token), human_bytes(r.kv_bytes_per_sequence), in.context_tokens,
                           in.kv_block_tokens);
  if (known)
    output.os() << fmt::format("At most {} concurrent sequences of {} tokens fit.\n", r.max_concurrency,
                             in.context_tokens);
  return fit_exit_code(known, r.fits);
}

int run_training(const MemoryRequest& o, Output& output, const ModelArch& m, const MemoryTarget& hw) {
  refuse_ignored_options(o, {"--context", "--concurrency", "--kv-precision", "--tp", "--ep", "--pp"},
                         "is an inference option (add --inference); for training give --plan \"tp=..,pp=..\"");
  check_range(o, "--gpus", o.gpus, 1, 1 << 20);
  check_range(o, "--seq", o.seq, 1, 10'000'000);
  check_range(o, "--global-batch", o.global_batch, 1, 1'000'000'000);

  TrainingPlan plan = parse_training_plan(o.plan);
  TrainingWorkload w;
  w.precision = parse_precision_option(o.precision, "--precision");
  if (const std::string why = training_refusal(w.precision); !why.empty()) throw InputError("--precision", why);
  w.seq_len = o.seq;
  w.finetune = finetune_spec(o.finetune, o);
  w.num_gpus = o.given("--gpus") ? o.gpus : plan.tp * plan.pp * plan.cp * std::max(1, plan.dp);
  // Default global batch: the model's (training/default_batch.h), rounded up to a multiple of mbs * dp.
  const long long per_step = 1LL * plan.mbs * derived_dp(plan, w.num_gpus);
  const long long model_default = default_global_batch(m, w.seq_len).sequences;
  w.global_batch = o.given("--global-batch") ? o.global_batch : (model_default + per_step - 1) / per_step * per_step;

  MemoryOptions opt;
  opt.reserve_bytes = o.reserve_gb * 1e9;
  opt.capacity_bytes = hw.capacity_bytes();
  if (hw.system) opt.host_capacity_bytes = hw.system->host_memory_bytes_per_gpu();  // this GPU's share of the node's DRAM
  const TrainingMemory r = training_memory(m, plan, w, opt);
  plan.dp = r.dp;  // shown as derived from the GPU count
  const bool known = opt.capacity_bytes > 0;

  if (output.json()) {
    nlohmann::json stages = nlohmann::json::array();
    for (const auto& s : r.stages)
      stages.push_back({{"stage", s.stage},
                        {"role", s.role},
                        {"layers", s.layers},
                        {"params", s.params},
                        {"weights_bytes", s.weights_bytes},
                        {"gradients_bytes", s.gradients_bytes},
                        {"optimizer_bytes", s.optimizer_bytes},
                        {"activations_bytes", s.activations_bytes},
                        {"logits_bytes", s.logits_bytes},
                        {"in_flight_microbatches", s.in_flight_microbatches},
                        {"total_bytes", s.total_bytes}});
    nlohmann::json j = memory_header_json("training", m.name, hw, known, r,
                                          {{"weights_bytes", r.weights_bytes},
                                           {"gradients_bytes", r.gradients_bytes},
                                           {"optimizer_bytes", r.optimizer_bytes},
                                           {"activations_bytes", r.activations_bytes},
                                           {"reserve_bytes", r.reserve_bytes}});
    j["training"] = {{"plan", to_string(plan)},
                     {"gpus", w.num_gpus},
                     {"dp", r.dp},
                     {"expert_dp", r.expert_dp},
                     {"precision", std::string(to_string(w.precision))},
                     {"seq_len", w.seq_len},
                     {"global_batch", w.global_batch},
                     {"num_microbatches", r.num_microbatches},
                     {"stage", r.stage},
                     {"stage_role", r.stage_role},
                     {"activation_bytes_per_layer", r.activation_bytes_per_layer},
                     {"host_bytes_per_gpu", r.host_bytes_per_gpu},
                     {"host_capacity_bytes_per_gpu", r.host_capacity_bytes_per_gpu},
                     {"fits_host", r.fits_host},
                     {"stages", stages}};
    if (finetune_stated(w.finetune)) j["training"]["finetune"] = finetune_json(m, w.finetune);
    output.emit("memory", std::move(j));
    return fit_exit_code(known, r.fits);
  }

  const std::string name = m.display_name.empty() ? m.name : m.display_name;
  output.os() << fmt::format("{} training on {}, per GPU\n", name, hw.describe());
  output.os() << fmt::format("  {} GPUs, {}, seq {}, global batch {} ({} micro-batches per step)\n", w.num_gpus,
                           to_string(w.precision), w.seq_len, w.global_batch, r.num_microbatches);
  if (!w.finetune.is_full())
    output.os() << fmt::format("  fine-tuning {}: {:.3g} B adapter parameters, frozen base at {:.3g} bytes/param\n",
                               describe(w.finetune), lora_adapter_params(m, w.finetune) / 1e9,
                               frozen_bytes_per_param(w.finetune));
  else if (finetune_stated(w.finetune))
    output.os() << fmt::format("  training: {}\n", describe(w.finetune));
  output.os() << fmt::format("  plan {}{}\n", to_string(plan),
                           m.is_moe() ? fmt::format(" (expert dp {})", r.expert_dp) : std::string());
  output.os() << fmt::format("  reported: pipeline stage {} ({}), the most loaded\n\n", r.stage, r.stage_role);
  print_parts(output.os(), {{"weights", r.weights_bytes},
               {"gradients", r.gradients_bytes},
               {"optimizer", r.optimizer_bytes},
               {"activations", r.activations_bytes},
               {"reserve", r.reserve_bytes}},
              r.total_bytes, r.capacity_bytes);
  output.os() << fmt::format("  host memory {} of {} per GPU (offloaded activations {} + process and pinned buffers){}\n",
                           human_bytes(r.host_bytes_per_gpu),
                           r.host_capacity_bytes_per_gpu > 0 ? human_bytes(r.host_capacity_bytes_per_gpu) : "unknown",
                           human_bytes(r.host_offload_bytes), r.fits_host ? "" : "  DOES NOT FIT");
  print_verdict(output.os(), known, r.fits, r.headroom_bytes);
  return fit_exit_code(known, r.fits);
}

}  // namespace

void add_memory_options(CLI::App& app, MemoryRequest& o) {
  app.description("Per-GPU memory: weights, gradients, optimizer state, activations (training under --plan), or "
               "weights, KV cache, activations (--inference); parts in GB and % of capacity, FITS or not");
  app.add_option("--model", o.model, kModelOptionHelp)->required();
  app.add_option("--system", o.system, "System from the catalog (its accelerator sets the capacity), or an accelerator (the system built from it, as train takes it)");
  app.add_option("--gpu", o.gpu, "Accelerator from the catalog");
  app.add_option("--precision", o.precision, "bf16, fp8, mxfp8, nvfp4, fp4 (training recipe or inference weights) or w4a16 "
                                          "(inference only: 4-bit weight-only INT4, alias int4_wo, awq, gptq)")
      ->capture_default_str();
  app.add_flag("--inference", o.inference, "Inference memory instead of training");
  // Training
  app.add_option("--gpus", o.gpus, "Training: GPUs in the job (default tp*pp*cp*dp of --plan)");
  app.add_option("--seq", o.seq, "Training: sequence length, tokens")->capture_default_str();
  app.add_option("--global-batch", o.global_batch,
                 "Training: sequences per optimizer step (default: the model's, as `train --help` says, rounded up to a "
                 "multiple of mbs*dp)");
  app.add_option("--plan", o.plan, "Training plan, e.g. \"tp=8,pp=4,vp=2,cp=1,ep=1,mbs=1,recompute=selective,zero=1\"");
  add_finetune_options(app, o.finetune);
  // Inference
  app.add_option("--context", o.context, "Inference: tokens per sequence in the KV cache")->capture_default_str();
  app.add_option("--concurrency", o.concurrency, "Inference: sequences at once (default: the most that fit)");
  app.add_option("--kv-precision", o.kv_precision, "Inference: KV cache precision (default: the weights'; fp8 for fp4, bf16 for w4a16)");
  app.add_option("--tp", o.tp, "Inference: tensor parallel (default: smallest that fits in the NVLink domain)");
  app.add_option("--ep", o.ep, "Inference: expert parallel")->capture_default_str();
  app.add_option("--pp", o.pp, "Inference: pipeline stages")->capture_default_str();
  app.add_option("--reserve-gb", o.reserve_gb,
                 "CUDA context, communication buffers, allocator slack per GPU, GB (default: training 5; "
                 "--inference the serving engine's 1, as infer)")
      ->capture_default_str();
}

int memory(const Catalog& catalog, MemoryRequest o, Output& output) {
  if (o.given("--reserve-gb") && !(std::isfinite(o.reserve_gb) && o.reserve_gb >= 0 && o.reserve_gb <= 10000))
    throw InputError("--reserve-gb", fmt::format("must be from 0 to 10000 GB, got {}", o.reserve_gb));
  const ModelArch m = resolve_model(o.model, "--model");
  const MemoryTarget hw = resolve_memory_target(catalog, o);
  if (o.inference)
    refuse_ignored_options(o,
                           {"--method", "--lora-rank", "--lora-targets", "--lora-optimizer-bits", "--qlora-kernel",
                            "--kernels"},
                           "is a training option (leave out --inference)");
  return o.inference ? run_inference(o, output, m, hw) : run_training(o, output, m, hw);
}


}  // namespace gpuplan::api
