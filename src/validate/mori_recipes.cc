#include "validate/mori_recipes.h"

#include <fmt/format.h>

#include <algorithm>
#include <exception>


#include "core/embedded_data.h"
#include "core/error.h"
#include "core/yaml_reader.h"
#include "validate/recipe_dates.h"
#include "validate/recipe_keys.h"

namespace gpuplan {

namespace {

// The fields launch, decode and prefill entries share: precision, attention_dp (not in launch),
// dates, source, recipe.
struct MoriRecipeCommon {
  bool fp8 = false, attention_dp = false;
  std::string valid_from, valid_to, source, recipe;
};

MoriRecipeCommon mori_recipe_common(YamlMap& r, bool with_attention_dp = true) {
  MoriRecipeCommon c;
  const std::string precision = r.str("precision");
  if (precision != "fp4" && precision != "fp8")
    throw InputError(r.path() + ".precision", "must be fp4 or fp8, got '" + precision + "'");
  c.fp8 = precision == "fp8";
  if (with_attention_dp) c.attention_dp = r.boolean("attention_dp");
  c.valid_from = r.str("valid_from");
  if (!is_recipe_date(c.valid_from))
    throw InputError(r.path() + ".valid_from", "must be YYYY-MM-DD, got '" + c.valid_from + "'");
  if (r.has("valid_to")) {
    c.valid_to = r.str("valid_to");
    if (!is_recipe_date(c.valid_to))
      throw InputError(r.path() + ".valid_to", "must be YYYY-MM-DD, got '" + c.valid_to + "'");
    if (c.valid_to < c.valid_from)
      throw InputError(r.path() + ".valid_to", "must not be before valid_from " + c.valid_from + ", got " + c.valid_to);
  }
  c.source = r.str("source");
  if (c.source.find('/') == std::string::npos)
    throw InputError(r.path() + ".source", "must name a repository as owner/name, got '" + c.source + "'");
  c.recipe = r.str("recipe");
  if (c.recipe.empty()) throw InputError(r.path() + ".recipe", "must name the files or pull request, got ''");
  return c;
}

}  // namespace

MoriRecipes parse_mori_recipes(const std::string& text, const std::string& origin) {
  YamlMap root(parse_yaml(text, origin), origin);
  if (const std::string s = root.str("schema"); s != "gpuplan.inferencex_mori_recipes/v1")
    throw InputError(origin + ": schema", "must be gpuplan.inferencex_mori_recipes/v1, got '" + s + "'");
  MoriRecipes out;
  std::vector<std::string> where;
  if (root.has("launch")) {
    for (YamlMap r : root.map_list("launch")) {
      const MoriRecipeCommon c = mori_recipe_common(r, false);
      MoriLaunchRecipe k;
      k.fp8 = c.fp8;
      k.valid_from = c.valid_from;
      k.valid_to = c.valid_to;
      auto whole_worker = [&](const char* key) {
        const std::string v = r.str(key);
        if (v != "worker" && v != "config")
          throw InputError(r.path() + "." + key, "must be worker or config, got '" + v + "'");
        return v == "worker";
      };
      k.tp_is_worker = whole_worker("tp");
      k.ep_is_worker = whole_worker("ep");
      k.source = c.source;
      k.recipe = c.recipe;
      r.reject_unknown_keys();
      for (size_t j = 0; j < out.launch.size(); ++j) {
        const MoriLaunchRecipe& o = out.launch[j];
        if (o.fp8 == k.fp8 && recipe_date_ranges_meet(o.valid_from, o.valid_to, k.valid_from, k.valid_to))
          throw InputError(r.path(), fmt::format("matches the same rows as {} (precision and dates meet): one row, "
                                                 "one entry",
                                                 where[j]));
      }
      where.push_back(r.path());
      out.launch.push_back(std::move(k));
    }
    where.clear();
  }
  for (YamlMap r : root.map_list("decode")) {
    const MoriRecipeCommon c = mori_recipe_common(r);
    MoriDecodeRecipe k;
    k.fp8 = c.fp8;
    k.attention_dp = c.attention_dp;
    k.ep = read_recipe_either(r, "ep");
    k.valid_from = c.valid_from;
    k.valid_to = c.valid_to;
    k.max_running_requests = r.integer_in("max_running_requests", 0, 1'000'000);
    k.source = c.source;
    k.recipe = c.recipe;
    r.reject_unknown_keys();
    for (size_t j = 0; j < out.decode.size(); ++j) {
      const MoriDecodeRecipe& o = out.decode[j];
      if (o.fp8 == k.fp8 && o.attention_dp == k.attention_dp && recipe_keys_meet(o.ep, k.ep) &&
          recipe_date_ranges_meet(o.valid_from, o.valid_to, k.valid_from, k.valid_to))
        throw InputError(r.path(), fmt::format("matches the same rows as {} (precision, attention_dp, ep and dates "
                                               "meet): one row, one entry",
                                               where[j]));
    }
    where.push_back(r.path());
    out.decode.push_back(std::move(k));
  }
  where.clear();
  for (YamlMap r : root.map_list("prefill")) {
    const MoriRecipeCommon c = mori_recipe_common(r);
    MoriPrefillRecipe k;
    k.fp8 = c.fp8;
    k.attention_dp = c.attention_dp;
    k.valid_from = c.valid_from;
    k.valid_to = c.valid_to;
    k.max_running_requests = r.integer_in("max_running_requests", 1, 1'000'000);
    const bool chunk = r.has("chunked_prefill_size"), dispatch = r.has("dispatch_tokens_per_rank");
    if (chunk == dispatch)
      throw InputError(r.path() + ".chunked_prefill_size",
                       "exactly one of chunked_prefill_size and dispatch_tokens_per_rank must be given");
    if (chunk) k.chunked_prefill_size = r.integer_in("chunked_prefill_size", 1, 16'777'216);
    if (dispatch) k.dispatch_tokens_per_rank = r.integer_in("dispatch_tokens_per_rank", 1, 16'777'216);
    k.max_prefill_tokens = r.integer_in("max_prefill_tokens", 1, 16'777'216);
    k.source = c.source;
    k.recipe = c.recipe;
    r.reject_unknown_keys();
    for (size_t j = 0; j < out.prefill.size(); ++j) {
      const MoriPrefillRecipe& o = out.prefill[j];
      if (o.fp8 == k.fp8 && o.attention_dp == k.attention_dp &&
          recipe_date_ranges_meet(o.valid_from, o.valid_to, k.valid_from, k.valid_to))
        throw InputError(r.path(), fmt::format("matches the same rows as {} (precision, attention_dp and dates "
                                               "meet): one row, one entry",
                                               where[j]));
    }
    where.push_back(r.path());
    out.prefill.push_back(std::move(k));
  }
  if (out.decode.empty()) throw InputError(origin + ": decode", "must list at least one entry");
  if (out.prefill.empty()) throw InputError(origin + ": prefill", "must list at least one entry");
  root.reject_unknown_keys();
  return out;
}

namespace {

MoriWorkerShape mori_worker_shape(YamlMap m) {
  MoriWorkerShape w;
  w.workers = static_cast<int>(m.integer_in("workers", 1, 4096));
  w.width = static_cast<int>(m.integer_in("width", 1, 4096));
  w.ep = m.boolean("ep");
  w.attention_dp = m.boolean("attention_dp");
  m.reject_unknown_keys();
  return w;
}

std::string embedded_text(const char* path) {
  for (const auto& f : embedded_data_files())
    if (f.path == path) return std::string(f.text);
  throw InputError(path, "not embedded in this build");
}

}  // namespace

void parse_mori_mtp_recipes(const std::string& text, const std::string& origin, MoriRecipes& recipes) {
  YamlMap root(parse_yaml(text, origin), origin);
  if (const std::string s = root.str("schema"); s != "gpuplan.inferencex_mori_mtp/v1")
    throw InputError(origin + ": schema", "must be gpuplan.inferencex_mori_mtp/v1, got '" + s + "'");
  const std::string source = root.str("source");
  if (source.find('/') == std::string::npos)
    throw InputError(origin + ": source", "must name a repository as owner/name, got '" + source + "'");
  for (YamlMap r : root.map_list("entries")) {
    MoriMtpRecipe k;
    const std::string precision = r.str("precision");
    if (precision != "fp4" && precision != "fp8")
      throw InputError(r.path() + ".precision", "must be fp4 or fp8, got '" + precision + "'");
    k.fp8 = precision == "fp8";
    k.isl = r.integer_in("isl", 1, 16'777'216);
    k.osl = r.integer_in("osl", 1, 16'777'216);
    k.prefill = mori_worker_shape(r.map("prefill"));
    k.decode = mori_worker_shape(r.map("decode"));
    for (const std::string& c : r.str_list("concurrencies")) {
      long long v = 0;
      try {
        size_t used = 0;
        v = std::stoll(c, &used);
        if (used != c.size()) v = 0;
      } catch (const std::exception&) {
        v = 0;
      }
      if (v < 1 || v > 1'000'000)
        throw InputError(r.path() + ".concurrencies", "must list whole numbers 1 to 1,000,000, got '" + c + "'");
      k.concurrencies.push_back(v);
    }
    if (k.concurrencies.empty()) throw InputError(r.path() + ".concurrencies", "must list at least one");
    k.valid_from = r.str("valid_from");
    if (!is_recipe_date(k.valid_from))
      throw InputError(r.path() + ".valid_from", "must be YYYY-MM-DD, got '" + k.valid_from + "'");
    if (r.has("valid_to")) {
      k.valid_to = r.str("valid_to");
      if (!is_recipe_date(k.valid_to) || k.valid_to < k.valid_from)
        throw InputError(r.path() + ".valid_to", "must be YYYY-MM-DD, not before valid_from " + k.valid_from +
                                                     ", got '" + k.valid_to + "'");
    }
    k.mtp_draft_tokens = static_cast<int>(r.integer_in("mtp_draft_tokens", 1, 16));
    k.commit = r.str("commit");
    k.recipe = r.str("recipe");
    r.reject_unknown_keys();
    recipes.mtp.push_back(std::move(k));
  }
  root.reject_unknown_keys();
}

const MoriRecipes& builtin_mori_recipes() {
  static const MoriRecipes recipes = [] {
    constexpr const char* kPath = "recipes/inferencex_mori.yaml";
    constexpr const char* kMtpPath = "recipes/inferencex_mori_mtp.yaml";
    MoriRecipes r = parse_mori_recipes(embedded_text(kPath), kPath);
    parse_mori_mtp_recipes(embedded_text(kMtpPath), kMtpPath, r);
    return r;
  }();
  return recipes;
}

int match_mori_mtp_draft_tokens(const MoriRecipes& recipes, const std::string& date, bool fp8, long long isl,
                                long long osl, const MoriWorkerShape& prefill, const MoriWorkerShape& decode,
                                long long concurrency, std::vector<const MoriMtpRecipe*>* matched) {
  if (matched) matched->clear();
  if (!is_recipe_date(date)) return 0;
  int found = 0;
  bool disagree = false;
  for (const MoriMtpRecipe& r : recipes.mtp) {
    if (r.fp8 != fp8 || r.isl != isl || r.osl != osl || !(r.prefill == prefill) || !(r.decode == decode) ||
        !recipe_date_in_range(date, r.valid_from, r.valid_to) ||
        std::find(r.concurrencies.begin(), r.concurrencies.end(), concurrency) == r.concurrencies.end())
      continue;
    if (matched) matched->push_back(&r);
    if (found && found != r.mtp_draft_tokens) disagree = true;
    found = r.mtp_draft_tokens;
  }
  return disagree ? 0 : found;
}

const MoriDecodeRecipe* match_mori_decode_recipe(const MoriRecipes& recipes, const std::string& date, bool fp8,
                                                 bool attention_dp, bool ep) {
  if (!is_recipe_date(date)) return nullptr;
  for (const MoriDecodeRecipe& r : recipes.decode)
    if (r.fp8 == fp8 && r.attention_dp == attention_dp && recipe_key_matches(r.ep, ep) &&
        recipe_date_in_range(date, r.valid_from, r.valid_to))
      return &r;
  return nullptr;
}

const MoriLaunchRecipe* match_mori_launch_recipe(const MoriRecipes& recipes, const std::string& date, bool fp8) {
  if (!is_recipe_date(date)) return nullptr;
  for (const MoriLaunchRecipe& r : recipes.launch)
    if (r.fp8 == fp8 && recipe_date_in_range(date, r.valid_from, r.valid_to)) return &r;
  return nullptr;
}

const MoriPrefillRecipe* match_mori_prefill_recipe(const MoriRecipes& recipes, const std::string& date, bool fp8,
                                                   bool attention_dp) {
  if (!is_recipe_date(date)) return nullptr;
  for (const MoriPrefillRecipe& r : recipes.prefill)
    if (r.fp8 == fp8 && r.attention_dp == attention_dp && recipe_date_in_range(date, r.valid_from, r.valid_to))
      return &r;
  return nullptr;
}

}  // namespace gpuplan
