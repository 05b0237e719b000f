// gpuplan recommend: every system (and bare accelerator) in the catalog ranked for one workload, with
// how many GPUs, time to result, cost, energy, and the reasons the models give.
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <map>

#include "api/band_json.h"
#include "api/mode_options.h"
#include "api/recommend.h"
#include "api/serving_engine.h"
#include "api/text.h"
#include "api/fabric_options.h"
#include "core/numbers.h"
#include "api/cost_options.h"
#include "compare/recommend.h"
#include "compare/smallest_purchase.h"
#include "sizing/rent_prices.h"
#include "core/error.h"
#include "model/model_registry.h"

namespace gpuplan::api {

namespace {

nlohmann::json recommendation_json(const compare::Recommendation& r, bool train) {
  nlohmann::json j = {{"name", r.name},          {"display_name", r.display_name}, {"accelerator", r.accelerator},
                      {"is_system", r.is_system}, {"feasible", r.feasible},        {"gpus", r.gpus},
                      {"units", r.units},        {"gpus_per_unit", r.gpus_per_unit}, {"plan", r.plan},
                      {"priced", r.priced},      {"price_basis", r.price_basis},   {"reasons", r.reasons},
                      {"calibrated", r.calibrated}, {"gpus_bought", r.units * r.gpus_per_unit}};
  if (!r.why_not.empty()) j["why_not"] = r.why_not;
  if (train) {
    j["wall_s"] = r.wall_s;
    j["tokens_per_s_per_gpu"] = r.tokens_per_s_per_gpu;
    j["mfu_6n"] = r.mfu;
    j["energy_j"] = r.energy_j;
    if (r.priced) j["usd"] = r.usd;
  } else {
    j["tokens_per_s_per_user"] = r.tokens_per_s_per_user;
    j["ttft_s"] = r.ttft_s;
    j["tokens_per_s"] = r.tokens_per_s;
    if (r.priced) j["usd_per_hour"] = r.usd;
  }
  if (r.priced) j["usd_per_million_tokens"] = r.usd_per_million_tokens;
  if (r.priced) j["capex_usd"] = r.capex_usd;
  j["it_kw"] = r.it_kw;
  j["joules_per_token"] = r.joules_per_token;
  return j;
}

}  // namespace

void add_recommend_options(CLI::App& app, RecommendRequest& req) {
  app.description("Rank the catalog's systems (and accelerators no system carries) for one workload: does it fit, how "
               "many GPUs and whole units, time to result, cost and energy, and why, all read off the training, "
               "inference and cost models.");
  add_cost_options(app, req.cost_opts);
  app.add_option("--model", req.model_name, "Built-in model or a Hugging Face config.json")->required();
  app.add_option("--task", req.task, "train, finetune or infer (serve: the same as infer)")->capture_default_str();
  app.add_option("--tokens", req.spec.tokens, "train/finetune: tokens to train on (default: 20 x parameters; finetune 1e9)");
  app.add_option("--seq", req.spec.seq_len, "train/finetune: sequence length (default 8192; finetune 4096)");
  app.add_option("--global-batch", req.spec.global_batch,
                 "train/finetune: sequences per step, the same at every GPU count (default: train, follows the model "
                 "as published pre-training schedules chose it, see `train --help`; finetune, 1M tokens)");
  app.add_option("--deadline-days", req.spec.deadline_days, "train/finetune: time to result (default 90; finetune 2)");
  app.add_option("--precision", req.precision, "bf16, fp8, mxfp8, nvfp4 or fp4 (default: train bf16, infer fp8)");
  app.add_option("--isl", req.spec.isl, "infer: input tokens")->capture_default_str();
  app.add_option("--osl", req.spec.osl, "infer: output tokens")->capture_default_str();
  app.add_option("--users", req.spec.users, "infer: concurrent users")->capture_default_str();
  app.add_option("--tokens-per-user-per-s,--tokens-per-user", req.tokens_per_user,
                 "infer: interactivity each user gets, tokens/s per user (the same option as in infer, compare and "
                 "cost; 0: none)")
      ->capture_default_str();
  app.add_option("--tpot-ms", req.tpot_ms, "infer: instead of --tokens-per-user-per-s, the time per output token, ms");
  app.add_flag("--rank-unfitted", req.rank_unfitted,
               "Rank generations whose efficiencies were never fitted on measurements together with fitted ones "
               "(default: after them; always marked *)");
  app.add_option("--ttft-ms", req.ttft_ms, "infer: limit on the mean time to first token, ms (default: MLPerf's Server limits scaled with the "
                                     "ISL, 2 s up to 2K input tokens; 0: none)");
  app.add_option("--budget-usd", req.spec.budget_usd, "Budget: train the whole run; infer one year of TCO (0: none)");
  app.add_option("--gpus-available", req.spec.gpus_available, "At most this many GPUs (0: no limit)");
  app.add_option("--system", req.spec.systems, "Only these systems or accelerators (repeatable or comma-separated)")
      ->delimiter(',');
  add_fabric_options(app, req.fabric_opts);
  add_finetune_options(app, req.finetune);
  app.add_option("--top", req.top, "Print only the first N (0: all)");
  app.add_option("--rent-usd-per-gpu-hour", req.rent_overrides,
                 "train/finetune: rental price SYSTEM=PRICE, USD per GPU-hour, for renting the job's GPUs against "
                 "buying the units (repeatable; default: data/cost/rent.yaml, as in size)");
  app.add_option("--price-mode", req.price_mode,
                 "train/finetune: rank by the one-off job's cost owned (the units bought, at their TCO per hour for "
                 "the wall time) or rented (the GPUs used for the wall time at the rental price); as in size")
      ->capture_default_str();
  add_long_context_options(app, req.long_context);
}

int recommend(const Catalog& catalog, RecommendRequest req, Output& output) {
  if (req.task == "train") req.spec.task = compare::Task::train;
  else if (req.task == "finetune") req.spec.task = compare::Task::finetune;
  else if (req.task == "infer" || req.task == "serve") req.spec.task = compare::Task::infer, req.task = "infer";
  else throw InputError("--task", fmt::format("must be train, finetune or infer (serve), got '{}'", req.task));
  const bool train = req.spec.task != compare::Task::infer;
  req.spec.finetune = finetune_spec(req.finetune, req);
  if (!req.spec.finetune.is_full() && req.spec.task != compare::Task::finetune)
    throw InputError("--method", "lora and qlora apply to --task finetune");
  if (!req.precision.empty()) {
    auto p = parse_precision(req.precision);
    if (!p) throw InputError("--precision", fmt::format("unknown precision '{}'; allowed: {}", req.precision, precision_names()));
    if (train)
      if (const std::string why = training_refusal(*p); !why.empty()) throw InputError("--precision", why);
    (train ? req.spec.train_precision : req.spec.infer_precision) = *p;
  }
  if (req.spec.tokens < 0 || req.spec.tokens > 1e16) throw InputError("--tokens", "must be 0 (default) to 1e16");
  if (req.spec.seq_len < 0 || req.spec.seq_len > 10'000'000) throw InputError("--seq", "must be 0 (default) to 10000000");
  if (req.spec.deadline_days < 0 || req.spec.deadline_days > 3650) throw InputError("--deadline-days", "must be 0 (default) to 3650");
  if (req.spec.isl < 1 || req.spec.isl > 10'000'000) throw InputError("--isl", "must be 1 to 10000000");
  if (req.spec.osl < 1 || req.spec.osl > 10'000'000) throw InputError("--osl", "must be 1 to 10000000");
  if (req.spec.users < 1 || req.spec.users > 100'000'000) throw InputError("--users", "must be 1 to 100000000");
  if (req.tpot_ms < 0 || req.tpot_ms > 1e6) throw InputError("--tpot-ms", "must be 0 (none) to 1000000");
  if (!(req.tokens_per_user >= 0 && req.tokens_per_user <= 1e5))
    throw InputError("--tokens-per-user-per-s", "must be 0 (none) to 100000");
  if (req.given("--tpot-ms") && req.given("--tokens-per-user-per-s"))
    throw InputError("--tpot-ms", "give --tpot-ms or --tokens-per-user-per-s, not both (one is 1000 / the other)");
  if (req.ttft_ms < 0 || req.ttft_ms > 1e7) throw InputError("--ttft-ms", "must be 0 (none) to 10000000");
  if (req.spec.budget_usd < 0) throw InputError("--budget-usd", "must be 0 (none) or positive");
  if (req.spec.gpus_available < 0 || req.spec.gpus_available > (1 << 24))
    throw InputError("--gpus-available", "must be 0 (no limit) to 16777216");
  if (req.top < 0) throw InputError("--top", "must be 0 (all) or positive");
  req.check_global_batch(req.spec.global_batch);
  if (!train && (req.spec.tokens > 0 || req.spec.seq_len > 0 || req.spec.deadline_days > 0 || req.spec.global_batch > 0))
    throw InputError("--task", "--tokens, --seq and --deadline-days apply to train and finetune, not infer");
  if (req.price_mode != "own" && req.price_mode != "rent")
    throw InputError("--price-mode", fmt::format("must be own or rent, got '{}'", req.price_mode));
  if (!train && req.given("--price-mode"))
    throw InputError("--price-mode", "applies to --task train and finetune (a one-off job owned or rented)");
  req.spec.rank_by_rent = req.price_mode == "rent";
  if (train) {
    refuse_ignored_options(req, {"--prefix-hit", "--kv-offload", "--context-attention"},
                           "applies to --task infer (serving long prompts)");
    refuse_ignored_options(req, {"--isl", "--osl", "--users", "--tokens-per-user-per-s", "--tpot-ms", "--ttft-ms"},
                           "applies to --task infer (serving)");
  } else {
    refuse_ignored_options(req, {"--loss-precision", "--kernels"}, [](std::string_view option) {
      return std::string(option == "--kernels" ? "applies to --task train and finetune (the training loop's kernels)"
                                               : "applies to --task train and finetune (the training loss)");
    });
    InferenceWorkload w;  // the same reading as infer's (api/long_context_options.h)
    apply_long_context(req.long_context, w);
    req.spec.prefix_hit = w.prefix_hit_fraction;
    req.spec.kv_offload_host = w.kv_offload_host;
    req.spec.fp8_context_attention = w.fp8_context_attention;
  }
  req.spec.tpot_s = req.given("--tpot-ms") ? req.tpot_ms / 1e3 : (req.tokens_per_user > 0 ? 1.0 / req.tokens_per_user : 0.0);
  req.spec.unfitted_last = !req.rank_unfitted;
  req.spec.ttft_s = req.given("--ttft-ms") ? req.ttft_ms / 1e3 : -1;  // not given: the default by ISL
  for (const auto& s : req.spec.systems)
    if (!catalog.find_system(s) && !catalog.find_accelerator(s)) catalog.system(s, "--system");  // names the error
  const cost::CostProfile profile = load_cost_profile(req.cost_opts);
  const ModelArch m = resolve_model(req.model_name, "--model");
  if (!train) check_long_context_model(req.long_context, m);
  const bool tty = !output.json() && output.progress && output.notes;
  const auto progress = [&](std::size_t i, std::size_t n) {
    if (tty) *output.notes << fmt::format("\r  evaluated {}/{} candidates", i, n) << (i == n ? "\r\033[K" : "") << std::flush;
  };
  req.spec.fabric_oversubscription = parse_oversubscription(req.fabric_opts.oversubscription, "--fabric-oversubscription");
  req.spec.fabric_rail_only = parse_fabric_topology(req.fabric_opts.topology) == fabric::Topology::rail_only;
  req.spec.mtp_accept = catalog_mtp_accept(catalog);
  if (!train && !req.rent_overrides.empty())
    throw InputError("--rent-usd-per-gpu-hour", "applies to --task train and finetune (a one-off job rented or bought)");
  const auto rents = train ? sizing::rent_prices(catalog, req.rent_overrides, "--rent-usd-per-gpu-hour")
                           : std::map<std::string, sizing::RentPrice>{};
  for (const auto& [name, p] : rents) req.spec.rent_usd_per_gpu_hour[name] = p.usd_per_gpu_hour;
  const compare::RecommendResult res = compare::recommend(catalog, m, req.spec, profile, progress);
  // A one-off job rented: the GPUs it uses for its wall time at the system's rental price.
  auto rent_of = [&](const compare::Recommendation& r) -> const sizing::RentPrice* {
    if (!train || !r.feasible || !r.is_system) return nullptr;
    const auto it = rents.find(r.name);
    return it == rents.end() ? nullptr : &it->second;
  };
  auto rent_usd = [&](const compare::Recommendation& r, const sizing::RentPrice&) { return r.rent_usd; };
  const std::size_t n = req.top > 0 ? std::min<std::size_t>(static_cast<std::size_t>(req.top), res.ranked.size())
                                : res.ranked.size();
  const std::optional<std::size_t> smallest = compare::smallest_purchase(res);  // shown even past --top
  // Each candidate's figure with its error band (the throughput's band; $/token and time are its
  // reciprocal), and whether it is within the model's error of the candidate ranked above it (the band of
  // their ratio holds 1).
  std::vector<BandedFigure> figure(res.ranked.size());
  std::vector<int> overlaps_rank(res.ranked.size(), 0);
  for (std::size_t i = 0; i < res.ranked.size(); ++i) {
    const auto& r = res.ranked[i];
    if (!r.feasible) continue;
    const Accelerator* acc = catalog.find_accelerator(r.accelerator);
    const std::string gen = acc ? acc->generation : std::string(kBandUnfitted);
    const std::string_view kind = train ? training_band_kind(m.is_moe())
                                        : serving_band_kind(r.disaggregated, ServingFigure::throughput);
    // Widened where the question (precision asked, the GPUs chosen, the model) is off the band's ground.
    // recommend takes no --engine: a serving question states none, so no engine widens it.
    BandQuestion q = band_question(train ? res.spec.train_precision : res.spec.infer_precision, m, r.gpus);
    q.accelerator = r.accelerator;
    const ErrorBand eb = band_for(catalog.error_bands(), kind, gen, q);
    // The ranked figure (the job's cost, or the cost per hour of serving) where it has one.
    const double ranked = compare::rank_figure(res.spec, r);
    figure[i] = ranked > 0 ? with_band(ranked, eb, true) : with_band(r.tokens_per_s_per_gpu, eb);
    const auto has_figure = [&](const compare::Recommendation& x) { return compare::rank_figure(res.spec, x) > 0; };
    for (std::size_t k = i; k-- > 0;)
      if (res.ranked[k].feasible && has_figure(res.ranked[k]) == has_figure(r)) {
        // Within the error where the ratio of the two figures, with the two systems' errors correlated as
        // the bands' pairs measured, may be 1 (compare's ratio band).
        const BandedFigure ratio = ratio_band(figure[i], figure[k], catalog.band_correlation());
        if (ratio.low <= 1 && ratio.high >= 1) overlaps_rank[i] = static_cast<int>(k) + 1;
        break;
      }
  }
  if (output.json()) {
    nlohmann::json arr = nlohmann::json::array();
    for (std::size_t i = 0; i < n; ++i) {
      nlohmann::json j = recommendation_json(res.ranked[i], train);
      if (const sizing::RentPrice* p = rent_of(res.ranked[i])) {
        j["rent_usd"] = rent_usd(res.ranked[i], *p);
        j["rent_usd_per_gpu_hour"] = p->usd_per_gpu_hour;
        j["rent_source"] = p->source;
      }
      j["rank"] = i + 1;
      if (train && compare::rank_figure(res.spec, res.ranked[i]) > 0)
        j["job_usd"] = compare::rank_figure(res.spec, res.ranked[i]);  // the ranked figure (rank_basis)
      if (res.ranked[i].feasible) {
        j["band"] = band_json(figure[i]);
        j["band"]["figure"] = compare::rank_figure(res.spec, res.ranked[i]) > 0
                                  ? (train ? "job_usd" : "usd_per_hour")
                                  : "tokens_per_s_per_gpu";
        if (!train) j["band"]["basis"]["engine"] = kNoEngineStated;
        j["within_error_of_rank"] = overlaps_rank[i] > 0 ? nlohmann::json(overlaps_rank[i]) : nlohmann::json();
      }
      arr.push_back(j);
    }
    const auto& s = res.spec;
    nlohmann::json spec_j = {{"task", req.task}, {"model", m.name}, {"budget_usd", s.budget_usd},
                             {"gpus_available", s.gpus_available}};
    if (train) {
      spec_j.update({{"tokens", s.tokens}, {"seq_len", s.seq_len}, {"tokens_per_step", s.tokens_per_step},
                     {"global_batch", s.global_batch}, {"global_batch_basis", s.global_batch_basis},
                     {"price_mode", req.price_mode},
                     {"deadline_days", s.deadline_days}, {"precision", std::string(to_string(s.train_precision))}});
      if (!s.finetune.is_full()) spec_j["finetune"] = finetune_json(m, s.finetune);
    } else {
      spec_j.update({{"isl", s.isl}, {"osl", s.osl}, {"users", s.users}, {"tpot_s", s.tpot_s},
                     {"ttft_limit_s", resolve_ttft_limit_s(s.ttft_s, s.isl)},
                     {"ttft_basis", ttft_limit_basis(s.ttft_s, s.isl)},
                     {"precision", std::string(to_string(s.infer_precision))},
                     {"long_context", long_context_json(req.long_context)}});
    }
    nlohmann::json smallest_j;  // null: no feasible priced system
    if (smallest) {
      const auto& r = res.ranked[*smallest];
      smallest_j = {{"rank", *smallest + 1}, {"system", r.name}, {"units", r.units},
                    {"gpus", r.units * r.gpus_per_unit}, {"capex_usd", r.capex_usd}, {"it_kw", r.it_kw}};
    }
    output.emit("recommend", {{"spec", spec_j}, {"rank_basis", compare::rank_basis(s)},
                              {"rank_basis_text", compare::rank_basis_text(s)}, {"ranked", arr},
                              {"smallest_purchase", smallest_j}, {"cost_profile", cost_profile_json(profile)}});
    return kExitOk;
  }
  const auto& s = res.spec;
  if (train)
    output.os() << fmt::format("{} {}: {}, seq {}, global batch {} ({:.3g}M tokens), {}, deadline {:g} days{}{}\n"
                               "  batch: {}\n",
                             req.task, m.name, count_text(s.tokens, "tokens"), s.seq_len, s.global_batch,
                             s.tokens_per_step / 1e6, to_string(s.train_precision), s.deadline_days,
                             s.budget_usd > 0 ? ", budget " + usd_text(s.budget_usd) : "",
                             s.finetune.is_full() ? "" : ", " + describe(s.finetune), s.global_batch_basis);
  else
    output.os() << fmt::format("serve {}: {} users, ISL/OSL {}/{}{}, {}{}{}\n", m.name, s.users, s.isl, s.osl,
                             long_context_text(req.long_context), to_string(s.infer_precision),
                             s.tpot_s > 0 ? fmt::format(", {:g} ms per token ({:.0f} tokens/s per user)",
                                                        s.tpot_s * 1e3, 1 / s.tpot_s) : "",
                             resolve_ttft_limit_s(s.ttft_s, s.isl) > 0
                                 ? fmt::format(", mean TTFT within {:.3g} s ({})", resolve_ttft_limit_s(s.ttft_s, s.isl),
                                               ttft_limit_basis(s.ttft_s, s.isl))
                                 : ", no TTFT limit");
  output.os() << "  " << compare::rank_basis_text(s) << "\n";
  if (smallest) {
    const auto& r = res.ranked[*smallest];
    output.os() << fmt::format("  smallest purchase that {}: #{} {} x {} ({} GPUs), capex {}, {:.0f} kW IT\n",
                               train ? "meets the deadline" : "serves the users within the limits", *smallest + 1,
                               r.units, r.name, r.units * r.gpus_per_unit, usd_text(r.capex_usd), r.it_kw);
  }
  output.os() << "\n";
  for (std::size_t i = 0; i < n; ++i) {
    const auto& r = res.ranked[i];
    std::string head = fmt::format("#{:<2} {:<16}", i + 1, r.name + (r.calibrated ? "" : "*"));
    if (!r.feasible) {
      output.os() << head << fmt::format(" not suitable: {}\n", r.why_not.empty() ? "see reasons" : r.why_not);
      continue;
    }
    std::string costs = r.priced ? fmt::format("${:.3f}/M tokens", r.usd_per_million_tokens) : "no price";
    const std::string energy = r.joules_per_token > 0 ? fmt::format("{:.2f} J/token", r.joules_per_token) : "no power figure";
    const double job = compare::rank_figure(s, r);
    if (train)
      output.os() << head << fmt::format(" {} GPUs ({} x {}), {:.1f} days, job {}, {}, {}   {}\n", r.gpus, r.units,
                                       r.gpus_per_unit, r.wall_s / 86400,
                                       job > 0 ? usd_text(job) + (s.rank_by_rent ? " rented" : " owned")
                                               : std::string(s.rank_by_rent ? "no rental price" : "no price"),
                                       costs, energy, r.plan);
    else
      output.os() << head << fmt::format(" {}{} uses {} GPUs of {} bought ({} x {}), {:.0f} tokens/s/user, TTFT {:.2f} s, "
                                       "{}, {}   {}\n",
                                       r.priced ? usd_text(r.usd) + "/h" : "no price", "",
                                       r.gpus, r.units * r.gpus_per_unit, r.units, r.gpus_per_unit,
                                       r.tokens_per_s_per_user, r.ttft_s, costs, energy, r.plan);
    output.os() << fmt::format("      {} {}{}\n",
                             job > 0 ? (train ? "job $" : "$/h") : "tokens/s/GPU", band_text(figure[i]),
                             overlaps_rank[i] > 0
                                 ? fmt::format("; within the model's error of #{}", overlaps_rank[i])
                                 : "");
    if (r.is_system)
      output.os() << fmt::format("      buys {} x {} ({} GPUs): capex {}, {:.0f} kW IT at full load\n", r.units, r.name,
                                 r.units * r.gpus_per_unit, r.priced ? usd_text(r.capex_usd) : "no price", r.it_kw);
    if (const sizing::RentPrice* p = rent_of(r))
      output.os() << fmt::format("      or rents {} GPUs for {}: {} at ${:.2f}/GPU-h ({}){}\n", r.gpus,
                                 r.wall_s >= 86400 ? fmt::format("{:.1f} days", r.wall_s / 86400)
                                                   : fmt::format("{:.1f} hours", r.wall_s / 3600),
                                 usd_text(rent_usd(r, *p)), p->usd_per_gpu_hour, p->source,
                                 r.priced ? fmt::format("; owning costs {} over the run, {} to buy", usd_text(r.usd),
                                                        usd_text(r.capex_usd))
                                          : "");
    for (const auto& why : r.reasons) output.os() << "      - " << why << "\n";
  }
  if (std::any_of(res.ranked.begin(), res.ranked.begin() + static_cast<std::ptrdiff_t>(n),
                  [](const compare::Recommendation& r) { return !r.calibrated && r.gpus > 0; }))
    output.os() << "\n* efficiencies not fitted on measurements for this generation: speeds are rough estimates.\n";
  return kExitOk;
}


}  // namespace gpuplan::api
