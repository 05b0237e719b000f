// gpuplan cost: total cost of ownership per GPU-hour by part, and with a model: $ per million tokens,
// joules per token, and the cost, energy and time of a whole training run.
#include <fmt/format.h>

#include <cmath>
#include <ostream>
#include <string>
#include <string_view>

#include "api/band_json.h"
#include "api/cost.h"
#include "api/mode_options.h"
#include "api/serving_engine.h"
#include "api/system_list.h"
#include "api/text.h"
#include "api/training_json.h"
#include "api/cost_options.h"
#include "core/numbers.h"
#include "compare/compare.h"
#include "core/error.h"
#include "deploy/goodput.h"
#include "model/model_registry.h"
#include "physics/compute.h"
#include "plan/plan.h"
#include "training/training_step.h"

namespace gpuplan::api {

namespace {

void print_tco(std::ostream& os, const cost::Tco& t, const cost::Tco* ref) {
  if (!t.priced) {
    os << fmt::format("{:<14} no price (catalog or cost profile): give systems.{}.price_usd in a profile\n",
                      t.system, t.system);
    return;
  }
  const double h = cost::kHoursPerYear * t.gpus_per_unit;
  os << fmt::format("{:<14} ${:>6.2f}/GPU-h = capital {:.2f} + electricity {:.2f} + colocation {:.2f} + "
                    "maintenance {:.2f}   capex ${:.1f}k/GPU ({}), {:.2f} kW IT/GPU",
                    t.system, t.usd_per_gpu_hour(), t.capital_usd_per_year / h, t.electricity_usd_per_year / h,
                    t.colocation_usd_per_year / h, t.maintenance_usd_per_year / h, t.capex_per_gpu_usd() / 1e3,
                    t.price_kind + " price, " + t.price_basis, t.it_w_full_per_gpu() / 1e3);
  if (t.network_basis == "fabric")
    os << fmt::format("   network ${:.1f}k/GPU from the fabric's bill of materials ({}), storage and other "
                      "${:.1f}k/GPU as a share",
                      t.network_fabric_usd / t.gpus_per_unit / 1e3, t.network_detail,
                      (t.network_storage_usd - t.network_fabric_usd) / t.gpus_per_unit / 1e3);
  else if (t.network_basis == "all-in")
    os << "   network and storage inside the published all-in capex";
  else if (t.network_basis == "share")
    os << "   network and storage as a flat share of the price";
  if (ref && ref->priced && ref->system != t.system)
    os << fmt::format("   vs {}: capex {:.2f}x, TCO {:.2f}x", ref->system,
                      t.capex_per_gpu_usd() / ref->capex_per_gpu_usd(), t.usd_per_gpu_hour() / ref->usd_per_gpu_hour());
  os << "\n";
}

// A TTFT limit in words ("3.37 s", "none").
std::string ttft_limit_text(double limit_s) { return limit_s > 0 ? fmt::format("{:.3g} s", limit_s) : "none"; }

}  // namespace

namespace {

// cost --plan: the user's plan on this system, judged as the search judges its own (it must divide
// and fit, host memory included).
compare::TrainingPick fixed_training(const ModelArch& model, const Hardware& hw, const TrainingPlan& plan,
                                     const TrainingWorkload& w) {
  compare::TrainingPick p;
  p.workload = w;
  if (std::string why = training_refusal(w.precision); !why.empty()) {
    p.why_not = why;
    return p;
  }
  if (const std::string why = unsupported_precision(hw.accelerator, w.precision); !why.empty()) {
    p.why_not = why;
    return p;
  }
  TrainingResult r = evaluate_training(model, hw, plan, w);
  if (!r.valid()) {
    p.why_not = "the plan does not divide: " + r.violations.front().message;
    return p;
  }
  if (!r.memory.fits) {
    p.why_not = does_not_fit_line(r.memory);
    return p;
  }
  p.found = true;
  p.plan = plan;
  p.plan.dp = r.dp;
  p.result = std::move(r);
  return p;
}

}  // namespace

void add_cost_options(CLI::App& app, CostRequest& req) {
  app.description("Total cost of ownership per GPU-hour (capital with depreciation and cost of capital, network and "
               "storage share, liquid-cooling facility, electricity x PUE, colocation, maintenance). With --model: $ "
               "per million tokens and joules per token for training (best plan) or serving (at an interactivity), "
               "and with --tokens the cost, energy and time of the whole run.");
  add_cost_options(app, req.cost_opts);
  add_finetune_options(app, req.finetune);
  app.add_option("--system", req.systems,
                 "System(s) to cost (repeatable or comma-separated; default: every system in the catalog)")
      ->delimiter(',');
  app.add_option("--reference", req.reference, "System the capex and TCO ratios are taken against")->capture_default_str();
  app.add_option("--model", req.model_name, "Model for $ per million tokens and joules per token");
  app.add_option("--task", req.task, "train or infer")->capture_default_str();
  app.add_option("--precision", req.precision, "bf16, fp8, mxfp8, nvfp4, fp4 or w4a16 (serving only) (default: train bf16, infer fp8, as in "
                                          "train, infer, compare and recommend)");
  app.add_option("--gpus", req.gpus, "Training: GPUs (default: 16 units' worth, at least 128)");
  app.add_option("--global-batch", req.global_batch,
                 "Training: sequences per step (default: follows the model, as published pre-training schedules "
                 "chose it; see `train --help`)");
  app.add_option("--plan", req.plan_text,
                 "Training: a fixed parallel plan, e.g. tp=8,pp=9,cp=2,mbs=1 (dp derived from --gpus); default: the "
                 "fastest plan that fits, as `search` finds it");
  app.add_option("--seq", req.seq, "Training: sequence length")->capture_default_str();
  app.add_option("--tokens", req.tokens, "Training: tokens of the whole run (e.g. 15e12)");
  app.add_option("--isl", req.isl, "Serving: input tokens")->capture_default_str();
  app.add_option("--osl", req.osl, "Serving: output tokens")->capture_default_str();
  app.add_option("--tokens-per-user-per-s,--tokens-per-user", req.tokens_per_user,
                 "Serving: interactivity, tokens/s per user (as in infer, compare and recommend)")
      ->capture_default_str();
  app.add_option("--ttft-ms", req.ttft_ms,
                 "Serving: limit on the mean TTFT, ms (default: MLPerf's Server limits scaled with the ISL, 2 s up to 2K "
                 "input tokens; 0: none)");
}

int cost(const Catalog& catalog, CostRequest req, Output& output) {

  const cost::CostProfile profile = load_cost_profile(req.cost_opts);
  if (req.task != "train" && req.task != "infer")
    throw InputError("--task", fmt::format("must be train or infer, got '{}'", req.task));
  const FinetuneSpec finetune = finetune_spec(req.finetune, req);  // checked once, before any system
  if (req.task != "train") {
    const auto why = [](std::string_view option) {
      return std::string(option == "--method"    ? "applies to --task train (full, lora or qlora fine-tuning)"
                         : option == "--kernels" ? "applies to --task train (the training loop's kernels)"
                                                 : "applies to --task train (the training loss)");
    };
    refuse_ignored_options(req, {"--method", "--loss-precision", "--kernels"}, why);
    // A request filled without the CLI records no given options: its method still says.
    if (!finetune.is_full()) throw InputError("--method", why("--method"));
  }
  // What a question without a model, or of the other task, would not read.
  if (req.model_name.empty())
    refuse_ignored_options(req,
                           {"--task", "--precision", "--gpus", "--global-batch", "--plan", "--seq", "--tokens", "--isl",
                            "--osl", "--tokens-per-user-per-s", "--ttft-ms", "--method", "--lora-rank", "--lora-targets",
                            "--lora-optimizer-bits", "--qlora-kernel", "--loss-precision", "--kernels"},
                           "needs a model (--model): without one, cost gives the TCO per GPU-hour only");
  else if (req.task == "train")
    refuse_ignored_options(req, {"--isl", "--osl", "--tokens-per-user-per-s"}, "applies to --task infer (serving)");
  else
    refuse_ignored_options(req, {"--gpus", "--global-batch", "--seq", "--tokens"},
                           "applies to --task train (a training run)");
  if (req.precision.empty()) req.precision = req.task == "train" ? "bf16" : "fp8";
  const auto prec = parse_precision(req.precision);
  if (!prec) throw InputError("--precision", fmt::format("unknown precision '{}'; allowed: {}", req.precision, precision_names()));
  if (req.task == "train")
    if (const std::string why = training_refusal(*prec); !why.empty()) throw InputError("--precision", why);
  if (req.gpus < 0 || req.gpus > (1 << 20) || (req.gpus == 0 && req.given("--gpus")))
    throw InputError("--gpus", fmt::format("must be 1 to {}, got {}", 1 << 20, req.gpus));
  if (req.seq < 1 || req.seq > 10'000'000) throw InputError("--seq", fmt::format("must be 1 to 10000000, got {}", req.seq));
  req.check_global_batch(req.global_batch);
  if (req.given("--plan") && req.task != "train") throw InputError("--plan", "is a training plan: use it with --task train");
  if (req.tokens < 0 || req.tokens > 1e16) throw InputError("--tokens", fmt::format("must be 0 to 1e16, got {}", req.tokens));
  if (req.isl < 1 || req.isl > 10'000'000) throw InputError("--isl", "must be 1 to 10000000");
  if (req.osl < 1 || req.osl > 10'000'000) throw InputError("--osl", "must be 1 to 10000000");
  if (!(req.tokens_per_user > 0 && req.tokens_per_user <= 1e5))
    throw InputError("--tokens-per-user-per-s", "must be above 0 and at most 100000");
  if (!(req.ttft_ms >= 0 && req.ttft_ms <= 1e7)) throw InputError("--ttft-ms", "must be 0 (none) to 10000000");
  if (req.given("--ttft-ms") && req.task != "infer") throw InputError("--ttft-ms", "applies to --task infer");
  const double ttft_stated_s = req.given("--ttft-ms") ? req.ttft_ms / 1e3 : -1;
  if (req.model_name.empty() && (req.tokens > 0 || req.gpus > 0))
    throw InputError("--model", "--tokens and --gpus need a model (--model)");
  req.systems = resolve_system_list(catalog, req.systems, "--system");
  const cost::Tco ref = system_tco(catalog, req.reference, profile, "--reference");
  std::optional<ModelArch> model;
  if (!req.model_name.empty()) model = resolve_model(req.model_name, "--model");
  if (req.given("--plan") && !model) throw InputError("--plan", "needs a model (--model)");
  std::optional<TrainingPlan> fixed_plan;
  if (req.given("--plan")) {
    TrainingPlan base;
    base.dp = 0;  // derived from --gpus
    fixed_plan = parse_training_plan(req.plan_text, base);
  }
  BatchChoice batch;
  if (model && req.task == "train") batch = choose_global_batch(*model, req.seq, req.given("--global-batch") ? req.global_batch : 0);
  if (model && req.task == "train" && !output.json()) output.os() << batch_line(batch, req.seq) << "\n";

  nlohmann::json rows = nlohmann::json::array();
  if (!output.json())
    output.os() << fmt::format("TCO per GPU-hour (electricity ${}/kWh, PUE {}, colocation ${}/kW-month, {} years at "
                             "{:.0f}% cost of capital; power and energy per token at {:.0f}% of full IT draw (GPUs, CPUs, network, "
                             "storage) x PUE)\n",
                             profile.electricity_usd_per_kwh, profile.pue, profile.colocation_usd_per_kw_month,
                             profile.depreciation_years, 100 * profile.cost_of_capital,
                             100 * profile.average_power_fraction);
  for (const auto& name : req.systems) {
    const auto side = compare::make_side(catalog, name, profile);
    const cost::Tco& t = side.tco;
    nlohmann::json row = tco_json(t);
    if (ref.priced && t.priced) {
      row["capex_ratio_vs_reference"] = t.capex_per_gpu_usd() / ref.capex_per_gpu_usd();
      row["tco_ratio_vs_reference"] = t.usd_per_gpu_hour() / ref.usd_per_gpu_hour();
    }
    if (!output.json()) print_tco(output.os(), t, &ref);
    if (model) {
      nlohmann::json w;
      if (req.task == "train") {
        TrainingWorkload tw;
        tw.num_gpus = req.gpus > 0 ? req.gpus : std::max(128, 16 * side.gpus_per_unit) / side.gpus_per_unit * side.gpus_per_unit;
        tw.seq_len = req.seq;
        tw.global_batch = batch.sequences;
        tw.precision = *prec;
        tw.finetune = finetune;
        const compare::TrainingPick p = fixed_plan ? fixed_training(*model, side.hw, *fixed_plan, tw)
                                                   : compare::best_training(*model, side.hw, tw);
        w = {{"task", "train"}, {"gpus", tw.num_gpus}, {"global_batch", tw.global_batch}, {"seq_len", req.seq},
             {"precision", req.precision}, {"global_batch_basis", batch_json(batch, req.seq)},
             {"plan_source", fixed_plan ? "user" : "search"}};
        if (!finetune.is_full()) w["finetune"] = finetune_json(*model, finetune);
        if (!p.found) {
          w["why_not"] = p.why_not;
          if (!output.json()) output.os() << fmt::format("               {}: {}\n", model->name, p.why_not);
        } else {
          const double run_tokens = req.tokens > 0 ? req.tokens : 1e12;
          // The run under failures (restarts on spare units), as recommend charges it: one run, one cost.
          const double goodput = deploy::training_run_goodput(
              {tw.num_gpus, std::max(1, catalog.system(name, "--system").gpus_per_node),
               std::max(1, side.hw.fabric.domain_gpus), side.gpus_per_unit, p.plan.tp * p.plan.cp * p.plan.ep},
              total_params(*model), p.result.tokens_per_s, run_tokens).charged();
          const cost::RunCost rc = cost::run_cost(t, tw.num_gpus, p.result.tokens_per_s * goodput, run_tokens);
          w["plan"] = to_string(p.plan);
          w["tokens_per_s_per_gpu"] = p.result.tokens_per_s_per_gpu;
          w["mfu_6n"] = p.result.mfu_6n;
          w["joules_per_token"] = rc.per_token.joules_per_token;
          w["it_joules_per_token"] = rc.per_token.it_joules_per_token;
          if (t.priced) w["usd_per_million_tokens"] = rc.per_token.usd_per_million_tokens;
          w["run"] = {{"tokens", run_tokens}, {"wall_s", rc.wall_s}, {"gpu_hours", rc.gpu_hours},
                      {"facility_energy_j", rc.facility_energy_j}, {"goodput", goodput}};
          if (t.priced) w["run"]["usd"] = rc.usd;
          // $/token and J/token are the reciprocal of the throughput: its band, flipped.
          const ErrorBand eb = training_band(catalog, *model, side.hw, tw);  // widened off the bands' ground
          w["band"] = {{"tokens_per_s_per_gpu", band_json(with_band(p.result.tokens_per_s_per_gpu, eb))},
                       {"joules_per_token", band_json(with_band(rc.per_token.joules_per_token, eb, true))}};
          if (t.priced)
            w["band"]["usd_per_million_tokens"] = band_json(with_band(rc.per_token.usd_per_million_tokens, eb, true));
          if (!output.json()) {
            output.os() << fmt::format("               {} training ({}, seq {}, global batch {}) on {} GPUs ({}): "
                                     "{:.0f} tokens/s/GPU, MFU {:.1f}%, {:.2f} J/token",
                                     model->name, req.precision, req.seq, tw.global_batch, tw.num_gpus, to_string(p.plan),
                                     p.result.tokens_per_s_per_gpu,
                                     100 * p.result.mfu_6n, rc.per_token.joules_per_token);
            if (t.priced) output.os() << fmt::format(", ${:.3f} per million tokens", rc.per_token.usd_per_million_tokens);
            output.os() << "\n";
            output.os() << fmt::format("               {}: {:.1f} days (goodput {:.1f}% under failures), {}, {}",
                                     count_text(run_tokens, "tokens"), rc.wall_s / 86400, 100 * goodput,
                                     count_text(rc.gpu_hours, "GPU-hours"),
                                     count_text(rc.facility_energy_j / 3.6e9, "MWh"));
            if (t.priced) output.os() << ", " << usd_text(rc.usd);
            output.os() << fmt::format("\n               throughput, cost and energy per token {}\n",
                                     band_text(with_band(p.result.tokens_per_s_per_gpu, eb)));
          }
        }
      } else {
        w = {{"task", "infer"}, {"gpus", side.gpus_per_unit}, {"isl", req.isl}, {"osl", req.osl}, {"precision", req.precision},
             {"tokens_per_s_per_user", req.tokens_per_user}};
        // A precision the chip has no tensor cores for is served as infer, size and recommend serve it:
        // weights stored narrow, math in the wider format the chip has, said in a note.
        const Accelerator& acc = side.hw.accelerator;
        if (const std::string why = serving_refusal(acc, *prec); !why.empty()) {
          w["why_not"] = why;
        } else {
          if (const std::string note = serving_fallback_note(acc, *prec); !note.empty()) w["precision_note"] = note;
          // The operating-point chooser infer, compare, recommend and site ask (inference/chooser.h): the
          // deployment and whole units with the most throughput per GPU at this speed within the TTFT limit.
          const ServingChoice ch = choose_serving(compare::serving_scenario(
              *model, side.hw, side.gpus_per_unit, *prec, req.isl, req.osl, req.tokens_per_user, 0, ttft_stated_s,
              catalog_mtp_accept(catalog)));
          const SweepPoint* pt = ch.met ? &ch.point : nullptr;
          w["gpus"] = ch.gpus;
          w["units"] = ch.units;
          w["ttft_limit_s"] = ch.ttft_limit_s;
          if (!pt) {
            w["why_not"] = ch.why_not;
          } else {
            const cost::TokenCost tc = cost::token_cost(t, 1, pt->result.tokens_per_s_per_gpu);
            w["tokens_per_s_per_gpu"] = pt->result.tokens_per_s_per_gpu;
            w["joules_per_token"] = tc.joules_per_token;
            if (t.priced) w["usd_per_million_tokens"] = tc.usd_per_million_tokens;
            const ErrorBand eb = serving_band(catalog, side.hw, pt->disaggregated, ServingFigure::throughput,
                                              band_question(*prec, *model, ch.gpus));
            w["band"] = {{"tokens_per_s_per_gpu", band_json(with_band(pt->result.tokens_per_s_per_gpu, eb))},
                         {"joules_per_token", band_json(with_band(tc.joules_per_token, eb, true))}};
            if (t.priced) w["band"]["usd_per_million_tokens"] = band_json(with_band(tc.usd_per_million_tokens, eb, true));
            w["band_text"] = band_text(with_band(pt->result.tokens_per_s_per_gpu, eb));
            w["plan"] = {{"tp", pt->parallel.tp}, {"ep", pt->parallel.ep}, {"pp", pt->parallel.pp},
                         {"attention_dp", pt->parallel.attention_dp}, {"concurrency", pt->concurrency},
                         {"kind", pt->kind()}, {"text", pt->plan()}};
            w["ttft_s"] = pt->result.ttft_s;
            w["tokens_per_s_per_user_at_point"] = pt->result.tokens_per_s_per_user;
          }
        }
        if (!output.json()) {
          if (w.contains("why_not"))
            output.os() << fmt::format("               {} serving: {}\n", model->name, w["why_not"].get<std::string>());
          else {
            output.os() << fmt::format("               {} serving ({}, ISL/OSL {}/{}) at {:g} tokens/s/user on {} GPUs "
                                     "({} unit{}; {}): {:.0f} tokens/s/GPU, TTFT {:.3g} s (limit {}), {:.2f} J/token",
                                     model->name, req.precision, req.isl, req.osl, req.tokens_per_user, w["gpus"].get<int>(),
                                     w["units"].get<int>(), w["units"].get<int>() == 1 ? "" : "s",
                                     w["plan"]["text"].get<std::string>(), w["tokens_per_s_per_gpu"].get<double>(),
                                     w["ttft_s"].get<double>(),
                                     ttft_limit_text(w["ttft_limit_s"].get<double>()), w["joules_per_token"].get<double>());
            if (t.priced)
              output.os() << fmt::format(", ${:.3f} per million tokens", w["usd_per_million_tokens"].get<double>());
            output.os() << fmt::format("\n               throughput, cost and energy per token {}\n",
                                     w["band_text"].get<std::string>());
            if (w.contains("precision_note"))
              output.os() << "               note: " << w["precision_note"].get<std::string>() << "\n";
          }
        }
      }
      row["workload"] = w;
    }
    rows.push_back(row);
  }
  if (output.json()) {
    nlohmann::json j = {{"reference", req.reference}, {"systems", rows}, {"cost_profile", cost_profile_json(profile)}};
    if (model) j["model"] = model->name;
    output.emit("cost", std::move(j));
  }
  return kExitOk;
}


}  // namespace gpuplan::api
