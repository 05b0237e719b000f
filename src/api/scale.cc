// gpuplan scale: the best (or a fixed) plan at each GPU count, weak or strong scaling; MFU and
// tokens/s per GPU against N.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <iostream>

#include "api/scale.h"
#include "api/text.h"
#include "api/training_json.h"
#include "core/error.h"
#include "model/model_registry.h"
#include "search/report.h"
#include "search/scaling.h"

namespace gpuplan::api {

// "64,128,256" -> {64, 128, 256}; each a whole number from 1 to 2^20, none twice.
std::vector<int> parse_gpu_counts(const std::string& text, const std::string& field) {
  std::vector<int> out;
  std::size_t pos = 0;
  while (pos <= text.size()) {
    std::size_t end = text.find(',', pos);
    if (end == std::string::npos) end = text.size();
    const std::string item = text.substr(pos, end - pos);
    std::size_t used = 0;
    long long v = 0;
    try {
      v = std::stoll(item, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (item.empty() || used != item.size() || v < 1 || v > (1 << 20))
      throw InputError(field, fmt::format("'{}' is not a GPU count; give whole numbers from 1 to {} separated by "
                                          "commas, e.g. 64,128,256",
                                          item, 1 << 20));
    if (std::find(out.begin(), out.end(), static_cast<int>(v)) != out.end())
      throw InputError(field, fmt::format("{} is listed twice", v));
    if (out.size() == 256) throw InputError(field, "at most 256 GPU counts in one sweep");
    out.push_back(static_cast<int>(v));
    pos = end + 1;
  }
  return out;
}

void add_scale_options(CLI::App& app, ScaleRequest& a) {
  app.description("Scaling sweep over GPU counts: weak (batch grows with GPUs) or strong (batch fixed); the best plan "
               "(or --plan) at each N with tokens/s per GPU, MFU and step time");
  app.add_option("--model", a.model, kModelOptionHelp)->required();
  app.add_option("--system", a.system, "System from the catalog (e.g. hgx-h100, gb200-nvl72)")->required();
  app.add_option("--gpus", a.gpus, "GPU counts, comma-separated: 64,128,256")->required();
  app.add_option("--mode", a.mode, "weak (global batch = batch-per-gpu x N) or strong (global batch fixed)")
      ->required();
  app.add_option("--global-batch", a.global_batch,
                 "Strong scaling: sequences per optimizer step (default: follows the model, as published "
                 "pre-training schedules chose it; see `train --help`)");
  app.add_option("--batch-per-gpu", a.batch_per_gpu,
                 "Weak scaling: sequences per GPU per step (may be fractional; global batch rounds to whole)");
  app.add_option("--seq", a.seq, "Sequence length, tokens")->capture_default_str();
  app.add_option("--precision", a.precision, "bf16, fp8, mxfp8, nvfp4 or fp4")->capture_default_str();
  app.add_option("--plan", a.plan, "A fixed plan instead of searching, e.g. \"tp=8,pp=4,mbs=1\" (dp derived per N)");
}

namespace {

// No plan at any GPU count is exit 3, as train's when nothing fits; a sweep with some points that fit is an answer.
int scale_exit_code(const std::vector<ScalingPoint>& pts) {
  for (const auto& p : pts)
    if (p.found) return kExitOk;
  return pts.empty() ? kExitOk : kExitDoesNotFit;
}

}  // namespace

int scale(const Catalog& catalog, ScaleRequest a, Output& output) {
  ScalingOptions o;
  o.gpus = parse_gpu_counts(a.gpus, "--gpus");
  if (a.mode == "weak") {
    o.mode = ScalingMode::weak;
    if (a.given("--global-batch"))
      throw InputError("--global-batch", "is for --mode strong; weak scaling takes --batch-per-gpu");
    if (!a.given("--batch-per-gpu")) throw InputError("--batch-per-gpu", "is required with --mode weak");
    if (!(std::isfinite(a.batch_per_gpu) && a.batch_per_gpu > 0 && a.batch_per_gpu <= 1e6))
      throw InputError("--batch-per-gpu", fmt::format("must be a number above 0 and at most 1e6, got {}",
                                                      a.batch_per_gpu));
    o.batch_per_gpu = a.batch_per_gpu;
  } else if (a.mode == "strong") {
    o.mode = ScalingMode::strong;
    if (a.given("--batch-per-gpu"))
      throw InputError("--batch-per-gpu", "is for --mode weak; strong scaling takes --global-batch");
    a.check_global_batch(a.global_batch);
    o.global_batch = a.global_batch;
  } else {
    throw InputError("--mode", fmt::format("unknown mode '{}'; allowed: weak, strong", a.mode));
  }
  if (a.seq < 1 || a.seq > 10'000'000)
    throw InputError("--seq", fmt::format("must be a whole number from 1 to 10000000, got {}", a.seq));
  o.seq_len = a.seq;
  if (auto p = parse_precision(a.precision)) o.precision = *p;
  else throw InputError("--precision", fmt::format("unknown precision '{}'; allowed: bf16, fp8, mxfp8, nvfp4, fp4",
                                                   a.precision));
  if (a.given("--plan")) {
    TrainingPlan base;
    base.dp = 0;  // derived at each N unless the plan names it (then every N must agree)
    TrainingPlan p = parse_training_plan(a.plan, base);
    if (p.dp > 0) {
      const long long mp = 1LL * p.tp * p.pp * p.cp;
      for (const int n : o.gpus)
        if (1LL * p.dp * mp != n)
          throw InputError("--plan", fmt::format("dp={} with tp*pp*cp={} needs {} GPUs, but --gpus lists {}; leave dp "
                                                 "out to derive it at each GPU count",
                                                 p.dp, mp, 1LL * p.dp * mp, n));
    }
    o.fixed_plan = p;
  }
  const ModelArch m = resolve_model(a.model, "--model");
  BatchChoice batch;
  if (o.mode == ScalingMode::strong) {
    batch = choose_global_batch(m, o.seq_len, a.given("--global-batch") ? a.global_batch : 0);
    o.global_batch = batch.sequences;
  }
  catalog.system(a.system, "--system");
  const Hardware hw = resolve_hardware(catalog, a.system);
  require_training_precision(hw, o.precision);

  // Progress on a terminal only, so pipes and --json stay clean.
  const bool tty = output.progress && output.notes && o.gpus.size() > 1;
  auto progress = [&](std::size_t done, std::size_t total) {
    if (!tty) return;
    *output.notes << fmt::format("\rscale: {}/{} GPU counts", done, total) << (done == total ? "\n" : "")
              << std::flush;
  };
  const std::vector<ScalingPoint> pts = scaling_sweep(m, hw, o, progress);

  if (output.json()) {
    nlohmann::json rows = nlohmann::json::array();
    for (const auto& pt : pts) {
      nlohmann::json row = {{"gpus", pt.gpus}, {"global_batch", pt.global_batch}, {"found", pt.found}};
      if (pt.found) {
        row.update(candidate_json(pt.plan, pt.result));
      } else {
        row["plan"] = plan_json(pt.plan);
        row["reason"] = pt.reason;
      }
      if (!o.fixed_plan) row["search"] = stats_json(pt.stats);
      rows.push_back(std::move(row));
    }
    nlohmann::json j = {{"model", m.name},
                        {"system", a.system},
                        {"accelerator", hw.accelerator.name},
                        {"mode", std::string(to_string(o.mode))},
                        {"seq_len", o.seq_len},
                        {"precision", std::string(to_string(o.precision))},
                        {"plan_source", o.fixed_plan ? "fixed" : "search"},
                        {"points", std::move(rows)}};
    if (o.mode == ScalingMode::weak) j["batch_per_gpu"] = o.batch_per_gpu;
    else {
      j["global_batch"] = o.global_batch;
      j["global_batch_basis"] = batch_json(batch, o.seq_len);
    }
    output.emit("scale", std::move(j));
    return scale_exit_code(pts);
  }

  const std::string name = m.display_name.empty() ? m.name : m.display_name;
  output.os() << fmt::format("{} on {} ({}), {} scaling, seq {}, {}, {}\n", name, a.system, hw.accelerator.name,
                           to_string(o.mode), o.seq_len, to_string(o.precision),
                           o.mode == ScalingMode::weak ? fmt::format("{} sequences per GPU", o.batch_per_gpu)
                                                       : fmt::format("global batch {}", o.global_batch));
  if (o.mode == ScalingMode::strong) output.os() << batch_line(batch, o.seq_len) << "\n";
  output.os() << fmt::format("{:>7} {:>7}  {:<64} {:>12} {:>6} {:>9}\n", "GPUs", "batch",
                           o.fixed_plan ? "plan (fixed)" : "plan (best found)", "tokens/s/GPU", "MFU", "step s");
  for (const auto& pt : pts) {
    if (pt.found)
      output.os() << fmt::format("{:>7} {:>7}  {:<64} {:>12.0f} {:>5.1f}% {:>9.3f}\n", pt.gpus, pt.global_batch,
                               to_string(pt.plan), pt.result.tokens_per_s_per_gpu, 100 * pt.result.mfu_6n,
                               pt.result.step_time_s);
    else
      output.os() << fmt::format("{:>7} {:>7}  no plan: {}\n", pt.gpus, pt.global_batch, pt.reason);
  }
  output.os() << "MFU: 6N-style model FLOPs against the precision's dense peak.\n";
  return scale_exit_code(pts);
}


}  // namespace gpuplan::api
