#include "plan/plan.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <vector>

#include "core/error.h"
#include "core/key_values.h"
#include "core/suggest.h"

namespace gpuplan {

namespace {

const char* dim_name(Dim d) {
  switch (d) {
    case Dim::tp: return "tp";
    case Dim::cp: return "cp";
    case Dim::ep: return "ep";
    case Dim::dp: return "dp";
    case Dim::pp: return "pp";
  }
  return "?";
}

}  // namespace


std::string to_string(const RankOrder& o) {
  std::string s;
  for (Dim d : o) s += std::string(s.empty() ? "" : "-") + dim_name(d);
  return s;
}

GroupStrides group_strides(const TrainingPlan& p, int num_gpus) {
  const long long mp = 1LL * p.tp * p.cp * p.pp;
  const int dp = std::max(1, static_cast<int>(num_gpus / std::max(1LL, mp)));
  const int edp = std::max(1, static_cast<int>((1LL * dp * p.cp * p.tp) / std::max(1, p.ep * p.etp)));
  GroupStrides g;
  // Dense grid: EP does not exist there (it folds inside DP).
  int stride = 1;
  for (Dim d : p.order) {
    switch (d) {
      case Dim::tp: g.tp = stride; stride *= p.tp; break;
      case Dim::cp: g.cp = stride; stride *= p.cp; break;
      case Dim::dp: g.dp = stride; stride *= dp; break;
      case Dim::pp: g.pp = stride; stride *= p.pp; break;
      case Dim::ep: break;
    }
  }
  // Expert grid: etp takes TP's place, edp DP's; CP folds into edp.
  stride = 1;
  for (Dim d : p.order) {
    switch (d) {
      case Dim::tp: stride *= p.etp; break;
      case Dim::ep: g.ep = stride; stride *= p.ep; break;
      case Dim::dp: g.edp = stride; stride *= edp; break;
      case Dim::cp:
      case Dim::pp: break;
    }
  }
  return g;
}

std::string_view to_string(Recompute r) {
  switch (r) {
    case Recompute::none: return "none";
    case Recompute::selective: return "selective";
    case Recompute::full: return "full";
    case Recompute::modules: return "modules";
  }
  return "?";
}

std::string_view to_string(CpKind k) { return k == CpKind::a2a ? "a2a" : "ring"; }
std::string_view to_string(MoeDispatcher d) { return d == MoeDispatcher::alltoall ? "alltoall" : "flex"; }

namespace {

RankOrder parse_order(const std::string& v) {
  RankOrder o{};
  std::array<bool, 5> seen{};
  size_t pos = 0, i = 0;
  while (pos <= v.size()) {
    size_t end = v.find('-', pos);
    if (end == std::string::npos) end = v.size();
    const std::string name = v.substr(pos, end - pos);
    int idx = -1;
    for (int d = 0; d < 5; ++d)
      if (name == dim_name(static_cast<Dim>(d))) idx = d;
    if (idx < 0 || i >= 5 || seen[static_cast<size_t>(idx)])
      throw InputError("--plan.order", fmt::format("must name tp, cp, ep, dp and pp once each, innermost first "
                                                   "(e.g. tp-cp-ep-dp-pp), got '{}'", v));
    seen[static_cast<size_t>(idx)] = true;
    o[i++] = static_cast<Dim>(idx);
    pos = end + 1;
  }
  if (i != 5) throw InputError("--plan.order", fmt::format("must name all of tp, cp, ep, dp, pp, got '{}'", v));
  return o;
}

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
                                                "recompute", "recompute_layers", "offload_layers", "zero", "sp",
                                                "tp_overlap", "dp_overlap", "ep_overlap", "dist_opt", "order",
                                                "moments", "moe_act_fp8", "combine_from_act", "cp_kind", "dispatcher"};
  // No plan text: the base plan.
  for (const auto& item : key_value_items(text, "--plan", "tp=8,pp=2")) {
    const std::string &k = item.first, &v = item.second;
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
    else if (k == "offload_layers") p.offload_layers = parse_int(k, v, 0, 100000);
    else if (k == "zero") p.zero = parse_int(k, v, 0, 3);
    else if (k == "sp") p.sequence_parallel = parse_bool(k, v);
    else if (k == "tp_overlap") p.tp_comm_overlap = parse_bool(k, v);
    else if (k == "dp_overlap") p.dp_overlap = parse_bool(k, v);
    else if (k == "ep_overlap") p.ep_overlap = parse_bool(k, v);
    else if (k == "dist_opt") p.distributed_optimizer = parse_bool(k, v);
    else if (k == "order") p.order = parse_order(v);
    else if (k == "moe_act_fp8") p.moe_act_fp8 = parse_bool(k, v);
    else if (k == "combine_from_act") p.combine_from_act = parse_bool(k, v);
    else if (k == "cp_kind") {
      if (v == "ring" || v == "p2p") p.cp_kind = CpKind::ring;
      else if (v == "a2a" || v == "ulysses") p.cp_kind = CpKind::a2a;
      else throw InputError("--plan.cp_kind", fmt::format("must be ring or a2a (context-parallel exchange), got '{}'", v));
    }
    else if (k == "dispatcher") {
      if (v == "flex" || v == "deepep" || v == "hybridep") p.dispatcher = MoeDispatcher::flex;
      else if (v == "alltoall") p.dispatcher = MoeDispatcher::alltoall;
      else throw InputError("--plan.dispatcher", fmt::format("must be flex (DeepEP, HybridEP) or alltoall (MoE token dispatcher), got '{}'", v));
    }
    else if (k == "moments") {
      if (v == "fp32") p.bf16_moments = false;
      else if (v == "bf16") p.bf16_moments = true;
      else throw InputError("--plan.moments", fmt::format("must be fp32 or bf16 (Adam's moments), got '{}'", v));
    }
    else if (k == "recompute") {
      if (v == "none" || v == "0") p.recompute = Recompute::none;
      else if (v == "selective") p.recompute = Recompute::selective;
      else if (v == "full") p.recompute = Recompute::full;
      else if (v == "modules") p.recompute = Recompute::modules;
      else throw InputError("--plan.recompute", fmt::format("must be none, selective, modules or full, got '{}'", v));
    } else {
      throw InputError("--plan." + k, "unknown plan key" + did_you_mean(k, keys) +
                                          fmt::format("; allowed: {}", fmt::join(keys, ", ")));
    }
  }
  return p;
}

std::string to_string(const TrainingPlan& p) {
  std::string s = fmt::format("tp={},pp={},vp={},cp={},ep={},dp={},mbs={},recompute={},zero={},sp={}", p.tp,
                              p.pp, p.vp, p.cp, p.ep, p.dp, p.mbs, to_string(p.recompute), p.zero,
                              p.sequence_parallel ? 1 : 0);
  if (p.recompute == Recompute::full && p.recompute_layers > 0)
    s += fmt::format(",recompute_layers={}", p.recompute_layers);
  if (p.offload_layers > 0) s += fmt::format(",offload_layers={}", p.offload_layers);
  if (p.cp > 1 && p.cp_kind == CpKind::a2a) s += ",cp_kind=a2a";
  if (p.etp != 1) s += fmt::format(",etp={}", p.etp);
  if (p.order != kDefaultRankOrder) s += ",order=" + to_string(p.order);
  if (p.bf16_moments) s += ",moments=bf16";
  if (p.moe_act_fp8) s += ",moe_act_fp8=1";
  if (p.combine_from_act) s += ",combine_from_act=1";
  if (p.dispatcher == MoeDispatcher::alltoall) s += ",dispatcher=alltoall";
  return s;
}

}  // namespace gpuplan
