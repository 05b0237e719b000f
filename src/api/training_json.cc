#include "api/training_json.h"

#include "api/finetune_options.h"

#include <fmt/format.h>

#include "api/text.h"
#include "catalog/error_band.h"
#include "core/error.h"
#include "physics/compute.h"
#include "training/default_batch.h"
#include "core/embedded_data.h"
#include "core/yaml_reader.h"
#include "core/yaml_tree.h"

namespace gpuplan::api {

nlohmann::json breakdown_json(const StepBreakdown& s) {
  return {{"gemm_s", s.gemm_s},           {"attention_s", s.attention_s}, {"memory_bound_s", s.memory_bound_s},
          {"recompute_s", s.recompute_s}, {"offload_s", s.offload_s},     {"tp_comm_s", s.tp_comm_s},     {"cp_comm_s", s.cp_comm_s},
          {"ep_comm_s", s.ep_comm_s},     {"pp_comm_s", s.pp_comm_s},     {"dp_comm_s", s.dp_comm_s},
          {"bubble_s", s.bubble_s},       {"optimizer_s", s.optimizer_s}, {"total_s", s.total_s()}};
}

nlohmann::json memory_json(const TrainingMemory& m) {
  return {{"weights_bytes", m.weights_bytes},     {"gradients_bytes", m.gradients_bytes},
          {"optimizer_bytes", m.optimizer_bytes}, {"activations_bytes", m.activations_bytes},
          {"reserve_bytes", m.reserve_bytes},     {"total_bytes", m.total_bytes},
          {"capacity_bytes", m.capacity_bytes},   {"fits", m.fits},
          {"headroom_bytes", m.headroom_bytes},   {"stage", m.stage_role},
          {"host_bytes_per_gpu", m.host_bytes_per_gpu},
          {"host_capacity_bytes_per_gpu", m.host_capacity_bytes_per_gpu},
          {"host_offload_bytes", m.host_offload_bytes},
          {"fits_host", m.fits_host}};
}

nlohmann::json training_json(const ModelArch& model, const Hardware& hw, const TrainingPlan& plan,
                             const TrainingWorkload& w, const TrainingResult& r) {
  nlohmann::json j = {{"model", model.name},
          {"system", hw.system_name},
          {"accelerator", hw.accelerator.name},
          {"num_gpus", w.num_gpus},
          {"global_batch", w.global_batch},
          {"seq_len", w.seq_len},
          {"precision", std::string(to_string(w.precision))},
          {"plan", {{"tp", plan.tp}, {"pp", plan.pp}, {"vp", plan.vp}, {"cp", plan.cp},
                    {"cp_kind", std::string(to_string(plan.cp_kind))}, {"ep", plan.ep},
                    {"etp", plan.etp}, {"dp", r.dp}, {"mbs", plan.mbs},
                    {"recompute", std::string(to_string(plan.recompute))}, {"zero", plan.zero},
                    {"sequence_parallel", plan.sequence_parallel}}},
          {"microbatches", r.microbatches},
          {"step_time_s", r.step_time_s},
          {"tokens_per_s", r.tokens_per_s},
          {"tokens_per_s_per_gpu", r.tokens_per_s_per_gpu},
          {"model_tflops_per_gpu", r.model_tflops_per_gpu},
          {"model_flops_per_token_6n", r.model_flops_per_token_6n},
          {"model_flops_per_token_attn", r.model_flops_per_token_attn},
          {"model_flops_per_token_noncausal", r.model_flops_per_token_noncausal},
          {"mfu", {{"6n", r.mfu_6n}, {"with_attention", r.mfu_attn}, {"with_noncausal_attention", r.mfu_noncausal},
                   {"6n_vs_bf16_peak", r.mfu_6n_bf16}, {"with_attention_vs_bf16_peak", r.mfu_attn_bf16},
                   {"with_noncausal_attention_vs_bf16_peak", r.mfu_noncausal_bf16}}},
          {"breakdown", api::breakdown_json(r.parts)},
          {"memory", api::memory_json(r.memory)}};
  if (finetune_stated(w.finetune)) j["finetune"] = finetune_json(model, w.finetune);  // LoRA, QLoRA, kernels, loss
  return j;
}

void throw_plan_violations(const std::vector<Violation>& violations) {
  std::string msg, field;
  for (const auto& v : violations) {
    msg += (msg.empty() ? "" : "; ") + v.message;
    if (field.empty()) field = v.subject == "plan.dp" ? "--gpus and --plan dp" : v.subject == "plan" ? "--plan" : "--" + v.subject;
  }
  throw InputError(field.empty() ? "--plan" : field, msg);
}

void require_training_precision(const Hardware& hw, Precision p, const std::string& field) {
  if (const std::string why = training_refusal(p); !why.empty()) throw InputError(field, why);
  if (const std::string why = unsupported_precision(hw.accelerator, p); !why.empty())
    throw InputError(field, why + "; train in one of those formats");
}

std::string does_not_fit_line(const TrainingMemory& m) {
  if (!m.fits_host && m.total_bytes <= m.capacity_bytes)
    return fmt::format("DOES NOT FIT: the plan needs {} of host memory per GPU, its share of the node's DRAM is {}, {} "
                       "short; the times below are what it would run at with the memory it lacks",
                       human_bytes(m.host_bytes_per_gpu), human_bytes(m.host_capacity_bytes_per_gpu),
                       human_bytes(m.host_bytes_per_gpu - m.host_capacity_bytes_per_gpu));
  return fmt::format("DOES NOT FIT: the plan needs {} per GPU ({} stage, with a {} reserve) of the {} the GPU "
                     "exposes, {} short; the times below are what it would run at with the memory it lacks",
                     human_bytes(m.total_bytes), m.stage_role, human_bytes(m.reserve_bytes),
                     human_bytes(m.capacity_bytes), human_bytes(m.total_bytes - m.capacity_bytes));
}

nlohmann::json does_not_fit_status(const TrainingMemory& m) {
  return {{"code", "memory.does_not_fit"}, {"needed_bytes", m.total_bytes}, {"capacity_bytes", m.capacity_bytes},
          {"short_bytes", m.total_bytes - m.capacity_bytes}, {"message", does_not_fit_line(m)}};
}

int report_no_plan_fits(Output& out, const std::string& kind, const ModelArch& model, const Hardware& hw,
                        const TrainingWorkload& w, const SearchResult& found, const FitsFrom& fits_from) {
  // Plans that divide but do not fit memory, or no plan that divides the GPUs and batch at all.
  const bool memory = found.has_closest;
  const std::string what =
      memory ? fmt::format("no plan of {} on {} x {} fits in memory at global batch {} x {} tokens", model.name,
                           w.num_gpus, hw.accelerator.name, w.global_batch, w.seq_len)
             : fmt::format("no plan of {} divides {} GPUs at global batch {} x {} tokens (each data-parallel rank "
                           "takes whole sequences, and tensor, pipeline, context and expert splits are bounded by the "
                           "model's heads, layers and experts)",
                           model.name, w.num_gpus, w.global_batch, w.seq_len);
  if (out.json()) {
    nlohmann::json j = {{"model", model.name}, {"system", hw.system_name}, {"num_gpus", w.num_gpus}, {"fits", false},
                        {"status", {{"code", memory ? "memory.no_plan_fits" : "plan.no_plan_divides"}, {"message", what}}}};
    j["enumerated"] = found.stats.enumerated;
    j["dropped_memory"] = found.stats.dropped_memory;
    if (found.has_closest)
      j["closest"] = {{"plan", to_string(found.closest_plan)}, {"memory", memory_json(found.closest_memory)}};
    j["fits_from"] = fits_from.gpus > 0 ? nlohmann::json{{"gpus", fits_from.gpus}, {"plan", to_string(fits_from.plan)}}
                                        : nlohmann::json(nullptr);
    out.emit(kind, std::move(j));
  } else {
    out.os() << "DOES NOT FIT: " << what;
    if (found.has_closest)
      out.os() << fmt::format("; closest: {} needs {} per GPU of {}", to_string(found.closest_plan),
                               human_bytes(found.closest_memory.total_bytes),
                               human_bytes(found.closest_memory.capacity_bytes));
    out.os() << "\n";
    out.os() << fits_from_line(fits_from, !memory);
  }
  return kExitDoesNotFit;
}

FitsFrom fits_from_search(const SearchResult& found, int gpus, int min_gpus,
                          const std::function<SearchResult(int)>& search) {
  return found.has_closest ? fits_from_doubling(gpus, kFitsFromMaxGpus, search)
                           : fits_from_halving(gpus, min_gpus, search);
}

std::string fits_from_line(const FitsFrom& from, bool halved) {
  if (halved)
    return from.gpus > 0 ? fmt::format("It runs on {} GPUs (--gpus halved until a plan divides and fits, the same "
                                       "global batch; or raise --global-batch): {}\n",
                                       from.gpus, to_string(from.plan))
                         : std::string("No smaller job fits either (--gpus halved, the same global batch).\n");
  if (from.gpus > 0)
    return fmt::format("It fits from {} GPUs (--gpus doubled until a plan fits, the same global batch): {}\n", from.gpus,
                       to_string(from.plan));
  return fmt::format("No job of up to {} GPUs fits either (--gpus doubled, the same global batch).\n", kFitsFromMaxGpus);
}

BatchChoice choose_global_batch(const ModelArch& model, int seq_len, long long given) {
  BatchChoice b;
  if (given > 0) {
    b.sequences = given;
    b.given = true;
    b.basis = "given (--global-batch)";
    return b;
  }
  const DefaultBatch d = default_global_batch(model, seq_len);
  b.sequences = d.sequences;
  b.basis = d.basis;
  return b;
}

std::string batch_line(const BatchChoice& b, int seq_len) {
  const double tokens = static_cast<double>(b.sequences) * seq_len;
  return fmt::format("global batch {} x {} tokens = {:.3g}M tokens ({}{})", b.sequences, seq_len, tokens / 1e6, b.basis,
                     b.given ? "" : "; --global-batch to change");
}

nlohmann::json batch_json(const BatchChoice& b, int seq_len) {
  return {{"sequences", b.sequences},
          {"tokens", static_cast<double>(b.sequences) * seq_len},
          {"source", b.given ? "given" : "default"},
          {"basis", b.basis}};
}

std::vector<std::string> fit_notes(const Hardware& hw, const ModelArch& model, const std::string& band_generation) {
  std::vector<std::string> notes;
  const std::string& gen = hw.accelerator.generation;
  if (hw.efficiency.fitted_on.empty() || hw.efficiency.generation != gen)
    notes.push_back(fmt::format("{} ({}): its training efficiencies were never fitted on measurements (prior values, "
                                "data/catalog/efficiency.yaml); the figures are a projection, not a fit",
                                hw.accelerator.name, gen));
  if (band_generation == kBandUnfitted)
    notes.push_back(fmt::format("no held-out {} training rows on {}: the wider band of unmeasured generations applies",
                                model.is_moe() ? "MoE" : "dense", gen));
  return notes;
}

namespace {

struct PublishedMfu {
  std::string generation, precision, source;
  double mfu = 0;
};

const std::vector<PublishedMfu>& published_mfu() {
  static const std::vector<PublishedMfu> all = [] {
    std::vector<PublishedMfu> out;
    constexpr const char* kFile = "training/published_mfu.yaml";
    for (const EmbeddedFile& f : embedded_data_files()) {
      if (f.path != kFile) continue;
      YamlMap top(embedded_yaml(f), kFile);
      for (YamlMap& e : top.map_list("published_mfu")) {
        PublishedMfu p;
        p.generation = e.str("generation");
        p.precision = e.str("precision");
        p.mfu = e.num_in("mfu_6n_bf16_peak", 0.01, 5.0);
        p.source = e.str("source");
        e.reject_unknown_keys();
        out.push_back(std::move(p));
      }
      top.reject_unknown_keys();
    }
    return out;
  }();
  return all;
}

}  // namespace

nlohmann::json published_mfu_check(const Hardware& hw, Precision precision, const TrainingResult& r,
                                   std::string& note) {
  const std::string prec(to_string(precision));
  nlohmann::json j = {
      {"mfu_6n_bf16_peak", r.mfu_6n_bf16}, {"best_published", nullptr}, {"source", nullptr}, {"above", false}};
  note.clear();
  for (const PublishedMfu& p : published_mfu()) {
    if (p.generation != hw.accelerator.generation || p.precision != prec) continue;
    j["best_published"] = p.mfu;
    j["source"] = p.source;
    j["above"] = r.mfu_6n_bf16 > p.mfu;
    if (r.mfu_6n_bf16 > p.mfu)
      note = fmt::format("MFU {:.1f}% (6N, against the BF16 peak) is above the best published for {} {} training, "
                         "{:.1f}% ({}): more than has been measured on this hardware",
                         100 * r.mfu_6n_bf16, hw.accelerator.generation, prec, 100 * p.mfu, p.source);
    return j;
  }
  note = fmt::format("no published {} training run on {} to compare its MFU with", prec, hw.accelerator.generation);
  return j;
}

void print_training_text(std::ostream& os, const ModelArch& model, const Hardware& hw, const TrainingPlan& plan,
                         const TrainingWorkload& w, const TrainingResult& r) {
  TrainingPlan shown = plan;
  shown.dp = r.dp;
  os << fmt::format("{} on {} x {} ({}), {} precision, global batch {} x {} tokens\n", model.display_name.empty() ? model.name : model.display_name,
                    w.num_gpus, hw.accelerator.name, hw.system_name, to_string(w.precision), w.global_batch, w.seq_len);
  if (!w.finetune.is_full())
    os << fmt::format("fine-tuning: {} (adapters only trained; the base frozen)\n", describe(w.finetune));
  else if (finetune_stated(w.finetune))
    os << fmt::format("training: {}\n", describe(w.finetune));
  os << fmt::format("plan: {}  ({} micro-batches per step)\n\n", to_string(shown), r.microbatches);
  os << fmt::format("  step time            {:>10.3f} s\n", r.step_time_s);
  os << fmt::format("  tokens/s             {:>10.0f}   ({:.0f} per GPU)\n", r.tokens_per_s, r.tokens_per_s_per_gpu);
  os << fmt::format("  model TFLOP/s/GPU    {:>10.1f}\n", r.model_tflops_per_gpu);
  os << fmt::format("  MFU (6N)             {:>9.1f}%   vs BF16 peak {:.1f}%\n", 100 * r.mfu_6n, 100 * r.mfu_6n_bf16);
  os << fmt::format("  MFU (with attention) {:>9.1f}%   vs BF16 peak {:.1f}%\n\n", 100 * r.mfu_attn, 100 * r.mfu_attn_bf16);
  const StepBreakdown& s = r.parts;
  const double t = r.step_time_s;
  os << "Where the time goes (per GPU, critical path):\n";
  auto row = [&](const char* name, double v) {
    os << fmt::format("  {:<28} {:>9.3f} s  {:>5.1f}%\n", name, v, t > 0 ? 100 * v / t : 0.0);
  };
  row("compute: GEMMs", s.gemm_s);
  row("compute: attention", s.attention_s);
  row("compute: memory-bound ops", s.memory_bound_s);
  row("compute: recompute", s.recompute_s);
  if (s.offload_s > 0) row("exposed activation offload", s.offload_s);
  row("exposed TP comm", s.tp_comm_s);
  row("exposed CP comm", s.cp_comm_s);
  row("exposed EP comm (all-to-all)", s.ep_comm_s);
  row("exposed PP comm", s.pp_comm_s);
  row("exposed DP comm", s.dp_comm_s);
  row("pipeline bubble", s.bubble_s);
  row("optimizer step", s.optimizer_s);
  os << fmt::format("  {:<28} {:>9.3f} s\n\n", "total", s.total_s());
  const TrainingMemory& m = r.memory;
  os << fmt::format("Memory per GPU ({} stage): {} of {}  {}\n", m.stage_role, human_bytes(m.total_bytes),
                    human_bytes(m.capacity_bytes), m.fits ? "fits" : "DOES NOT FIT");
  os << fmt::format("  weights {}, gradients {}, optimizer {}, activations {}, reserve {}\n", human_bytes(m.weights_bytes),
                    human_bytes(m.gradients_bytes), human_bytes(m.optimizer_bytes), human_bytes(m.activations_bytes),
                    human_bytes(m.reserve_bytes));
  os << fmt::format("Host memory per GPU: {} of {}{}  (offloaded activations {})\n", human_bytes(m.host_bytes_per_gpu),
                    m.host_capacity_bytes_per_gpu > 0 ? human_bytes(m.host_capacity_bytes_per_gpu) : std::string("unknown"),
                    m.fits_host ? "" : "  DOES NOT FIT", human_bytes(m.host_offload_bytes));
}

}  // namespace gpuplan::api
