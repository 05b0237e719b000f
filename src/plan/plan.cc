#include "plan/plan.h"

#include <fmt/format.h>

#include <charconv>
#include <vector>

#include "core/error.h"
#include "core/suggest.h"

namespace gpuplan {

std::string_view to_string(Recompute r) {
  switch (r) {
    case Recompute::none: return "none";
    case Recompute::selective: return "selective";
    case Recompute::full: return "full";
  }
  return "?";
}

namespace {

int parse_int(const std::string& key, const std::string& v, int lo, int hi) {
  int out = 0;
  auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), out);
  if (ec != std::errc() || p != v.data() + v.size() || out < lo || out > hi)
    throw InputError("--plan." + key, fmt::format("must be a whole number from {} to {}, got '{}'", lo, hi, v));
  return out;
}

bool parse_bool(const std::string& key, const std::string& v) {
  if (v == "1" || v == "true" || v == "on" || v == "yes") return true;
  if (v == "0" || v == "false" || v == "off" || v == "no") return false;
  throw InputError("--plan." + key, fmt::format("must be true/false (or 1/0), got '{}'", v));
}

}  // namespace

TrainingPlan parse_training_plan(const std::string& text, TrainingPlan p) {
  static const std::vector<std::string> keys = {"tp", "pp", "vp", "cp", "ep", "etp", "dp", "mbs",
                                                "recompute", "recompute_layers", "zero", "sp",
                                                "tp_overlap", "dp_overlap", "ep_overlap", "dist_opt"};
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find(',', pos);
    if (end == std::string::npos) end = text.size();
    const std::string item = text.substr(pos, end - pos);
    pos = end + 1;
    if (item.empty()) continue;
    const size_t eq = item.find('=');
    if (eq == std::string::npos) throw InputError("--plan", fmt::format("expected key=value, got '{}'", item));
    const std::string k = item.substr(0, eq), v = item.substr(eq + 1);
    constexpr int kMax = 1 << 20;
    if (k == "tp") p.tp = parse_int(k, v, 1, kMax);
    else if (k == "pp") p.pp = parse_int(k, v, 1, kMax);
    else if (k == "vp") p.vp = parse_int(k, v, 1, 1024);
    else if (k == "cp") p.cp = parse_int(k, v, 1, kMax);
    else if (k == "ep") p.ep = parse_int(k, v, 1, kMax);
    else if (k == "etp") p.etp = parse_int(k, v, 1, kMax);
    else if (k == "dp") p.dp = parse_int(k, v, 1, kMax);
    else if (k == "mbs") p.mbs = parse_int(k, v, 1, 1 << 16);
    else if (k == "recompute_layers") p.recompute_layers = parse_int(k, v, 0, 100000);
    else if (k == "zero") p.zero = parse_int(k, v, 0, 3);
    else if (k == "sp") p.sequence_parallel = parse_bool(k, v);
    else if (k == "tp_overlap") p.tp_comm_overlap = parse_bool(k, v);
    else if (k == "dp_overlap") p.dp_overlap = parse_bool(k, v);
    else if (k == "ep_overlap") p.ep_overlap = parse_bool(k, v);
    else if (k == "dist_opt") p.distributed_optimizer = parse_bool(k, v);
    else if (k == "recompute") {
      if (v == "none" || v == "0") p.recompute = Recompute::none;
      else if (v == "selective") p.recompute = Recompute::selective;
      else if (v == "full") p.recompute = Recompute::full;
      else throw InputError("--plan.recompute", fmt::format("must be none, selective or full, got '{}'", v));
    } else {
      throw InputError("--plan." + k, "unknown plan key" + did_you_mean(k, keys) +
                                          fmt::format("; allowed: {}", fmt::join(keys, ", ")));
    }
  }
  return p;
}

std::string to_string(const TrainingPlan& p) {
  return fmt::format("tp={},pp={},vp={},cp={},ep={},dp={},mbs={},recompute={},zero={},sp={}", p.tp, p.pp,
                     p.vp, p.cp, p.ep, p.dp, p.mbs, to_string(p.recompute), p.zero,
                     p.sequence_parallel ? 1 : 0);
}

}  // namespace gpuplan
