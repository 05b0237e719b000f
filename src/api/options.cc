#include "api/options.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include <fmt/format.h>

#include "api/option_names.h"
#include "core/error.h"
#include "core/suggest.h"

namespace gpuplan::api {

bool RequestBase::given(std::string_view option) const {
  return std::find(given_options.begin(), given_options.end(), option) != given_options.end();
}

void RequestBase::check_global_batch(long long sequences) const {
  if (given("--global-batch") && (sequences < 1 || sequences > 1'000'000'000))
    throw InputError("--global-batch", fmt::format("must be 1 to 1000000000 sequences, got {}", sequences));
}

namespace {

// A value given must say something: CLI11 takes an empty one ("--pue ''", "--plan ''") as none at all and
// runs on the default without a word.
const CLI::Validator& non_empty_value() {
  static const CLI::Validator v(
      [](std::string& s) -> std::string {
        return s.empty() ? "must not be empty (leave the option out for its default)" : std::string();
      },
      "", "NONEMPTY");  // no description: the help keeps showing the plain type
  return v;
}

const CLI::Validator& finite_number() {
  static const CLI::Validator v(
      [](std::string& s) -> std::string {
        const char* b = s.c_str();
        char* end = nullptr;
        const double x = std::strtod(b, &end);
        if (end == b) return {};  // not a number at all: the type conversion reports it
        if (!std::isfinite(x)) return "must be a finite number, got '" + s + "'";
        return {};
      },
      "", "FINITE");  // no description: the help keeps showing the plain type
  return v;
}

bool numeric_type(const std::string& type_name) {
  for (const char* t : {"FLOAT", "INT", "UINT", "NUMBER"})
    if (type_name.find(t) != std::string::npos) return true;
  return false;
}

// The option a key names, in the command or one of its sub-commands; null when none.
const CLI::Option* find_option(const CLI::App& app, const std::string& name) {
  if (const CLI::Option* o = app.get_option_no_throw(name)) return o;
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; }))
    if (const CLI::Option* o = find_option(*sub, name)) return o;
  return nullptr;
}

void collect_names(const CLI::App& app, std::vector<std::string>& names) {
  for (const CLI::Option* o : app.get_options())
    for (const auto& l : o->get_lnames()) names.push_back(l);
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) collect_names(*sub, names);
}

std::string scalar_text(const nlohmann::json& v, const std::string& field) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number_integer() || v.is_number_unsigned() || v.is_number_float()) return v.dump();
  if (v.is_boolean()) return v.get<bool>() ? "true" : "false";
  throw InputError(field, "must be a string, a number or a boolean, got " + std::string(v.type_name()));
}

}  // namespace

void check_option_values(CLI::App& app) {
  for (CLI::Option* o : app.get_options()) {
    if (o->get_items_expected_max() == 0) continue;  // a flag
    o->check(non_empty_value());
    if (numeric_type(o->get_type_name())) o->check(finite_number());
  }
  for (CLI::App* sub : app.get_subcommands({})) check_option_values(*sub);
}

void record_given(const CLI::App& app, RequestBase& req) {
  req.given_options.clear();
  auto add = [&](const CLI::App& a, auto&& self) -> void {
    for (const CLI::Option* o : a.get_options()) {
      if (o->count() == 0) continue;
      for (const auto& l : o->get_lnames()) req.given_options.push_back("--" + l);
      for (const auto& s : o->get_snames()) req.given_options.push_back("-" + s);
      if (!o->nonpositional()) req.given_options.push_back(o->get_name());
    }
    for (const CLI::App* sub : a.get_subcommands([](const CLI::App*) { return true; })) self(*sub, self);
  };
  add(app, add);
}

namespace {

// The option a key names ("isl", "tokens_per_user", "systems"), or InputError naming the key.
OptionNames::Found find_key(const CLI::App& app, std::string name) {
  const std::string field = "--" + name;
  const CLI::Option* opt = find_option(app, field);
  if (!opt && name.find('_') != std::string::npos) {
    std::replace(name.begin(), name.end(), '_', '-');
    opt = find_option(app, "--" + name);
  }
  if (!opt) opt = find_option(app, name);  // a positional argument named by its name ("systems")
  if (!opt) {
    std::vector<std::string> names;
    collect_names(app, names);
    throw InputError(field, "unknown option of this command" + did_you_mean(name, names));
  }
  OptionNames::Found f;
  f.option = opt;
  f.positional = !opt->nonpositional();
  f.flag = f.positional ? std::string() : "--" + opt->get_lnames().front();
  f.is_flag = !f.positional && opt->get_items_expected_max() == 0;
  return f;
}

// Integers as their digits (what dump() writes, without its serializer); other numbers by dump().
std::string number_text(const nlohmann::json& v) {
  if (v.is_number_integer()) return std::to_string(v.get<long long>());
  if (v.is_number_unsigned()) return std::to_string(v.get<unsigned long long>());
  return v.dump();
}

}  // namespace

