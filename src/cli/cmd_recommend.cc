// gpuplan recommend: every system (and bare accelerator) in the catalog ranked for one workload, with
// how many GPUs, time to result, cost, energy, and the reasons the models give.
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>

#include "cli/commands.h"
#include "cli/band_json.h"
#include "cli/common.h"
#include "cli/fabric_options.h"
#include "core/numbers.h"
#include "cli/cost_options.h"
#include "compare/recommend.h"
#include "core/error.h"
#include "model/model_registry.h"

namespace gpuplan::cli {

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
  j["joules_per_token"] = r.joules_per_token;
  return j;
}

}  // namespace

int cmd_recommend(int argc, char** argv) {
  CLI::App app{"Rank the catalog's systems (and accelerators no system carries) for one workload: does it fit, how "
               "many GPUs and whole units, time to result, cost and energy, and why, all read off the training, "
               "inference and cost models.",
               "gpuplan recommend"};
  CommonOptions common;
  add_common_options(app, common);
  CostOptions cost_opts;
  add_cost_options(app, cost_opts);
  compare::RecommendSpec spec;
  std::string model_name, task = "infer", precision;
  double tpot_ms = 0, ttft_ms = 0, tokens_per_user = 50;
  bool rank_unfitted = false;
  int top = 0;
  app.add_option("--model", model_name, "Built-in model or a Hugging Face config.json")->required();
  app.add_option("--task", task, "train, finetune or infer")->capture_default_str();
  app.add_option("--tokens", spec.tokens, "train/finetune: tokens to train on (default: 20 x parameters; finetune 1e9)");
  app.add_option("--seq", spec.seq_len, "train/finetune: sequence length (default 8192; finetune 4096)");
  app.add_option("--deadline-days", spec.deadline_days, "train/finetune: time to result (default 90; finetune 2)");
  app.add_option("--precision", precision, "bf16, fp8, mxfp8, nvfp4 or fp4 (default: train bf16, infer fp8)");
  app.add_option("--isl", spec.isl, "infer: input tokens")->capture_default_str();
  app.add_option("--osl", spec.osl, "infer: output tokens")->capture_default_str();
  app.add_option("--users", spec.users, "infer: concurrent users")->capture_default_str();
  app.add_option("--tokens-per-user-per-s,--tokens-per-user", tokens_per_user,
                 "infer: interactivity each user gets, tokens/s per user (the same option as in infer, compare and "
                 "cost; 0: none)")
      ->capture_default_str();
  app.add_option("--tpot-ms", tpot_ms, "infer: instead of --tokens-per-user-per-s, the time per output token, ms");
  app.add_flag("--rank-unfitted", rank_unfitted,
               "Rank generations whose efficiencies were never fitted on measurements together with fitted ones "
               "(default: after them; always marked *)");
  app.add_option("--ttft-ms", ttft_ms, "infer: time to first token limit, ms (0: none)");
  app.add_option("--budget-usd", spec.budget_usd, "Budget: train the whole run; infer one year of TCO (0: none)");
  app.add_option("--gpus-available", spec.gpus_available, "At most this many GPUs (0: no limit)");
  app.add_option("--system", spec.systems, "Only these systems or accelerators (repeatable)");
  FabricOptions fabric_opts;
  add_fabric_options(app, fabric_opts);
  app.add_option("--top", top, "Print only the first N (0: all)");
  if (int rc = parse_args(app, argc, argv); rc >= 0) return rc;
  return run_guarded([&] {
    if (task == "train") spec.task = compare::Task::train;
    else if (task == "finetune") spec.task = compare::Task::finetune;
    else if (task == "infer") spec.task = compare::Task::infer;
    else throw InputError("--task", fmt::format("must be train, finetune or infer, got '{}'", task));
    const bool train = spec.task != compare::Task::infer;
    if (!precision.empty()) {
      auto p = parse_precision(precision);
      if (!p) throw InputError("--precision", fmt::format("unknown precision '{}'; allowed: bf16, fp8, mxfp8, nvfp4, fp4", precision));
      (train ? spec.train_precision : spec.infer_precision) = *p;
    }
    if (spec.tokens < 0 || spec.tokens > 1e16) throw InputError("--tokens", "must be 0 (default) to 1e16");
    if (spec.seq_len < 0 || spec.seq_len > 10'000'000) throw InputError("--seq", "must be 0 (default) to 10000000");
    if (spec.deadline_days < 0 || spec.deadline_days > 3650) throw InputError("--deadline-days", "must be 0 (default) to 3650");
    if (spec.isl < 1 || spec.isl > 10'000'000) throw InputError("--isl", "must be 1 to 10000000");
    if (spec.osl < 1 || spec.osl > 10'000'000) throw InputError("--osl", "must be 1 to 10000000");
    if (spec.users < 1 || spec.users > 100'000'000) throw InputError("--users", "must be 1 to 100000000");
    if (tpot_ms < 0 || tpot_ms > 1e6) throw InputError("--tpot-ms", "must be 0 (none) to 1000000");
    if (!(tokens_per_user >= 0 && tokens_per_user <= 1e5))
      throw InputError("--tokens-per-user-per-s", "must be 0 (none) to 100000");
    if (app.count("--tpot-ms") && app.count("--tokens-per-user-per-s"))
      throw InputError("--tpot-ms", "give --tpot-ms or --tokens-per-user-per-s, not both (one is 1000 / the other)");
    if (ttft_ms < 0 || ttft_ms > 1e7) throw InputError("--ttft-ms", "must be 0 (none) to 10000000");
    if (spec.budget_usd < 0) throw InputError("--budget-usd", "must be 0 (none) or positive");
    if (spec.gpus_available < 0 || spec.gpus_available > (1 << 24))
      throw InputError("--gpus-available", "must be 0 (no limit) to 16777216");
    if (top < 0) throw InputError("--top", "must be 0 (all) or positive");
    if (!train && (spec.tokens > 0 || spec.seq_len > 0 || spec.deadline_days > 0))
      throw InputError("--task", "--tokens, --seq and --deadline-days apply to train and finetune, not infer");
    spec.tpot_s = app.count("--tpot-ms") ? tpot_ms / 1e3 : (tokens_per_user > 0 ? 1.0 / tokens_per_user : 0.0);
    spec.unfitted_last = !rank_unfitted;
    spec.ttft_s = ttft_ms / 1e3;
    const Catalog catalog = load_catalog(common);
    for (const auto& s : spec.systems)
      if (!catalog.find_system(s) && !catalog.find_accelerator(s)) catalog.system(s, "--system");  // names the error
    const cost::CostProfile profile = load_cost_profile(cost_opts);
    const ModelArch m = resolve_model(model_name, "--model");
    const bool tty = !common.json && isatty(fileno(stderr));
    const auto progress = [&](std::size_t i, std::size_t n) {
      if (tty) std::cerr << fmt::format("\r  evaluated {}/{} candidates", i, n) << (i == n ? "\r\033[K" : "") << std::flush;
    };
    spec.fabric_oversubscription = parse_oversubscription(fabric_opts.oversubscription, "--fabric-oversubscription");
    spec.fabric_rail_only = parse_fabric_topology(fabric_opts.topology) == fabric::Topology::rail_only;
    const compare::RecommendResult res = compare::recommend(catalog, m, spec, profile, progress);
    const std::size_t n = top > 0 ? std::min<std::size_t>(static_cast<std::size_t>(top), res.ranked.size())
                                  : res.ranked.size();
    // Each candidate's figure with its error band (the throughput's band; $/token and time are its
    // reciprocal), and whether it is within the model's error of the candidate ranked above it.
    std::vector<BandedFigure> figure(res.ranked.size());
    std::vector<int> overlaps_rank(res.ranked.size(), 0);
    for (std::size_t i = 0; i < res.ranked.size(); ++i) {
      const auto& r = res.ranked[i];
      if (!r.feasible) continue;
      const Accelerator* acc = catalog.find_accelerator(r.accelerator);
      const std::string gen = acc ? acc->generation : std::string(kBandUnfitted);
      const std::string_view kind = train ? training_band_kind(m.is_moe()) : serving_band_kind(false, false);
      const ErrorBand& eb = find_band(catalog.error_bands(), kind, gen);
      figure[i] = r.priced ? with_band(r.usd_per_million_tokens, eb, true) : with_band(r.tokens_per_s_per_gpu, eb);
      for (std::size_t k = i; k-- > 0;)
        if (res.ranked[k].feasible && res.ranked[k].priced == r.priced) {
          if (bands_overlap(figure[i], figure[k])) overlaps_rank[i] = static_cast<int>(k) + 1;
          break;
        }
    }
    if (common.json) {
      nlohmann::json arr = nlohmann::json::array();
      for (std::size_t i = 0; i < n; ++i) {
        nlohmann::json j = recommendation_json(res.ranked[i], train);
        j["rank"] = i + 1;
        if (res.ranked[i].feasible) {
          j["band"] = band_json(figure[i]);
          j["band"]["figure"] = res.ranked[i].priced ? "usd_per_million_tokens" : "tokens_per_s_per_gpu";
          j["within_error_of_rank"] = overlaps_rank[i] > 0 ? nlohmann::json(overlaps_rank[i]) : nlohmann::json();
        }
        arr.push_back(j);
      }
      const auto& s = res.spec;
      nlohmann::json spec_j = {{"task", task}, {"model", m.name}, {"budget_usd", s.budget_usd},
                               {"gpus_available", s.gpus_available}};
      if (train) {
        spec_j.update({{"tokens", s.tokens}, {"seq_len", s.seq_len}, {"tokens_per_step", s.tokens_per_step},
                       {"deadline_days", s.deadline_days}, {"precision", std::string(to_string(s.train_precision))}});
      } else {
        spec_j.update({{"isl", s.isl}, {"osl", s.osl}, {"users", s.users}, {"tpot_s", s.tpot_s}, {"ttft_s", s.ttft_s},
                       {"precision", std::string(to_string(s.infer_precision))}});
      }
      print_json("recommend", {{"spec", spec_j}, {"ranked", arr}, {"cost_profile", cost_profile_json(profile)}});
      return kExitOk;
    }
    const auto& s = res.spec;
    if (train)
      std::cout << fmt::format("{} {}: {}, seq {}, {}, deadline {:g} days{}\n\n", task, m.name,
                               count_text(s.tokens, "tokens"), s.seq_len, to_string(s.train_precision), s.deadline_days,
                               s.budget_usd > 0 ? ", budget " + usd_text(s.budget_usd) : "");
    else
      std::cout << fmt::format("serve {}: {} users, ISL/OSL {}/{}, {}{}{}\n\n", m.name, s.users, s.isl, s.osl,
                               to_string(s.infer_precision),
                               s.tpot_s > 0 ? fmt::format(", {:g} ms per token ({:.0f} tokens/s per user)",
                                                          s.tpot_s * 1e3, 1 / s.tpot_s) : "",
                               s.ttft_s > 0 ? fmt::format(", TTFT {:g} ms", s.ttft_s * 1e3) : "");
    for (std::size_t i = 0; i < n; ++i) {
      const auto& r = res.ranked[i];
      std::string head = fmt::format("#{:<2} {:<16}", i + 1, r.name + (r.calibrated ? "" : "*"));
      if (!r.feasible) {
        std::cout << head << fmt::format(" not suitable: {}\n", r.why_not.empty() ? "see reasons" : r.why_not);
        continue;
      }
      std::string costs = r.priced ? fmt::format("${:.3f}/M tokens", r.usd_per_million_tokens) : "no price";
      const std::string energy = r.joules_per_token > 0 ? fmt::format("{:.2f} J/token", r.joules_per_token) : "no power figure";
      if (train)
        std::cout << head << fmt::format(" {} GPUs ({} x {}), {:.1f} days, {}{}, {}   {}\n", r.gpus, r.units,
                                         r.gpus_per_unit, r.wall_s / 86400, costs,
                                         r.priced ? ", run " + usd_text(r.usd) : "", energy, r.plan);
      else
        std::cout << head << fmt::format(" {}{} uses {} GPUs of {} bought ({} x {}), {:.0f} tokens/s/user, TTFT {:.2f} s, "
                                         "{}, {}   {}\n",
                                         r.priced ? usd_text(r.usd) + "/h" : "no price", "",
                                         r.gpus, r.units * r.gpus_per_unit, r.units, r.gpus_per_unit,
                                         r.tokens_per_s_per_user, r.ttft_s, costs, energy, r.plan);
      std::cout << fmt::format("      {} {}{}\n", r.priced ? "$/M tokens" : "tokens/s/GPU", band_text(figure[i]),
                               overlaps_rank[i] > 0
                                   ? fmt::format("; within the model's error of #{}", overlaps_rank[i])
                                   : "");
      for (const auto& why : r.reasons) std::cout << "      - " << why << "\n";
    }
    if (std::any_of(res.ranked.begin(), res.ranked.begin() + static_cast<std::ptrdiff_t>(n),
                    [](const compare::Recommendation& r) { return !r.calibrated && r.gpus > 0; }))
      std::cout << "\n* efficiencies not fitted on measurements for this generation: speeds are rough estimates.\n";
    return kExitOk;
  });
}

}  // namespace gpuplan::cli
