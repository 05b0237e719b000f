// `gpuplan infer` with a target speed and the deployment left open: the operating-point chooser.
#include "api/infer_chosen.h"

#include <fmt/format.h>

#include "api/band_json.h"
#include "api/infer_json.h"
#include "inference/chooser.h"

namespace gpuplan::api {

namespace {

std::string limit_text(double s) { return s > 0 ? fmt::format("{:.3g} s", s) : std::string("none"); }

}  // namespace

int infer_chosen(const Catalog& catalog, const InferRequest& req, const ModelArch& model, const Hardware& hw,
                 const InferenceWorkload& w, const ChosenLimits& limits, Output& output) {
  ServingScenario s = infer_scenario(catalog, req, model, hw, w);
  s.traffic.tokens_per_s_per_user = req.tokens_per_user;
  s.traffic.tpot_limit_s = req.tpot_ms > 0 ? req.tpot_ms / 1e3 : 0;
  s.traffic.ttft_limit_s = resolve_ttft_limit_s(limits.ttft_stated_s, req.isl);
  s.traffic.ttft_basis = ttft_limit_basis(limits.ttft_stated_s, req.isl);
  ChooserOptions o;
  o.gpus = req.gpus;
  o.max_pp = req.max_pp;
  o.max_pp_beyond_one = req.given("--max-pp") ? req.max_pp : 8;
  o.explore_moe = !req.aggregated_only;
  const ServingChoice ch = choose_serving(s, o);
  const double target = s.traffic.min_tokens_per_s_per_user();
  const std::string name = model.display_name.empty() ? model.name : model.display_name;
  // The GPUs the deployment runs on, and (no --gpus) the whole units they take.
  const std::string where =
      req.gpus > 0 ? (ch.met && ch.gpus < req.gpus ? fmt::format("{} of the {} GPUs given", ch.gpus, req.gpus)
                                                   : fmt::format("{} GPUs", ch.gpus))
                   : fmt::format("{} GPUs ({} unit{} of {}{})", ch.gpus, ch.units, ch.units == 1 ? "" : "s",
                                 ch.unit_gpus,
                                 ch.units * ch.unit_gpus > ch.gpus
                                     ? fmt::format(": {} GPUs bought", ch.units * ch.unit_gpus)
                                     : std::string());
  if (!ch.met) {
    if (output.json()) {
      output.emit("infer", {{"mode", "point"}, {"met", false}, {"why_not", ch.why_not}, {"model", model.name},
                            {"system", hw.system_name}, {"gpus", ch.gpus}, {"isl", req.isl}, {"osl", req.osl},
                            {"precision", std::string(to_string(w.weight_precision))},
                            {"target_tokens_per_s_per_user", target}, {"ttft_limit_s", ch.ttft_limit_s},
                            {"ttft_basis", s.traffic.ttft_basis},
                            {"fastest_tokens_per_s_per_user", ch.fastest_tokens_per_s_per_user},
                            {"deployments_considered", ch.deployments}, {"evaluated", ch.evaluated}});
    } else {
      output.os() << fmt::format("{} on {} ({}), {}, ISL {} / OSL {}: no deployment meets {:g} tokens/s per user "
                                 "within the TTFT limit ({}; {})\n",
                                 name, hw.accelerator.name, hw.system_name, to_string(w.weight_precision), req.isl,
                                 req.osl, target, limit_text(ch.ttft_limit_s), s.traffic.ttft_basis);
      output.os() << "  " << ch.why_not << "\n";
      output.os() << fmt::format("  {} deployments considered, {} points evaluated; lower the target, give more "
                                 "--gpus or a looser --ttft-ms\n", ch.deployments, ch.evaluated);
    }
    return kExitDoesNotFit;
  }
  const SweepPoint& p = ch.point;
  const InferenceResult& r = p.result;
  const std::string chosen = fmt::format(
      "chosen: {} {} (the most tokens/s per GPU of {} deployments{}, at the largest load meeting {:g} tokens/s per "
      "user within the TTFT limit; fix it with --tp/--ep/--attention-dp{})",
      p.kind(), p.plan(), ch.deployments, req.gpus > 0 ? "" : " on 1 to 8 units", target,
      req.gpus > 0 ? "" : ", or the GPUs with --gpus");
  if (output.json()) {
    auto j = infer_result_json(r);
    auto& obj = j.get_ref<nlohmann::json::object_t&>();
    obj.emplace("mode", "point");
    obj.emplace("met", true);
    obj.emplace("model", model.name);
    obj.emplace("system", hw.system_name);
    obj.emplace("accelerator", hw.accelerator.name);
    obj.emplace("gpus", ch.gpus);
    obj.emplace("units", req.gpus > 0 ? nlohmann::json(nullptr) : nlohmann::json(ch.units));
    obj.emplace("unit_gpus", ch.unit_gpus);
    obj.emplace("isl", req.isl);
    obj.emplace("osl", req.osl);
    obj.emplace("precision", to_string(w.weight_precision));
    obj.emplace("kv_bytes_per_element", w.kv_bytes_per_element);
    obj.emplace("max_batch_size", w.max_batch_size);
    obj.emplace("math_format", limits.math);
    obj.emplace("precision_note", limits.fallback);
    obj.emplace("fp8_gemm_backend", w.fp8_block_gemm_triton ? "triton" : "auto");
    obj.emplace("moe_kernel_share", w.moe_kernel_share);
    obj.emplace("arrival", to_string(w.arrival));
    obj.emplace("parallel", infer_parallel_json(p.parallel));
    obj.emplace("parallel_chosen", chosen);
    obj.emplace("kind", p.kind());
    obj.emplace("plan", p.plan());
    if (p.disaggregated) {
      obj.emplace("prefill_parallel", infer_parallel_json(p.disagg.prefill));
      obj.emplace("decode_parallel", infer_parallel_json(p.disagg.decode));
    }
    obj.emplace("mtp_draft_tokens", p.mtp_draft_tokens);
    obj.emplace("target_tokens_per_s_per_user", target);
    obj.emplace("ttft_limit_s", ch.ttft_limit_s);
    obj.emplace("ttft_basis", s.traffic.ttft_basis);
    obj.emplace("fewest_units", ch.fewest_units > 0 ? nlohmann::json{{"units", ch.fewest_units},
                                                                      {"tokens_per_s_per_gpu", ch.fewest_units_tokens_per_s_per_gpu}}
                                                    : nlohmann::json(nullptr));
    obj.emplace("deployments_considered", ch.deployments);
    obj.emplace("evaluated", ch.evaluated);
    obj.emplace("band", serving_bands_json(catalog, hw, r, p.disaggregated, serving_question(s, ch.gpus)));
    output.emit("infer", std::move(j));
    return kExitOk;
  }
  output.os() << fmt::format("{} on {} x {} ({}), {}, ISL {} / OSL {}, {} arrivals\n", name, ch.gpus,
                             hw.accelerator.name, hw.system_name, to_string(w.weight_precision), req.isl, req.osl,
                             to_string(w.arrival));
  if (!limits.fallback.empty()) output.os() << "Note: " << limits.fallback << "\n";
  output.os() << "  " << chosen << "\n";
  std::string units_note;
  if (req.gpus <= 0 && ch.units > 1)
    units_note = ch.fewest_units < ch.units
                     ? fmt::format(": more units for more tokens/s per GPU ({} on {} unit{})",
                                   fmt::format("{:.1f}", ch.fewest_units_tokens_per_s_per_gpu), ch.fewest_units,
                                   ch.fewest_units == 1 ? "" : "s")
                     : ": the best deployment needs more than one unit";
  output.os() << fmt::format("  on {}{}\n", where, units_note);
  output.os() << fmt::format("  TTFT limit {} ({})\n", limit_text(ch.ttft_limit_s), s.traffic.ttft_basis);
  if (p.mtp_draft_tokens > 0)
    output.os() << fmt::format("  MTP: {} draft tokens, {:.2f} tokens per step\n", p.mtp_draft_tokens, r.tokens_per_step);
  output.os() << fmt::format("  concurrency        {:>10}   ({} holds {})\n", r.concurrency,
                             p.disaggregated ? "the decode pool" : "the KV cache", r.max_concurrency);
  output.os() << fmt::format("  KV per user        {:>10.2f} GB per GPU ({} tokens of context)\n",
                             r.memory.kv_bytes_per_sequence / 1e9, kv_held_tokens(w));
  output.os() << fmt::format("  tokens/s total     {:>10.0f}\n", r.tokens_per_s_total);
  output.os() << fmt::format("  tokens/s per GPU   {:>10.1f}   (TTFT {:.0f} ms)\n", r.tokens_per_s_per_gpu,
                             r.ttft_s * 1e3);
  output.os() << fmt::format("  tokens/s per user  {:>10.1f}   (target {:g})\n", r.tokens_per_s_per_user, target);
  output.os() << fmt::format("  TTFT               {:>10.1f} ms\n", r.ttft_s * 1e3);
  output.os() << fmt::format("  TPOT               {:>10.2f} ms\n", r.tpot_s * 1e3);
  output.os() << fmt::format("  end-to-end         {:>10.2f} s\n", r.e2e_latency_s);
  if (p.disaggregated) output.os() << fmt::format("  prefill pool load  {:>10.0f} %\n", r.prefill_utilization * 100);
  output.os() << decode_step_text(p.disaggregated ? "Decode-pool step" : "Decode step", r.decode_step);
  output.os() << serving_bands_text(catalog, hw, r, p.disaggregated, serving_question(s, ch.gpus));
  return kExitOk;
}

}  // namespace gpuplan::api
