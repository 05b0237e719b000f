#include "server/request.h"

#include <array>

#include "core/error.h"

namespace gpuplan::server {

namespace {

bool is_flag_value(const std::string& v) { return v.empty() || v == "true" || v == "false"; }
// A flag's value as options_from_query keeps it: true/false, or "" (value-less).
bool is_flag_slot(const nlohmann::json& slot) {
  return slot.is_boolean() || (slot.is_string() && slot.get_ref<const std::string&>().empty());
}

// Shell-quotes one word when it needs it.
std::string quoted(const std::string& word) {
  if (!word.empty() && word.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
                                              "-_.,:=/+@%") == std::string::npos)
    return word;
  std::string out = "'";
  for (char c : word) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string scalar_text(const nlohmann::json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number_integer()) return std::to_string(v.get<long long>());
  return v.dump();  // numbers as JSON writes them
}

}  // namespace

nlohmann::json options_from_query(const std::vector<std::pair<std::string, std::string>>& params) {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [key, value] : params) {
    if (key.empty()) throw InputError("query", "a parameter without a name (expected option=value)");
    if (key == "positional") {
      if (!out.contains(key)) out[key] = nlohmann::json::array();
      out[key].push_back(value);
      continue;
    }
    if (!out.contains(key)) {
      // "true"/"false" are a flag's; an empty value stays empty: a flag's "on" where the option is one (the API
      // takes it so), an empty value, refused, where the option takes one.
      if (value == "true" || value == "false") out[key] = value == "true";
      else out[key] = value;
      continue;
    }
    nlohmann::json& slot = out[key];
    if (is_flag_slot(slot) || is_flag_value(value))
      throw InputError(key, "a flag given more than once (give it once: " + key + " or " + key + "=true)");
    if (!slot.is_array()) slot = nlohmann::json::array({slot});
    slot.push_back(value);
  }
  return out;
}

nlohmann::json options_from_body(std::string_view body) {
  nlohmann::json doc = nlohmann::json::parse(body.begin(), body.end(), nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded())
    throw InputError("body", "not a JSON document (expected an object of options, e.g. {\"model\": \"llama3.1-70b\"})");
  if (!doc.is_object())
    throw InputError("body", std::string("a JSON ") + doc.type_name() + ", expected an object of options");
  for (const auto& [key, value] : doc.items()) {
    if (key.empty()) throw InputError("body", "an option with an empty name");
    auto scalar = [](const nlohmann::json& v) { return v.is_string() || v.is_number() || v.is_boolean(); };
    bool ok = scalar(value);
    if (value.is_array()) {
      ok = true;
      for (const auto& e : value) ok = ok && scalar(e);
    }
    if (!ok)
      throw InputError(key, std::string("a JSON ") + value.type_name() +
                                ", expected a string, a number, a boolean or an array of those");
  }
  return doc;
}

nlohmann::json checked_options(nlohmann::json options) {
  static constexpr std::array kWrites = {"out", "write", "write-trace", "write-bands", "output-dir"};
  static constexpr std::array kSession = {"catalog", "calibration"};
  for (const char* key : kWrites)
    if (options.contains(key))
      throw InputError(std::string("--") + key,
                       "the server writes no files: run `gpuplan` on the command line to write one");
  for (const char* key : kSession)
    if (options.contains(key))
      throw InputError(std::string("--") + key,
                       std::string("a setting of the whole server: gpuplan serve --") + key + " ...");
  options.erase("json");
  return options;
}

std::string command_line(std::string_view command, const nlohmann::json& options) {
  std::string out = "gpuplan " + std::string(command);
  if (auto p = options.find("positional"); p != options.end())
    for (const auto& v : (p->is_array() ? *p : nlohmann::json::array({*p}))) out.append(" ").append(quoted(scalar_text(v)));
  for (const auto& [key, value] : options.items()) {
    if (key == "positional") continue;
    if (is_flag_slot(value)) {  // a flag, or an empty value on a flag (the call refuses any other empty value)
      if (!value.is_boolean() || value.get<bool>()) out.append(" --").append(key);
      continue;
    }
    for (const auto& v : (value.is_array() ? value : nlohmann::json::array({value})))
      out.append(" --").append(key).append(" ").append(quoted(scalar_text(v)));
  }
  return out + " --json";
}

}  // namespace gpuplan::server
