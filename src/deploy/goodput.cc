#include "deploy/goodput.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace gpuplan::deploy {

double young_interval_s(double checkpoint_s, double mtbf_s) { return std::sqrt(2.0 * checkpoint_s * mtbf_s); }

double daly_interval_s(double d, double m) {
  if (d >= 2.0 * m) return m;
  return std::sqrt(2.0 * d * m) * (1.0 + std::sqrt(d / (2.0 * m)) / 3.0 + d / (18.0 * m)) - d;
}

double goodput_fraction(double tau, double delta, double restart_s, double mtbf_s) {
  return time_shares(tau, delta, restart_s, mtbf_s).useful;
}

TimeShares time_shares(double tau, double delta, double restart_s, double mtbf_s) {
  TimeShares t;
  if (delta < 0 || restart_s < 0 || mtbf_s <= 0) return t;
  if (tau <= 0) {
    if (delta > 0) return t;
    // Free checkpoints: checkpoint continuously, lose only the restarts (the limit tau -> 0).
    t.useful = mtbf_s / (mtbf_s + restart_s);
    t.down = 1 - t.useful;
    return t;
  }
  // Expected failures per kept interval: e^x - 1; each costs restart_s down and the time run since
  // the last checkpoint. Expected wall time per kept interval: (M + R)(e^x - 1).
  const double failures = std::expm1((tau + delta) / mtbf_s);
  const double wall = (mtbf_s + restart_s) * failures;
  if (!(wall > 0) || !std::isfinite(wall)) {
    t.down = restart_s / (mtbf_s + restart_s);
    t.rework = 1 - t.down;
    return t;
  }
  t.useful = tau / wall;
  t.checkpoint = delta / wall;
  t.down = restart_s / (mtbf_s + restart_s);
  t.rework = std::max(0.0, 1.0 - t.useful - t.checkpoint - t.down);
  return t;
}

int blast_gpus(Blast blast, const JobShape& s) {
  switch (blast) {
    case Blast::none: return 0;
    case Blast::domain: return s.domain_gpus;
    case Blast::node: {
      const int g = std::max(1, s.group_gpus);
      const int left = std::max(0, s.domain_gpus - s.gpus_per_node);
      return s.domain_gpus - (left / g) * g;
    }
  }
  return 0;
}

namespace {

// Smallest k with P(Poisson(mean) <= k) >= p.
int poisson_quantile(double mean, double p) {
  double term = std::exp(-mean), cdf = term;
  int k = 0;
  while (cdf < p && k < 100000) {
    ++k;
    term *= mean / k;
    cdf += term;
  }
  return k;
}

Scenario finish(const GoodputResult& r, const GoodputInputs& in, double restart_s, int spare_units) {
  Scenario s;
  s.restart_s = restart_s;
  s.shares = time_shares(r.daly_interval_s, r.checkpoint_s, restart_s, r.mtbf_s);
  s.goodput = s.shares.useful;
  s.effective_tokens_per_s = in.tokens_per_s * s.goodput;
  s.spare_units = spare_units;
  s.spare_gpus = spare_units * in.shape.unit_gpus;
  if (s.goodput > 0 && r.useful_s > 0) {
    s.wall_s = r.useful_s / s.goodput;
    s.gpu_hours = (in.shape.gpus + s.spare_gpus) * s.wall_s / 3600.0;
    s.cost_usd = s.gpu_hours * in.usd_per_gpu_hour;
  }
  return s;
}

}  // namespace

GoodputResult evaluate_goodput(const FailureModel& f, const GoodputInputs& in) {
  GoodputResult r;
  const JobShape& s = in.shape;
  if (s.gpus < 1 || s.gpus_per_node < 1 || s.domain_gpus < s.gpus_per_node || s.unit_gpus < 1) {
    r.violations.push_back({"goodput.shape", "gpus", "the job shape is inconsistent (GPUs, node, domain, unit)"});
    return r;
  }
  const double nodes = static_cast<double>(s.gpus) / s.gpus_per_node;
  const bool multinode_domain = s.domain_gpus > s.gpus_per_node;
  double weighted_repair = 0, down_gpus = 0;
  for (const auto& c : f.classes) {
    if (c.multinode_domains_only && !multinode_domain) continue;
    ClassRate cr;
    cr.name = c.name;
    cr.failures_per_hour = c.rate_per_hour * (c.per == RateUnit::gpu ? s.gpus : nodes);
    cr.blast_gpus = std::min(blast_gpus(c.blast, s), s.gpus);
    cr.repair_s = cr.blast_gpus > 0 ? c.repair_s : 0;
    cr.source = c.source;
    r.failures_per_hour += cr.failures_per_hour;
    weighted_repair += cr.failures_per_hour * cr.repair_s;
    // A failure drains at most one unit here (blast <= domain <= unit for catalog systems).
    if (cr.blast_gpus > 0) {
      r.hardware_down_units += cr.failures_per_hour / 3600.0 * cr.repair_s;
      down_gpus += cr.failures_per_hour / 3600.0 * cr.repair_s * cr.blast_gpus;
    }
    r.classes.push_back(cr);
  }
  r.mtbf_s = r.failures_per_hour > 0 ? 3600.0 / r.failures_per_hour : 1e300;
  r.checkpoint_bytes = in.params * f.checkpoint_bytes_per_param;
  r.checkpoint_s = in.checkpoint_s > 0 ? in.checkpoint_s
                                       : r.checkpoint_bytes / (f.write_bytes_per_s_per_gpu * s.gpus);
  r.young_interval_s = young_interval_s(r.checkpoint_s, r.mtbf_s);
  r.daly_interval_s = daly_interval_s(r.checkpoint_s, r.mtbf_s);
  r.useful_s = in.tokens_per_s > 0 ? in.tokens / in.tokens_per_s : 0;
  // Concurrent failures at the 99th percentile, each draining the mean blast radius; a spare unit's
  // GPUs take any group that fits (groups remap inside a domain), so spares are GPUs rounded up to units.
  const double mean_blast = r.hardware_down_units > 0 ? down_gpus / r.hardware_down_units : 0;
  r.spare_gpus_needed = poisson_quantile(r.hardware_down_units, 0.99) * mean_blast;
  const int spares = std::max(1, static_cast<int>(std::ceil(r.spare_gpus_needed / s.unit_gpus - 1e-9)));
  r.with_spares = finish(r, in, f.restart_s, spares);
  // No spares: a synchronous job needs its whole shape back, so a hardware failure costs the restart
  // plus the repair of what it drained; a software failure only the restart.
  r.mean_repair_s = r.failures_per_hour > 0 ? weighted_repair / r.failures_per_hour : 0;
  r.without_spares = finish(r, in, f.restart_s + r.mean_repair_s, 0);
  if (r.checkpoint_s >= 2 * r.mtbf_s)
    r.violations.push_back({"goodput.checkpoint_exceeds_mtbf", "job",
                            fmt::format("a checkpoint takes {:.0f} s, more than twice the job's MTBF of {:.0f} s: "
                                        "the job rarely completes an interval (goodput {:.2g}%)",
                                        r.checkpoint_s, r.mtbf_s, 100 * r.with_spares.goodput)});
  return r;
}

GoodputResult training_run_goodput(const JobShape& shape, double params, double tokens_per_s, double tokens) {
  GoodputInputs gi;
  gi.shape = shape;
  gi.params = params;
  gi.tokens_per_s = tokens_per_s;
  gi.tokens = tokens;
  return evaluate_goodput(builtin_failure_model(), gi);
}

}  // namespace gpuplan::deploy
