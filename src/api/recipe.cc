// gpuplan recipe list [--kind K] | gpuplan recipe show NAME
#include "api/recipe.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "api/text.h"
#include "core/error.h"
#include "core/suggest.h"
#include "recipe/recipe_catalog.h"

namespace gpuplan::api {

namespace {

using nlohmann::json;

constexpr RecipeKind kRecipeKinds[] = {RecipeKind::deployment, RecipeKind::prefill_limits, RecipeKind::decode_limits,
                                 RecipeKind::launch,     RecipeKind::mtp,            RecipeKind::script,
                                 RecipeKind::ep_overlap, RecipeKind::moe_dispatcher};

json recipe_count_or_null(long long v) { return v > 0 ? json(v) : json(nullptr); }
json recipe_either_json(int v) { return v < 0 ? json(nullptr) : json(v == 1); }
json recipe_text_or_null(const std::string& s) { return s.empty() ? json(nullptr) : json(s); }

json recipe_pool_json(const RecipePool& p) {
  return {{"workers", recipe_count_or_null(p.workers)},
          {"gpus_per_worker", recipe_count_or_null(p.gpus_per_worker)},
          {"attention_dp", recipe_either_json(p.attention_dp)},
          {"ep", recipe_either_json(p.ep)},
          {"max_batch", recipe_count_or_null(p.max_batch)},
          {"max_tokens", recipe_count_or_null(p.max_tokens)},
          {"max_running_requests", recipe_count_or_null(p.max_running_requests)},
          {"chunked_prefill_size", recipe_count_or_null(p.chunked_prefill_size)},
          {"dispatch_tokens_per_rank", recipe_count_or_null(p.dispatch_tokens_per_rank)},
          {"max_prefill_tokens", recipe_count_or_null(p.max_prefill_tokens)},
          {"eplb_slots", p.eplb_slots},
          {"scheduler_recv_interval", p.scheduler_recv_interval},
          {"mem_fraction_static", p.mem_fraction_static > 0 ? json(p.mem_fraction_static) : json(nullptr)},
          {"fp8_gemm_backend", p.fp8_gemm_triton ? "triton" : "auto"}};
}

// Container rows: the containers they hold for and the setting ("25.11..26.02 on", "25.11..26.04 alltoall").
std::string recipe_containers_text(const Recipe& r) {
  const std::string setting = r.kind == RecipeKind::ep_overlap ? (r.ep_overlap == 1 ? "on" : "off")
                                                                : (r.moe_alltoall == 1 ? "alltoall" : "flex");
  return fmt::format("{}..{} {}", r.container_from, r.container_until, setting);
}

std::string recipe_either_text(int v) { return v < 0 ? "any" : v ? "yes" : "no"; }

std::string recipe_pool_text(const RecipePool& p) {
  if (p.workers <= 0 && p.gpus_per_worker <= 0) return "-";
  return fmt::format("{}x{}{}", p.workers > 0 ? std::to_string(p.workers) : "?",
                     p.gpus_per_worker > 0 ? std::to_string(p.gpus_per_worker) : "?",
                     p.attention_dp == 1 ? " adp" : "");
}

int list_recipes(const std::string& kind, Output& output) {
  if (!kind.empty()) {
    bool known = false;
    std::vector<std::string> names;
    for (RecipeKind k : kRecipeKinds) {
      names.push_back(to_string(k));
      known = known || kind == to_string(k);
    }
    if (!known)
      throw InputError("--kind", fmt::format("must be one of {}, got '{}'{}", fmt::format("{}", fmt::join(names, ", ")),
                                             echo_name(kind), did_you_mean(kind, names)));
  }
  std::vector<const Recipe*> shown;
  for (const Recipe& r : builtin_recipes())
    if (kind.empty() || kind == to_string(r.kind)) shown.push_back(&r);
  if (output.json()) {
    json list = json::array();
    for (const Recipe* r : shown) list.push_back(recipe_json(*r));
    output.emit("recipe_list", {{"recipes", list}});
    return kExitOk;
  }
  std::vector<std::vector<std::string>> rows;
  for (const Recipe* r : shown)
    rows.push_back({r->name, to_string(r->kind), r->model.empty() ? "-" : r->model,
                    r->system.empty() ? "-" : r->system, r->engine.empty() ? "-" : r->engine,
                    r->precision.empty() ? "-" : r->precision, recipe_pool_text(r->prefill), recipe_pool_text(r->decode),
                    r->container_row() ? recipe_containers_text(*r) : r->valid_from + ".." + r->valid_to,
                    r->source});
  print_table(output.os(),
              {"name", "kind", "model", "system", "engine", "weights", "prefill", "decode", "dates", "source"}, rows, 2);
  output.os() << fmt::format("\n{} recipes. `gpuplan recipe show NAME` for one; `gpuplan infer --recipe NAME` "
                             "evaluates a deployment.\n",
                             shown.size());
  return kExitOk;
}

int show_recipe(const std::string& name, Output& output) {
  const Recipe& r = recipe_by_name(name);
  if (output.json()) {
    output.emit("recipe", {{"recipe", recipe_json(r)}});
    return kExitOk;
  }
  auto& os = output.os();
  os << fmt::format("{} ({}{})\n", r.name, to_string(r.kind), r.evaluable() ? "; gpuplan infer --recipe evaluates it" : "");
  auto line = [&](const char* key, const std::string& v) {
    if (!v.empty()) os << fmt::format("  {:<22} {}\n", key, v);
  };
  auto count = [&](const char* key, long long v) {
    if (v > 0) line(key, std::to_string(v));
  };
  line("model", r.model);
  line("gpu", r.gpu);
  line("system", r.system);
  line("generation", r.generation);
  line("engine", r.engine);
  line("weights", r.weights.empty() ? r.precision : r.weights);
  count("isl", r.isl);
  count("osl", r.osl);
  if (r.min_concurrency > 0 || r.max_concurrency > 0)
    line("clients", r.max_concurrency > 0 ? fmt::format("{} to {}", std::max(1LL, r.min_concurrency), r.max_concurrency)
                                          : fmt::format("{} and more", r.min_concurrency));
  for (const auto& [side, p] : {std::pair{"prefill", &r.prefill}, std::pair{"decode", &r.decode}}) {
    std::string v;
    auto add = [&](const std::string& s) { v += (v.empty() ? "" : ", ") + s; };
    if (p->workers > 0) add(fmt::format("{} workers", p->workers));
    if (p->gpus_per_worker > 0) add(fmt::format("{} GPUs a worker", p->gpus_per_worker));
    if (p->attention_dp >= 0) add("attention-DP " + recipe_either_text(p->attention_dp));
    if (p->ep >= 0) add("EP " + recipe_either_text(p->ep));
    if (p->max_batch > 0) add(fmt::format("max batch {}", p->max_batch));
    if (p->max_tokens > 0) add(fmt::format("max tokens {}", p->max_tokens));
    if (p->max_running_requests > 0) add(fmt::format("max running requests {} a worker", p->max_running_requests));
    if (p->chunked_prefill_size > 0) add(fmt::format("chunked prefill {}", p->chunked_prefill_size));
    if (p->dispatch_tokens_per_rank > 0) add(fmt::format("dispatch tokens a rank {}", p->dispatch_tokens_per_rank));
    if (p->max_prefill_tokens > 0) add(fmt::format("max prefill tokens {}", p->max_prefill_tokens));
    if (p->eplb_slots > 0) add(fmt::format("EPLB slots {}", p->eplb_slots));
    if (p->scheduler_recv_interval > 1) add(fmt::format("recv interval {}", p->scheduler_recv_interval));
    if (p->mem_fraction_static > 0) add(fmt::format("mem fraction static {:g}", p->mem_fraction_static));
    if (p->fp8_gemm_triton) add("FP8 GEMMs on Triton");
    line(side, v);
  }
  if (r.mtp >= 0) line("mtp", recipe_either_text(r.mtp));
  count("mtp draft tokens", r.mtp_draft_tokens);
  if (r.kind == RecipeKind::launch)
    line("launch", fmt::format("TP {}, EP {}", r.tp_is_worker ? "the whole worker" : "the config's",
                               r.ep_is_worker ? "the whole worker" : "the config's"));
  if (r.batch_wait_iters > 0)
    line("batch waiting", fmt::format("{} iterations, {:g} x max_num_tokens", r.batch_wait_iters,
                                      r.batch_wait_tokens_ratio));
  if (!r.concurrencies.empty()) line("concurrencies", fmt::format("{}", fmt::join(r.concurrencies, ", ")));
  if (r.container_row()) {
    if (r.kind == RecipeKind::ep_overlap) line("expert a2a overlap", r.ep_overlap == 1 ? "on" : "off");
    else line("MoE token dispatcher", r.moe_alltoall == 1 ? "alltoall" : "flex");
    line("containers", r.container_until.empty() ? "from " + r.container_from + " (still so in the newest container read)"
                                                 : "from " + r.container_from + " until " + r.container_until + " (not included)");
  } else {
    line("dates", r.valid_from + " to " + (r.valid_to.empty() ? "now" : r.valid_to));
  }
  line("source", r.source);
  line("commit", r.commit);
  line("recipe", r.recipe);
  line("table", r.where);
  return kExitOk;
}

}  // namespace

json recipe_json(const Recipe& r) {
  return {{"name", r.name},
          {"kind", to_string(r.kind)},
          {"evaluable", r.evaluable()},
          {"table", r.table},
          {"where", r.where},
          {"source", r.source},
          {"commit", recipe_text_or_null(r.commit)},
          {"recipe", r.recipe},
          {"valid_from", r.valid_from},
          {"valid_to", recipe_text_or_null(r.valid_to)},
          {"model", recipe_text_or_null(r.model)},
          {"gpu", recipe_text_or_null(r.gpu)},
          {"system", recipe_text_or_null(r.system)},
          {"engine", recipe_text_or_null(r.engine)},
          {"precision", recipe_text_or_null(r.precision)},
          {"isl", recipe_count_or_null(r.isl)},
          {"osl", recipe_count_or_null(r.osl)},
          {"min_concurrency", recipe_count_or_null(r.min_concurrency)},
          {"max_concurrency", recipe_count_or_null(r.max_concurrency)},
          {"generation", recipe_text_or_null(r.generation)},
          {"weights", recipe_text_or_null(r.weights)},
          {"prefill", recipe_pool_json(r.prefill)},
          {"decode", recipe_pool_json(r.decode)},
          {"mtp", recipe_either_json(r.mtp)},
          {"mtp_draft_tokens", r.mtp_draft_tokens},
          {"tp_is_worker", r.tp_is_worker},
          {"ep_is_worker", r.ep_is_worker},
          {"batch_wait_iters", r.batch_wait_iters},
          {"batch_wait_tokens_ratio", r.batch_wait_tokens_ratio},
          {"concurrencies", r.concurrencies},
          {"container_from", recipe_text_or_null(r.container_from)},
          {"container_until", recipe_text_or_null(r.container_until)},
          {"ep_overlap", recipe_either_json(r.ep_overlap)},
          {"moe_dispatcher", r.moe_alltoall < 0 ? json(nullptr) : json(r.moe_alltoall == 1 ? "alltoall" : "flex")}};
}

void add_recipe_options(CLI::App& app, RecipeRequest& req) {
  app.description("List the built-in deployment recipes (data/recipes/*.yaml: model, system, engine, pools, engine "
                  "settings, run dates and source of each), or show one.");
  app.footer(
      "Examples:\n"
      "  gpuplan recipe list\n"
      "  gpuplan recipe list --kind deployment      the recipes `gpuplan infer --recipe` evaluates\n"
      "  gpuplan recipe show trtllm/b200-fp4/1k1k/mtp/ctx1_gen2_dep8_batch64_eplb0_mtp2 --json");
  app.require_subcommand(1, 1);
  CLI::App* list = app.add_subcommand("list", "Table of the built-in recipes");
  list->add_option("--kind", req.kind,
                   "Only recipes of this kind: deployment, prefill_limits, decode_limits, launch, mtp, script, ep_overlap "
                   "or moe_dispatcher");
  list->fallthrough();
  list->callback([&req] { req.list = true; });
  CLI::App* show = app.add_subcommand("show", "One recipe: every field it states and its source");
  show->add_option("NAME", req.name, "The recipe's name (gpuplan recipe list)")->required();
  show->fallthrough();
}

int recipe(RecipeRequest req, Output& output) {
  if (req.list) return list_recipes(req.kind, output);
  return show_recipe(req.name, output);
}

}  // namespace gpuplan::api
