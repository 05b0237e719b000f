#include "api/infer_recipe.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "core/error.h"
#include "recipe/recipe_catalog.h"
#include "recipe/recipe_dates.h"
#include "recipe/recipe_keys.h"

namespace gpuplan::api {

namespace {

// The prefill-limit rows in force on `date` for the recipe's prefill worker (any attention-DP: a
// deployment row does not state the prefill workers'); several with different attention-DP: none.
std::vector<const Recipe*> prefill_limits_for(const Recipe& d, const std::string& date) {
  std::vector<const Recipe*> out;
  for (const Recipe& r : builtin_recipes())
    if (r.kind == RecipeKind::prefill_limits && r.model == d.model && r.engine == d.engine && r.system == d.system &&
        r.precision == d.precision && (r.isl == 0 || r.isl == d.isl) &&
        (r.prefill.gpus_per_worker == 0 || r.prefill.gpus_per_worker == d.prefill.gpus_per_worker) &&
        (d.decode.attention_dp < 0 || recipe_key_matches(r.decode.attention_dp, d.decode.attention_dp == 1)) &&
        recipe_key_matches(r.mtp, d.mtp_draft_tokens > 0) && r.in_force(date))
      out.push_back(&r);
  return out;
}

// The launch row in force on `date` for the recipe's deployment (how its launch script turned the sweep
// config's workers into server flags: MoRI runs until the scripts passed the config's values), or nullptr.
const Recipe* launch_for(const Recipe& d, const std::string& date) {
  for (const Recipe& r : builtin_recipes())
    if (r.kind == RecipeKind::launch && r.model == d.model && r.engine == d.engine && r.system == d.system &&
        r.precision == d.precision && r.in_force(date))
      return &r;
  return nullptr;
}

// Why a row that is no whole deployment cannot be evaluated alone, and what to run instead.
std::string not_a_deployment(const Recipe& r) {
  std::string what;
  switch (r.kind) {
    case RecipeKind::launch:
      what = fmt::format("it says how the launch script turned a sweep config's workers into server flags ({}{}) "
                         "from {} to {}, and states no pools; infer applies it to the {} deployment and MTP "
                         "recipes in force on their date",
                         r.tp_is_worker ? "TP over the whole worker" : "the config's TP",
                         r.ep_is_worker ? ", EP over the whole worker" : ", the config's EP", r.valid_from,
                         r.valid_to.empty() ? "now" : r.valid_to, r.engine);
      break;
    case RecipeKind::decode_limits:
    case RecipeKind::prefill_limits:
      what = fmt::format("it is a {} worker's limits for a deployment shape, not the pools; infer applies it to the {} "
                         "deployment and MTP recipes in force on their date",
                         r.kind == RecipeKind::decode_limits ? "decode" : "prefill", r.engine);
      break;
    case RecipeKind::script:
      what = "it is what a single-node launch script passes beyond the sweep config, not a deployment";
      break;
    default:
      what = "it does not state a model, a system, ISL/OSL and both pools' workers and widths";
  }
  return fmt::format("'{}' is a {} row, not a whole deployment: {}. `gpuplan recipe list --kind deployment` (and "
                     "--kind mtp) lists those infer evaluates",
                     r.name, to_string(r.kind), what);
}

}  // namespace

AppliedRecipe apply_infer_recipe(InferRequest& req) {
  AppliedRecipe a;
  const Recipe& r = recipe_by_name(req.recipe, "--recipe");
  a.recipe = &r;
  if (!r.evaluable()) throw InputError("--recipe", not_a_deployment(r));
  if (!req.as_of.empty()) {
    // The form and a day the calendar has (2026-02-30 is none).
    if (!is_recipe_date(req.as_of) || read_row_date(req.as_of) != req.as_of)
      throw InputError("--as-of", "must be a date YYYY-MM-DD, got '" + req.as_of + "'");
    if (!r.in_force(req.as_of))
      throw InputError("--as-of", fmt::format("'{}' was in force from {} to {}; {} is outside", r.name, r.valid_from,
                                              r.valid_to.empty() ? "now" : r.valid_to, req.as_of));
  }
  a.as_of = req.as_of.empty() ? r.valid_from : req.as_of;
  // A recipe fixes the deployment: options that would choose or reshape it contradict it.
  for (const char* o : {"--sweep", "--tokens-per-user-per-s", "--tpot-ms", "--ttft-ms", "--aggregated-only", "--tp",
                        "--ep", "--gpus", "--pp", "--attention-dp", "--max-pp"})
    if (req.given(o))
      throw InputError(o, fmt::format("contradicts --recipe {}: the recipe fixes a disaggregated deployment (change "
                                      "its pools with --prefill-*/--decode-*, or drop --recipe)",
                                      r.name));
  auto set = [&](const char* option, auto& field, const auto& value) {
    const std::string v = fmt::format("{}", value);
    if (req.given(option)) {
      if (fmt::format("{}", field) != v) a.overridden.push_back(fmt::format("{} {} (recipe: {})", option, field, v));
      return;
    }
    field = value;
    a.from_recipe.push_back(fmt::format("{} {}", option, v));
  };
  auto flag = [&](const char* option, bool& field, bool value) {
    if (req.given(option)) {
      if (field != value) a.overridden.push_back(fmt::format("{} (recipe: {})", option, value ? "on" : "off"));
      return;
    }
    field = value;
    if (value) a.from_recipe.push_back(option);
  };
  set("--model", req.model_name, r.model);
  set("--system", req.system, r.system);
  set("--precision", req.precision, r.weights);
  set("--engine", req.engine, r.engine);
  set("--isl", req.isl, r.isl);
  set("--osl", req.osl, r.osl);
  req.disagg = true;
  a.from_recipe.push_back("--disagg");
  set("--prefill-gpus", req.prefill_gpus, r.prefill.workers * r.prefill.gpus_per_worker);
  set("--prefill-tp", req.prefill_tp, r.prefill.gpus_per_worker);
  set("--decode-gpus", req.decode_gpus, r.decode.workers * r.decode.gpus_per_worker);
  set("--decode-tp", req.decode_tp, r.decode.gpus_per_worker);
  if (r.decode.attention_dp >= 0) flag("--decode-attn-dp", req.decode_attn_dp, r.decode.attention_dp == 1);
  if (r.prefill.attention_dp >= 0) flag("--prefill-attn-dp", req.prefill_attn_dp, r.prefill.attention_dp == 1);
  // EP: the worker's width where the recipe says EP (infer's default), none (1) where it says no EP, unless
  // the run's launch script put EP over the whole worker whatever the config said (a launch row in force).
  // TP is the worker's GPUs either way: the row's width is the worker's.
  const Recipe* launch = launch_for(r, a.as_of);
  if (launch)
    a.notes.push_back(fmt::format("launch: recipe {} ({}): {}{}", launch->name, launch->recipe.substr(0, 100),
                                  launch->tp_is_worker ? "TP over each worker's GPUs" : "the config's TP",
                                  launch->ep_is_worker ? ", EP over each worker's GPUs" : ", the config's EP"));
  const bool ep_is_worker = launch && launch->ep_is_worker;
  const int decode_ep = ep_is_worker ? 1 : r.decode.ep;  // EP wider than 1: on, off, not stated
  if (r.decode.ep == 0 && !ep_is_worker) set("--decode-ep", req.decode_ep, 1);
  if (r.prefill.ep == 0 && !ep_is_worker) set("--prefill-ep", req.prefill_ep, 1);
  if (r.decode.max_batch > 0) set("--decode-max-batch", req.decode_max_batch, r.decode.max_batch);
  set("--mtp", req.mtp, r.mtp_draft_tokens);
  if (r.decode.scheduler_recv_interval > 1)
    set("--scheduler-recv-interval", req.scheduler_recv_interval, r.decode.scheduler_recv_interval);
  if (r.decode.fp8_gemm_triton) set("--fp8-gemm-backend", req.fp8_gemm_backend, std::string("triton"));
  if (!r.concurrencies.empty()) {
    const long long top = *std::max_element(r.concurrencies.begin(), r.concurrencies.end());
    set("--concurrency", req.concurrency, top);
    if (!req.given("--concurrency") && r.concurrencies.size() > 1)
      a.notes.push_back(fmt::format("the benchmark's largest of {} concurrencies ({}); --concurrency for another",
                                    r.concurrencies.size(), fmt::format("{}", top)));
  }
  // The decode workers' batch cap in force on the date where the deployment row states none (MoRI decode rows).
  if (r.decode.max_batch == 0) {
    std::vector<const Recipe*> caps;
    for (const Recipe& c : builtin_recipes())
      if (c.kind == RecipeKind::decode_limits && c.model == r.model && c.engine == r.engine && c.system == r.system &&
          c.precision == r.precision && recipe_key_matches(c.decode.attention_dp, req.decode_attn_dp) &&
          (decode_ep < 0 || recipe_key_matches(c.decode.ep, decode_ep == 1)) && c.in_force(a.as_of))
        caps.push_back(&c);
    if (caps.size() == 1 && caps.front()->decode.max_batch > 0) {
      set("--decode-max-batch", req.decode_max_batch, caps.front()->decode.max_batch);
      a.notes.push_back(fmt::format("decode batch cap: recipe {} ({})", caps.front()->name,
                                    caps.front()->recipe.substr(0, 100)));
    }
  }
  // The prefill workers' limits in force on the date (dynamo_prefill.yaml, MoRI prefill rows).
  std::vector<const Recipe*> limits = prefill_limits_for(r, a.as_of);
  if (r.prefill.attention_dp >= 0 || req.given("--prefill-attn-dp")) {
    const bool adp = req.prefill_attn_dp;
    limits.erase(std::remove_if(limits.begin(), limits.end(),
                                [&](const Recipe* p) { return !recipe_key_matches(p->prefill.attention_dp, adp); }),
                 limits.end());
  }
  if (limits.size() == 1) {
    const Recipe& p = *limits.front();
    if (p.prefill.attention_dp >= 0) flag("--prefill-attn-dp", req.prefill_attn_dp, p.prefill.attention_dp == 1);
    const int dp = req.prefill_attn_dp ? std::max(1, req.prefill_tp) : 1;  // SGLang divides a worker's flags by dp
    const long long batch = p.prefill.max_batch > 0 ? p.prefill.max_batch
                            : p.prefill.max_running_requests > 0 ? std::max(1LL, p.prefill.max_running_requests / dp)
                                                                 : 0;
    long long tokens = p.prefill.max_tokens;
    if (tokens == 0) {
      const long long chunk = p.prefill.chunked_prefill_size > 0
                                  ? p.prefill.chunked_prefill_size
                                  : p.prefill.dispatch_tokens_per_rank * std::max(1, req.prefill_tp);
      tokens = std::max(1LL, chunk / dp);
      if (p.prefill.max_prefill_tokens > 0) tokens = std::min(tokens, p.prefill.max_prefill_tokens);
    }
    if (batch > 0) set("--prefill-max-batch", req.prefill_max_batch, batch);
    if (tokens > 0) set("--prefill-max-tokens", req.prefill_max_tokens, tokens);
    if (p.prefill.fp8_gemm_triton) set("--prefill-fp8-gemm-backend", req.prefill_fp8_gemm_backend, std::string("triton"));
    a.notes.push_back(fmt::format("prefill limits: recipe {} ({})", p.name, p.recipe.substr(0, 100)));
  } else if (limits.empty()) {
    a.notes.push_back(fmt::format("no prefill-limits recipe in force on {} for this prefill worker: none applied",
                                  a.as_of));
  } else {
    a.notes.push_back(fmt::format("{} prefill-limits recipes match (the recipe does not state the prefill workers' "
                                  "attention-DP): none applied; --prefill-attn-dp picks one",
                                  limits.size()));
  }
  return a;
}

int infer_recipe(const Catalog& catalog, InferRequest req, Output& output, const Session* session) {
  const AppliedRecipe a = apply_infer_recipe(req);
  const Recipe& r = *a.recipe;
  req.recipe.clear();
  req.as_of.clear();
  if (!output.json()) {
    output.os() << fmt::format("Recipe {} ({}{}, {}), as of {}\n", r.name, r.source,
                               r.commit.empty() ? "" : " " + r.commit.substr(0, 8), r.recipe, a.as_of);
    if (!a.overridden.empty())
      output.os() << fmt::format("  overridden: {}\n", fmt::join(a.overridden, "; "));
    for (const std::string& n : a.notes) output.os() << "  " << n << "\n";
  }
  // An error naming an option the recipe set, not one the user typed (its pools do not fit the --system or
  // --model given with it, say): the recipe, or what was given with it, is at fault.
  const std::string with = req.given("--system") ? "--system" : req.given("--model") ? "--model" : "--recipe";
  const std::string with_value = with == "--system" ? req.system : req.model_name;
  const std::vector<std::string> typed = req.given_options;
  int rc = 0;
  try {
    rc = infer(catalog, std::move(req), output, session);
  } catch (const InputError& e) {
    const std::string& f = e.field();
    const auto set = std::find_if(a.from_recipe.begin(), a.from_recipe.end(),
                                  [&](const std::string& o) { return o == f || o.starts_with(f + " "); });
    if (f.empty() || set == a.from_recipe.end() || std::find(typed.begin(), typed.end(), f) != typed.end()) throw;
    const std::string what = e.what();
    throw InputError(with, fmt::format("recipe {} sets {}{}: {}", r.name, *set,
                                       with == "--recipe" ? std::string()
                                                          : fmt::format(", which does not hold with {} {}", with,
                                                                        with_value),
                                       what.substr(f.size() + 2)));
  }
  if (output.json() && output.doc.is_object())
    output.doc["recipe"] = {{"name", r.name},     {"source", r.source},           {"commit", r.commit},
                            {"recipe", r.recipe}, {"as_of", a.as_of},             {"options", a.from_recipe},
                            {"overridden", a.overridden}, {"notes", a.notes}};
  return rc;
}

}  // namespace gpuplan::api