std::vector<std::string> option_tokens(const CLI::App& app, const nlohmann::json& options, OptionNames* names) {
  if (!options.is_object() && !options.is_null())
    throw InputError("options", "must be an object of option names and values, got " + std::string(options.type_name()));
  std::vector<std::string> tokens, positional;
  if (options.is_null()) return tokens;
  for (const auto& [key, value] : options.get_ref<const nlohmann::json::object_t&>()) {
    if (key == "positional") {
      if (value.is_array()) {
        for (const auto& v : value) positional.push_back(scalar_text(v, "positional"));
      } else if (!value.is_null()) {
        positional.push_back(scalar_text(value, "positional"));
      }
      continue;
    }
    std::size_t dashes = 0;
    while (dashes < key.size() && key[dashes] == '-') ++dashes;
    const std::string_view name = std::string_view(key).substr(dashes);
    if (name == "json") continue;
    if (name == "help") throw InputError("--help", "the options are described by `gpuplan COMMAND --help`");  // run() always answers with the document
    if (name == "catalog" || name == "calibration")
      throw InputError("--" + std::string(name),
                       "is a setting of the Session (its catalog folders and calibration files), not of one call");
    OptionNames::Found looked_up;
    const OptionNames::Found* found = nullptr;
    if (names) {
      const auto it = names->by_key.find(std::string(name));
      if (it != names->by_key.end()) found = &it->second;
    }
    if (!found) {
      looked_up = find_key(app, std::string(name));
      found = &looked_up;
      if (names && names->by_key.size() < OptionNames::kMaxKeys)
        found = &names->by_key.emplace(std::string(name), std::move(looked_up)).first->second;
    }
    const OptionNames::Found& f = *found;
    auto add = [&](const nlohmann::json& v) {
      if (f.is_flag) {
        if (v.is_string() && v.get_ref<const std::string&>().empty()) {  // a value-less flag, as a query gives one
          tokens.push_back(f.flag);
          return;
        }
        if (!v.is_boolean()) throw InputError(f.flag, "is a flag: true or false, got " + v.dump());
        if (v.get<bool>()) tokens.push_back(f.flag);
      } else if (f.positional) {
        positional.push_back(scalar_text(v, f.option->get_name()));
      } else if (v.is_number()) {
        tokens.push_back(f.flag + "=" + number_text(v));
      } else if (v.is_string() && v.get_ref<const std::string&>().empty()) {
        // "--gpus=" would take the next token as the value: an empty value is refused here, as the CLI does.
        throw InputError(f.flag, "must not be empty (leave the option out for its default)");
      } else {
        tokens.push_back(f.flag + "=" + scalar_text(v, f.flag));
      }
    };
    if (value.is_null()) continue;
    if (value.is_array()) {
      for (const auto& v : value) add(v);
    } else {
      add(value);
    }
  }
  positional.insert(positional.end(), tokens.begin(), tokens.end());
  return positional;
}

void parse_options(CLI::App& app, const nlohmann::json& options, RequestBase& req, OptionNames* names) {
  parse_tokens(app, option_tokens(app, options, names), req);
}

std::vector<std::string> option_tokens(const CLI::App& app, const nlohmann::json& options) {
  return option_tokens(app, options, nullptr);
}

void parse_options(CLI::App& app, const nlohmann::json& options, RequestBase& req) {
  parse_options(app, options, req, nullptr);
}

void parse_tokens(CLI::App& app, std::vector<std::string> tokens, RequestBase& req) {
  std::vector<std::string> keys;
  for (const auto& t : tokens)
    if (t.rfind("--", 0) == 0) keys.push_back(t.substr(0, t.find('=')));
  std::reverse(tokens.begin(), tokens.end());  // CLI11 takes the arguments last first
  try {
    app.parse(tokens);
  } catch (const CLI::ParseError& e) {
    std::string what = e.what();
    std::string field;
    for (const auto& k : keys)
      if (what.find(k) != std::string::npos && k.size() > field.size()) field = k;
    if (field.empty()) {  // an option not given (a required one): the longest option name the message names
      std::vector<std::string> names;
      collect_names(app, names);
      for (const auto& n : names)
        if (what.find("--" + n) != std::string::npos && n.size() + 2 > field.size()) field = "--" + n;
    }
    if (!field.empty() && what.rfind(field + ": ", 0) == 0) what.erase(0, field.size() + 2);
    throw InputError(field, what);
  }
  record_given(app, req);
}

}  // namespace gpuplan::api
