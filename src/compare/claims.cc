#include "compare/claims.h"

#include <fmt/format.h>

#include <algorithm>

#include "core/embedded_data.h"
#include "core/error.h"
#include "core/yaml_reader.h"
#include "core/yaml_tree.h"

namespace gpuplan::compare {

const char* to_string(ClaimMetric m) {
  switch (m) {
    case ClaimMetric::throughput_at_interactivity: return "throughput_at_interactivity";
    case ClaimMetric::max_throughput: return "max_throughput";
    case ClaimMetric::factory_output: return "factory_output";
    case ClaimMetric::training_throughput: return "training_throughput";
  }
  return "?";
}

namespace {

Precision read_precision(YamlMap& m, const std::string& key) {
  const std::string s = m.str(key);
  auto p = parse_precision(s);
  if (!p) throw InputError(m.path() + "." + key, "must be bf16, fp8, mxfp8, nvfp4 or fp4, got '" + s + "'");
  return *p;
}

std::vector<Claim> parse_claims_document(const YAML::Node& doc, const std::string& origin) {
  YamlMap root(doc, origin);
  if (auto s = root.opt_str("schema"); s && *s != "gpuplan.claims/v1")
    throw InputError(origin + ": schema", "must be gpuplan.claims/v1, got '" + *s + "'");
  std::vector<Claim> out;
  for (YamlMap c : root.map_list("claims")) {
    Claim k;
    k.id = c.str("id");
    k.system_a = c.str("system_a");
    k.system_b = c.str("system_b");
    k.claimed_ratio = c.num_in("claimed_ratio", 0, 1e6);
    k.statement = c.str("statement");
    k.conditions = c.opt_str("conditions").value_or("");
    k.source = c.str("source");
    k.model = c.str("model");
    const std::string metric = c.str("metric");
    if (metric == "throughput_at_interactivity") k.metric = ClaimMetric::throughput_at_interactivity;
    else if (metric == "max_throughput") k.metric = ClaimMetric::max_throughput;
    else if (metric == "factory_output") k.metric = ClaimMetric::factory_output;
    else if (metric == "training_throughput") k.metric = ClaimMetric::training_throughput;
    else
      throw InputError(c.path() + ".metric", "must be throughput_at_interactivity, max_throughput, factory_output or "
                                             "training_throughput, got '" + metric + "'");
    k.isl = c.opt_integer_in("isl", 1, 10'000'000).value_or(k.isl);
    k.osl = c.opt_integer_in("osl", 1, 10'000'000).value_or(k.osl);
    k.tokens_per_s_per_user = c.opt_num_in("tokens_per_s_per_user", 0, 1e6).value_or(0);
    k.tpot_s = c.opt_num_in("tpot_ms", 0, 1e7).value_or(0) / 1e3;
    k.ttft_s = c.opt_num_in("ttft_ms", 0, 1e8).value_or(0) / 1e3;
    k.stated_a = c.opt_num_in("stated_a", 0, 1e12).value_or(0);
    k.stated_b = c.opt_num_in("stated_b", 0, 1e12).value_or(0);
    k.precision_a = read_precision(c, "precision_a");
    k.precision_b = read_precision(c, "precision_b");
    k.gpus_a = static_cast<int>(c.opt_integer_in("gpus_a", 0, 1 << 20).value_or(0));
    k.gpus_b = static_cast<int>(c.opt_integer_in("gpus_b", 0, 1 << 20).value_or(0));
    k.seq_len = static_cast<int>(c.opt_integer_in("seq_len", 1, 10'000'000).value_or(k.seq_len));
    if (k.metric == ClaimMetric::throughput_at_interactivity && k.tokens_per_s_per_user == 0 && k.tpot_s == 0)
      throw InputError(c.path(), "throughput_at_interactivity needs tokens_per_s_per_user or tpot_ms");
    if (k.metric == ClaimMetric::training_throughput && (k.gpus_a == 0 || k.gpus_b == 0))
      throw InputError(c.path(), "training_throughput needs gpus_a and gpus_b");
    c.reject_unknown_keys();
    out.push_back(std::move(k));
  }
  root.reject_unknown_keys();
  return out;
}

}  // namespace

std::vector<Claim> parse_claims(const std::string& text, const std::string& origin) {
  return parse_claims_document(parse_yaml(text, origin), origin);
}

const std::vector<Claim>& builtin_claims() {
  static const std::vector<Claim> claims = [] {
    for (const auto& f : embedded_data_files())
      if (f.path == "compare/claims.yaml") return parse_claims_document(embedded_yaml(f), "compare/claims.yaml");
    throw InputError("compare/claims.yaml", "not embedded in this build");
  }();
  return claims;
}

namespace {

struct SideValue {
  bool ok = false;
  double value = 0;
  bool disaggregated = false;
  std::string plan;
  std::string why_not;
};

InferenceWorkload claim_workload(const Claim& k, Precision p, int gpus, double mtp_accept) {
  return serving_workload(p, k.isl, k.osl, gpus, mtp_accept);  // the shared setup (operating_point.h)
}

std::string plan_text(const SweepPoint& p) {
  if (p.disaggregated || p.mtp_draft_tokens > 0)
    return fmt::format("{}: {}, {} in flight", p.kind(), p.plan(), p.concurrency);
  return fmt::format("tp={} ep={} pp={}{} x{} instances, {} in flight", p.parallel.tp, p.parallel.ep,
                     p.parallel.pp, p.parallel.attention_dp ? " attention-dp" : "", p.result.instances, p.concurrency);
}

SideValue side_value(const Claim& k, const ModelArch& m, const SystemSide& s, Precision p, int gpus,
                     double mtp_accept) {
  SideValue v;
  if (s.hw.accelerator.peak(gemm_format(p)) <= 0) {
    v.why_not = fmt::format("{} has no {} tensor path", s.accelerator, to_string(p));
    return v;
  }
  if (k.metric == ClaimMetric::training_throughput) {
    TrainingWorkload w;
    w.num_gpus = gpus;
    w.seq_len = k.seq_len;
    w.global_batch = gpus;
    w.precision = p;
    const TrainingPick t = best_training(m, s.hw, w);
    if (!t.found) {
      v.why_not = t.why_not;
      return v;
    }
    v.ok = true;
    v.value = t.result.tokens_per_s_per_gpu;
    v.plan = to_string(t.plan);
    return v;
  }
  const SweepOptions so = serving_sweep(m, k.ttft_s, k.tpot_s, gpus > s.gpus_per_unit ? 16 : 1);
  const ServingCurve c = serving_curve(m, s.hw, claim_workload(k, p, gpus, mtp_accept), so);
  const SweepPoint* pt = nullptr;
  switch (k.metric) {
    case ClaimMetric::throughput_at_interactivity: {
      const double x = std::max(k.tokens_per_s_per_user, k.tpot_s > 0 ? 1.0 / k.tpot_s : 0.0);
      pt = at_interactivity(c, x * 0.999);
      if (pt) v.value = pt->result.tokens_per_s_per_gpu;
      break;
    }
    case ClaimMetric::max_throughput:
      pt = max_throughput(c);
      if (pt) v.value = pt->result.tokens_per_s_per_gpu;
      break;
    case ClaimMetric::factory_output: {
      const double kw_per_gpu = s.tco.it_w_full_per_gpu() / 1e3;
      for (const auto& q : c.frontier) {
        const double f = q.result.tokens_per_s_per_user * q.result.tokens_per_s_per_gpu / kw_per_gpu * 1e3;
        if (!pt || f > v.value) {
          pt = &q;
          v.value = f;
        }
      }
      break;
    }
    case ClaimMetric::training_throughput: break;
  }
  if (!pt) {
    v.why_not = c.frontier.empty() ? "no serving plan fits in memory" : "never meets the latency conditions";
    return v;
  }
  v.ok = true;
  v.disaggregated = pt->disaggregated;
  v.plan = plan_text(*pt);
  return v;
}

}  // namespace

bool off_by_more_than_2x(double model_value, double stated) {
  if (!(stated > 0) || !(model_value > 0)) return stated > 0;  // stated, but the side gave nothing
  return model_value > kClaimOffFactor * stated || model_value * kClaimOffFactor < stated;
}

ClaimResult evaluate_claim(const Claim& k, const ModelArch& m, const SystemSide& a, const SystemSide& b,
                           double mtp_accept) {
  ClaimResult r;
  r.claim = k;
  r.unit = k.metric == ClaimMetric::factory_output ? "tokens/s/user x tokens/s per MW" : "tokens/s per GPU";
  const int ga = k.gpus_a > 0 ? k.gpus_a : a.gpus_per_unit;
  const int gb = k.gpus_b > 0 ? k.gpus_b : b.gpus_per_unit;
  const SideValue va = side_value(k, m, a, k.precision_a, ga, mtp_accept);
  const SideValue vb = side_value(k, m, b, k.precision_b, gb, mtp_accept);
  if (!va.ok || !vb.ok) {
    r.why_not = !va.ok ? fmt::format("{}: {}", a.system, va.why_not) : fmt::format("{}: {}", b.system, vb.why_not);
    return r;
  }
  r.evaluated = true;
  r.a = va.value;
  r.b = vb.value;
  r.plan_a = va.plan;
  r.plan_b = vb.plan;
  r.gpus_a = ga;
  r.gpus_b = gb;
  r.disaggregated_a = va.disaggregated;
  r.disaggregated_b = vb.disaggregated;
  r.ratio = r.a / r.b;
  r.off_a = off_by_more_than_2x(r.a, k.stated_a);
  r.off_b = off_by_more_than_2x(r.b, k.stated_b);
  if (k.precision_a != k.precision_b) {
    const SideValue same = side_value(k, m, a, k.precision_b, ga, mtp_accept);
    if (same.ok) r.ratio_same_precision = same.value / r.b;
  }
  if (a.tco.priced && b.tco.priced)
    r.ratio_per_usd = r.ratio / (a.tco.usd_per_gpu_hour() / b.tco.usd_per_gpu_hour());
  if (k.metric != ClaimMetric::factory_output)  // factory output is per MW already
    r.ratio_per_watt = r.ratio / (a.tco.it_w_full_per_gpu() / b.tco.it_w_full_per_gpu());
  else
    r.ratio_per_watt = r.ratio;
  return r;
}

}  // namespace gpuplan::compare
