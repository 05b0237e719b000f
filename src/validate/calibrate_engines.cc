// calibrate's per-engine serving fits (validate/calibrate.h): the front ends' latency, the MTP
// acceptance and SGLang's MTP host work, the host work per sequence, and the MoE GEMM share.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <tuple>
#include <utility>

#include "core/text.h"
#include "validate/calibrate.h"
#include "validate/calibrate_rows.h"
#include "validate/validation.h"

namespace gpuplan {

using calibrate_rows::abs_log;
using calibrate_rows::ape_pct;
using calibrate_rows::front_end_owner;
using calibrate_rows::median_of;
using calibrate_rows::ttft_waits_for_decode_slots;

bool ttft_beyond_steady_state(double reported_s, double predicted_bare_s, long long clients) {
  return reported_s > double(std::max(1LL, clients)) * std::max(0.0, predicted_bare_s) + kFrontEndBoundS;
}

namespace {

// The share on the grid 1.00, 0.99, ..., lowest_percent / 100 minimising `loss(share)` (the first of
// equal losses, from 1 down: the fit moves off the reference only where the rows ask for it).
template <class Loss>
double share_on_grid(Loss&& loss, int lowest_percent) {
  double best_share = 1.0, best = loss(1.0);
  for (int i = 99; i >= lowest_percent; --i) {
    const double l = loss(i / 100.0);
    if (l < best - 1e-12) {
      best = l;
      best_share = i / 100.0;
    }
  }
  return best_share;
}

// The SGLang worker's mtp_host_step_s and mtp_host_per_seq_step_s: a grid of 0-10 ms (0.25 ms) by
// 0-200 us (5 us) minimising the mean min(2, |log(pred/reported)|) of the TPOT and tokens/s per user
// of the MTP cases whose speculative worker runs in series with the GPU; every other case is held out.
// The entry is the one the front-end fit returned, if any, so that both land in the written catalog.
void fit_mtp_host(std::vector<InferenceCase>& cases, const Catalog& catalog, std::vector<EngineFit>& fits) {
  const ServingEngine* sg = catalog.find_serving_engine("sglang");
  if (!sg) return;
  std::vector<InferenceCase*> rows;
  size_t held = 0;
  for (auto& c : cases) {
    if (c.workload.mtp_draft_tokens > 0 && c.workload.mtp_host_in_series &&
        (c.metric == "tpot_ms" || c.metric == "tokens_per_sec_per_user"))
      rows.push_back(&c);
    else if (c.metric != "p99_ttft_ms")  // the opening waves' p99s are a fit signal, not a figure held out
      ++held;
  }
  if (rows.empty()) return;
  EngineFit* base = nullptr;
  for (auto& f : fits)
    if (f.after.name == sg->name) base = &f;
  EngineFit fit;
  fit.before = fit.after = base ? base->after : *sg;
  fit.fit_rows = rows.size();
  fit.held_out_rows = held;
  fit.mtp_host_fit = true;
  // x = {step, per sequence, eager draft extend}, seconds.
  auto loss = [&](const std::array<double, 3>& x, std::vector<double>* apes) {
    double sum = 0;
    for (auto* c : rows) {
      c->workload.mtp_host_step_s = x[0];
      c->workload.mtp_host_per_seq_step_s = x[1];
      c->workload.mtp_eager_draft_extend_s = x[2];
      sum += abs_log(*c);
      if (apes) apes->push_back(ape_pct(*c));
    }
    return sum / double(rows.size());
  };
  std::array<double, 3> x = {fit.before.mtp_host_step_s, fit.before.mtp_host_per_seq_step_s,
                             fit.before.mtp_eager_draft_extend_s};
  std::vector<double> apes;
  double best = loss(x, &apes);
  fit.median_ape_before = median_of(apes);
  // Coordinate descent over grids of 0-10 ms (0.1 ms), 0-200 us (1 us) and 0-20 ms (0.1 ms), from the
  // catalog's values, until a round changes nothing.
  const std::array<double, 3> unit = {1e-4, 1e-6, 1e-4};
  const std::array<int, 3> steps = {100, 200, 200};
  for (int round = 0; round < 20; ++round) {
    bool moved = false;
    for (size_t k = 0; k < 3; ++k) {
      for (int g = 0; g <= steps[k]; ++g) {
        std::array<double, 3> t = x;
        t[k] = g * unit[k];
        const double l = loss(t, nullptr);
        if (l < best - 1e-12) {
          best = l;
          x = t;
          moved = true;
        }
      }
    }
    if (!moved) break;
  }
  apes.clear();
  loss(x, &apes);
  fit.after.mtp_host_step_s = x[0];
  fit.after.mtp_host_per_seq_step_s = x[1];
  fit.after.mtp_eager_draft_extend_s = x[2];
  fit.median_ape_after = median_of(apes);
  // Every SGLang-worker MTP case (held-out ones included) carries the fitted figures.
  for (auto& c : cases)
    if (c.workload.mtp_draft_tokens > 0 && c.workload.mtp_host_in_series) {
      c.workload.mtp_host_step_s = x[0];
      c.workload.mtp_host_per_seq_step_s = x[1];
      c.workload.mtp_eager_draft_extend_s = x[2];
    }
  fits.push_back(fit);  // after the front-end fit of the same entry, whose figures it carries
}

// Engine `e`'s front end (the time before prefill) fitted as the median residual of its TTFT rows at
// <= max_fit_concurrency clients that `fits_row` admits, in steady state and not waiting for decode slots;
// every row of the engine then carries it. False (fit untouched) without such rows.
template <class RowFilter>
bool fit_front_end(const ServingEngine& e, std::vector<InferenceCase>& cases, const Catalog& catalog,
                   long long max_fit_concurrency, RowFilter&& fits_row, EngineFit& fit) {
  EngineFit out;
  out.before = out.after = e;
  std::vector<InferenceCase*> mine, fitted;
  std::vector<double> residual_s, apes_before;
  for (auto& c : cases) {
    if (front_end_owner(catalog, c) != &e) continue;
    mine.push_back(&c);
    if (c.metric != "ttft_ms") continue;
    if (!fits_row(c) || c.workload.concurrency > max_fit_concurrency || ttft_waits_for_decode_slots(c)) {
      ++out.held_out_rows;
      continue;
    }
    InferenceCase bare = c;
    bare.workload.request_overhead_s = 0;
    const double bare_s = predict_inference_case(bare) * 1e-3;
    if (ttft_beyond_steady_state(c.reported * 1e-3, bare_s, c.workload.concurrency)) {
      ++out.not_steady_rows;
      continue;
    }
    fitted.push_back(&c);
    apes_before.push_back(ape_pct(c));
    residual_s.push_back(c.reported * 1e-3 - bare_s);
  }
  if (residual_s.empty()) return false;
  out.fit_rows = fitted.size();
  out.after.request_overhead_s = std::max(0.0, median_of(residual_s));
  for (auto* c : mine) c->workload.request_overhead_s = out.after.request_overhead_s;
  std::vector<double> apes_after;
  for (auto* c : fitted) apes_after.push_back(ape_pct(*c));
  out.median_ape_before = median_of(apes_before);
  out.median_ape_after = median_of(apes_after);
  fit = out;
  return true;
}

}  // namespace

std::vector<EngineFit> calibrate_engines(std::vector<InferenceCase>& cases, const Catalog& catalog,
                                         long long max_fit_concurrency) {
  std::vector<EngineFit> fits;
  // Front ends, one engine at a time.
  for (const ServingEngine& e : catalog.serving_engines()) {
    // An engine sharing another's front end (front_end_of) has no figure of its own: its rows count
    // towards that engine's.
    if (!e.front_end_of.empty()) continue;
    EngineFit fit;
    if (fit_front_end(e, cases, catalog, max_fit_concurrency, [](const InferenceCase&) { return true; }, fit))
      fits.push_back(fit);
  }
  // MTP acceptance (the default entry), on the MTP cases' TPOT and tokens/s per user.
  std::vector<InferenceCase*> mtp;
  size_t held = 0;
  for (auto& c : cases) {
    if (c.workload.mtp_draft_tokens > 0 && (c.metric == "tpot_ms" || c.metric == "tokens_per_sec_per_user"))
      mtp.push_back(&c);
    else if (c.metric != "p99_ttft_ms")  // the opening waves' p99s are a fit signal, not a figure held out
      ++held;
  }
  if (!mtp.empty()) {
    EngineFit fit;
    fit.before = fit.after = catalog.default_serving_engine();
    fit.fit_rows = mtp.size();
    fit.held_out_rows = held;
    auto loss = [&](double a, std::vector<double>* apes) {
      std::vector<double> errs;
      for (auto* c : mtp) {
        c->workload.mtp_accept = a;
        errs.push_back(abs_log(*c));
        if (apes) apes->push_back(ape_pct(*c));
      }
      return median_of(errs);
    };
    std::vector<double> apes;
    loss(*fit.before.mtp_accept, &apes);
    fit.median_ape_before = median_of(apes);
    double best_a = *fit.before.mtp_accept, best = loss(best_a, nullptr);
    // Steps of 0.005: at 0.01 the median's flat steps left the serving chain (scripts/refit-serving.sh)
    // alternating between 0.63 and 0.64 with blackwell_ultra's prefill fit following.
    for (int i = 60; i <= 180; ++i) {
      const double a = i / 200.0, l = loss(a, nullptr);
      if (l < best - 1e-12) {
        best = l;
        best_a = a;
      }
    }
    apes.clear();
    loss(best_a, &apes);
    fit.after.mtp_accept = best_a;
    fit.median_ape_after = median_of(apes);
    fits.push_back(fit);
  }
  // SGLang's speculative worker's host work per step where it runs in series with the GPU
  // (InferenceWorkload::mtp_host_in_series), on those MTP cases' TPOT and tokens/s per user.
  fit_mtp_host(cases, catalog, fits);
  return fits;
}

std::vector<EngineFit> calibrate_engine_host(std::vector<InferenceCase>& cases, const Catalog& catalog,
                                             const std::vector<std::string>& fit_sources) {
  std::vector<EngineFit> fits;
  const auto is_fit_source = [&](const std::string& s) {
    return fit_sources.empty() || std::find(fit_sources.begin(), fit_sources.end(), s) != fit_sources.end();
  };
  for (const ServingEngine& e : catalog.serving_engines()) {
    std::vector<InferenceCase*> fit_cases, held;
    for (auto& c : cases) {
      const bool throughput = c.metric.rfind("tokens_per_sec", 0) == 0 && c.metric != "tokens_per_sec_per_user";
      if (!throughput || c.mode != InferenceMode::fixed || c.workload.concurrency != 0) continue;
      if (catalog.find_serving_engine(c.engine) != &e) continue;
      (is_fit_source(c.source_id) ? fit_cases : held).push_back(&c);
    }
    if (fit_cases.empty()) continue;
    EngineFit fit;
    fit.before = fit.after = e;
    fit.fit_rows = fit_cases.size();
    fit.held_out_rows = held.size();
    auto loss = [&](double host_s, std::vector<double>* apes) {
      double sum = 0;
      for (auto* c : fit_cases) {
        c->workload.host_per_seq_step_s = host_s;
        sum += abs_log(*c);
        if (apes) apes->push_back(ape_pct(*c));
      }
      return sum / double(fit_cases.size());
    };
    std::vector<double> apes;
    loss(e.host_per_seq_step_s, &apes);
    fit.median_ape_before = median_of(apes);
    double best_s = 0, best = loss(0, nullptr);
    for (int us = 1; us <= 100; ++us) {
      const double l = loss(us * 1e-6, nullptr);
      if (l < best - 1e-12) {
        best = l;
        best_s = us * 1e-6;
      }
    }
    apes.clear();
    loss(best_s, &apes);
    fit.after.host_per_seq_step_s = best_s;
    fit.median_ape_after = median_of(apes);
    for (auto* c : held) c->workload.host_per_seq_step_s = best_s;
    fits.push_back(fit);
  }
  return fits;
}

std::vector<EngineReleaseFit> calibrate_engine_releases(std::vector<InferenceCase>& cases, const Catalog& catalog,
                                                        size_t min_rows) {
  std::vector<EngineReleaseFit> fits;
  for (const ServingEngine& e : catalog.serving_engines()) {
    if (e.newest_release.empty()) continue;
    std::map<std::string, std::vector<InferenceCase*>> by_release;
    for (auto& c : cases) {
      const bool throughput = c.metric.rfind("tokens_per_sec", 0) == 0 && c.metric != "tokens_per_sec_per_user";
      if (!throughput || c.mode != InferenceMode::fixed || c.workload.concurrency != 0 || !c.model.is_moe()) continue;
      if (catalog.find_serving_engine(c.engine) != &e) continue;
      const std::string r = framework_release(c.engine);
      if (r.empty() || to_lower(r) == to_lower(e.newest_release)) continue;
      by_release[r].push_back(&c);
    }
    for (auto& [release, rows] : by_release) {
      if (rows.size() < min_rows) continue;
      EngineReleaseFit fit;
      fit.engine = e.name;
      const EngineRelease* known = find_engine_release(e, release);
      fit.before = known ? *known : EngineRelease{release, 1.0, {}, {}, {}};
      fit.after = fit.before;
      fit.fit_rows = rows.size();
      auto loss = [](const std::vector<InferenceCase*>& rs, double share, std::vector<double>* apes) {
        double sum = 0;
        for (auto* c : rs) {
          c->workload.moe_kernel_share = share;
          sum += abs_log(*c);
          if (apes) apes->push_back(ape_pct(*c));
        }
        return rs.empty() ? 0.0 : sum / double(rs.size());
      };
      auto best_share = [&](const std::vector<InferenceCase*>& rs) {
        return share_on_grid([&](double share) { return loss(rs, share, nullptr); }, 20);
      };
      std::vector<double> apes;
      loss(rows, 1.0, &apes);
      fit.median_ape_before = median_of(apes);
      // Leave one generation out: the share fitted on the others predicts each generation's rows.
      std::map<std::string, std::vector<InferenceCase*>> by_gen;
      for (auto* c : rows) by_gen[c->generation].push_back(c);
      if (by_gen.size() > 1) {
        std::vector<double> before, after;
        for (const auto& [g, mine] : by_gen) {
          std::vector<InferenceCase*> rest;
          for (auto* c : rows)
            if (c->generation != g) rest.push_back(c);
          const double s_rest = best_share(rest);
          loss(mine, 1.0, &before);
          loss(mine, s_rest, &after);
          fit.held_out_rows += mine.size();
        }
        fit.held_out_ape_before = median_of(before);
        fit.held_out_ape_after = median_of(after);
      }
      const double share = best_share(rows);
      apes.clear();
      loss(rows, share, &apes);
      fit.after.moe_kernel_share = share;
      fit.median_ape_after = median_of(apes);
      fits.push_back(fit);
    }
  }
  return fits;
}

namespace {

// An engine's MoE GEMM share on the grid 1.00, 0.99, ..., 0.10 minimising `loss(share, apes)` (`apes`,
// when given, receives each fit row's error at that share); sets the fit's share and its fit rows'
// median errors before (at the catalog's share) and after. Returns the share.
template <class Loss>
double fit_moe_gemm_share(EngineFit& fit, Loss&& loss) {
  std::vector<double> apes;
  loss(fit.before.moe_gemm_eff, &apes);
  fit.median_ape_before = median_of(apes);
  const double best_eff = share_on_grid([&](double share) { return loss(share, nullptr); }, 10);
  apes.clear();
  loss(best_eff, &apes);
  fit.after.moe_gemm_eff = best_eff;
  fit.median_ape_after = median_of(apes);
  return best_eff;
}

}  // namespace

std::vector<EngineFit> calibrate_engine_front_end_dense(std::vector<InferenceCase>& cases, const Catalog& catalog,
                                                        const std::vector<std::string>& engines,
                                                        long long max_fit_concurrency) {
  std::vector<EngineFit> fits;
  const auto dense_closed_loop = [](const InferenceCase& c) {
    return !c.model.is_moe() && c.workload.arrival == Arrival::closed_loop;
  };
  for (const std::string& name : engines) {
    const ServingEngine* e = nullptr;
    for (const ServingEngine& x : catalog.serving_engines())
      if (x.name == name) e = &x;
    if (!e) throw InputError("--front-end-engines", fmt::format("no serving engine '{}' in the catalog", name));
    EngineFit fit;
    if (!fit_front_end(*e, cases, catalog, max_fit_concurrency, dense_closed_loop, fit))
      throw InputError("--front-end-engines",
                       fmt::format("'{}' has no closed-loop TTFT rows of dense models at <= {} clients in the file",
                                   name, max_fit_concurrency));
    fits.push_back(fit);
  }
  return fits;
}

std::vector<EngineFit> calibrate_engine_moe_gemm(std::vector<InferenceCase>& cases, const Catalog& catalog,
                                                 long long max_fit_concurrency) {
  std::vector<EngineFit> fits;
  for (const ServingEngine& e : catalog.serving_engines()) {
    std::vector<InferenceCase*> fit_cases, held;
    for (auto& c : cases) {
      if ((c.metric != "ttft_ms" && c.metric != "tpot_ms") || !c.model.is_moe() || c.workload.concurrency < 1) continue;
      if (catalog.find_serving_engine(c.engine) != &e) continue;
      (c.workload.concurrency <= max_fit_concurrency ? fit_cases : held).push_back(&c);
    }
    if (fit_cases.empty()) continue;
    EngineFit fit;
    fit.before = fit.after = e;
    fit.fit_rows = fit_cases.size();
    fit.held_out_rows = held.size();
    auto loss = [&](double eff, std::vector<double>* apes) {
      std::vector<double> errs;
      for (auto* c : fit_cases) {
        c->workload.moe_gemm_eff = eff;
        errs.push_back(abs_log(*c));
        if (apes) apes->push_back(ape_pct(*c));
      }
      return median_of(errs);
    };
    // The held-out rows' median errors at a share: all of them, and those of disaggregated deployments.
    auto held_medians = [&](double eff) {
      std::vector<double> apes, pool;
      for (auto* c : held) {
        c->workload.moe_gemm_eff = eff;
        apes.push_back(ape_pct(*c));
        if (c->mode == InferenceMode::disaggregated) pool.push_back(apes.back());
      }
      fit.held_out_pool_rows = pool.size();
      return std::pair{apes.empty() ? 0.0 : median_of(apes), pool.empty() ? 0.0 : median_of(pool)};
    };
    // Held out against the reference kernels' share (1), whatever the catalog holds now.
    std::tie(fit.held_out_ape_before, fit.held_out_pool_ape_before) = held_medians(1.0);
    const double best_eff = fit_moe_gemm_share(fit, loss);
    std::tie(fit.held_out_ape_after, fit.held_out_pool_ape_after) = held_medians(best_eff);
    fits.push_back(fit);
  }
  return fits;
}

namespace {

// Whether a disaggregated run's p99 TTFT measures its prefill pool: the opening wave's tail waits at
// least kWaveDepth of its own prefill-and-hand-off times for the pool (the wave is several steps deep,
// so the pool's throughput, not one prompt's latency, sets it) and no request waits for a decode slot.
constexpr double kWaveDepth = 3.0;

}  // namespace

bool wave_measures_pool(const InferenceCase& c) {
  if (c.metric != "p99_ttft_ms" || c.mode != InferenceMode::disaggregated || ttft_waits_for_decode_slots(c)) return false;
  try {
    const InferenceResult r = evaluate_case(c);
    const double one_s =
        r.prefill_s + r.kv_transfer_s + c.workload.request_overhead_s + r.receive_wait_s + r.decode_step.total_s;
    return r.ttft_p99_s > kWaveDepth * one_s;
  } catch (const InputError&) {
    return false;
  }
}

bool moe_gemm_share_holds(const EngineFit& fit) {
  return !moe_gemm_reference_engine(fit.after.name) && fit.after.moe_gemm_eff < 1.0 &&
         fit.held_out_rows > 0 && fit.held_out_ape_after < fit.held_out_ape_before &&
         fit.held_out_pool_ape_after <= fit.held_out_pool_ape_before;
}

bool moe_gemm_reference_engine(const std::string& name) {
  return name.find("tensorrt-llm") != std::string::npos;
}

const ServingEngine* moe_kernels_owner(const Catalog& catalog, const ServingEngine* e) {
  if (!e) return e;
  const std::string prefix = "dynamo+";
  if (e->name.rfind(prefix, 0) != 0) return e;
  for (const ServingEngine& o : catalog.serving_engines())
    if (o.name == e->name.substr(prefix.size())) return &o;
  return e;
}

std::vector<EngineFit> calibrate_engine_moe_gemm_waves(std::vector<InferenceCase>& cases, const Catalog& catalog) {
  std::vector<EngineFit> fits;
  for (const ServingEngine& e : catalog.serving_engines()) {
    if (moe_gemm_reference_engine(e.name) || moe_kernels_owner(catalog, &e) != &e) continue;
    std::vector<InferenceCase*> mine, rows;
    for (auto& c : cases) {
      if (moe_kernels_owner(catalog, catalog.find_serving_engine(c.framework)) != &e) continue;
      mine.push_back(&c);
      if (c.model.is_moe() && wave_measures_pool(c)) rows.push_back(&c);
    }
    if (rows.empty()) continue;
    EngineFit fit;
    fit.before = fit.after = e;
    fit.fit_rows = rows.size();
    fit.held_out_rows = mine.size() - rows.size();
    // Every (model, GPU, precision, ISL) series weighs the same, whatever its count of points.
    std::map<std::string, int> series;
    auto key = [](const InferenceCase* c) {
      return c->model_name + "|" + c->gpu_name + "|" + c->precision_name + "|" + std::to_string(c->workload.isl);
    };
    for (auto* c : rows) ++series[key(c)];
    auto loss = [&](double eff, std::vector<double>* apes) {
      double sum = 0, wsum = 0;
      for (auto* c : rows) {
        c->workload.moe_gemm_eff = eff;
        const double w = 1.0 / series[key(c)];
        sum += w * abs_log(*c);
        wsum += w;
        if (apes) apes->push_back(ape_pct(*c));
      }
      return sum / wsum;
    };
    const double best_eff = fit_moe_gemm_share(fit, loss);
    for (auto* c : mine) c->workload.moe_gemm_eff = best_eff;
    fits.push_back(fit);
  }
  return fits;
}

}  // namespace gpuplan
