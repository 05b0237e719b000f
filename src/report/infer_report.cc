#include <fmt/format.h>

#include "report/kinds.h"

namespace gpuplan::report {

namespace {

std::string parallel_text(const nlohmann::json& p) {
  return fmt::format("tp={} ep={} pp={}{}", p.value("tp", 0), p.value("ep", 0), p.value("pp", 0),
                     p.value("attention_dp", false) ? " attention-dp" : "");
}

// The plan of an infer document (a point or a frontier entry): the sweep's own words where it gives
// them (kind and plan: aggregated or disaggregated, MTP), a disaggregated point's two pools, else the
// engine's parallel layout.
std::string plan_text(const nlohmann::json& d) {
  if (d.contains("plan") && d["plan"].is_string())
    return d.value("kind", std::string()).empty() ? d["plan"].get<std::string>()
                                                   : d.value("kind", std::string()) + ": " + d["plan"].get<std::string>();
  const int mtp = d.value("mtp_draft_tokens", 0);
  const std::string drafts = mtp > 0 ? fmt::format(" mtp={}", mtp) : std::string();
  if (d.value("mode", std::string()) == "disaggregated")
    return fmt::format("prefill {} GPUs ({}) + decode {} GPUs ({}){}", d.value("prefill_gpus", 0),
                       parallel_text(d.value("prefill_parallel", nlohmann::json::object())), d.value("decode_gpus", 0),
                       parallel_text(d.value("decode_parallel", nlohmann::json::object())), drafts);
  return parallel_text(d.value("parallel", nlohmann::json::object())) + drafts;
}

}  // namespace

Page infer_report(const Source& sweep, const std::optional<Source>& point, const std::vector<Source>& ladder) {
  const nlohmann::json& w = sweep.doc;
  Page page;
  page.title = fmt::format("Inference report: {} on {} x {}", w.value("model", std::string()), w.value("gpus", 0),
                           w.value("system", std::string()));
  page.summary = fmt::format("ISL {} / OSL {} tokens, {} weights: throughput per GPU against interactivity, latency "
                             "limits, and how the KV cache fills with concurrency.",
                             w.value("isl", 0), w.value("osl", 0), w.value("precision", std::string()));
  page.sources.push_back(sweep);
  if (point) page.sources.push_back(*point);
  for (const auto& s : ladder) page.sources.push_back(s);

  const auto& frontier = w.value("frontier", nlohmann::json::array());
  const double ttft_limit = w.value("ttft_limit_s", 0.0), tpot_limit = w.value("tpot_limit_s", 0.0);
  const std::string limits_text =
      ttft_limit > 0 || tpot_limit > 0
          ? fmt::format("Limits: {}{}{}.", ttft_limit > 0 ? fmt::format("TTFT <= {:.0f} ms", ttft_limit * 1e3) : "",
                        ttft_limit > 0 && tpot_limit > 0 ? ", " : "",
                        tpot_limit > 0 ? fmt::format("TPOT <= {:.1f} ms ({:.1f} tokens/s per user)", tpot_limit * 1e3,
                                                     1 / tpot_limit)
                                       : "")
          : "No TTFT or TPOT limit was given (--ttft-ms, --tpot-ms or --tokens-per-user-per-s draw them).";

  // Frontier.
  Section fs{"frontier", "Throughput against interactivity", {}};
  fs.blocks.push_back(Paragraph{fmt::format(
      "The sweep evaluated {} configurations (TP/EP/attention-DP/PP and concurrency), {} feasible; {} are on the Pareto "
      "frontier of tokens/s per GPU against tokens/s per user. {}",
      w.value("evaluated", 0), w.value("feasible", 0), frontier.size(), limits_text)});
  Series fr{"Pareto frontier", {}, {}, false, false};
  Series ttft{"TTFT", {}, {}, false, false};
  Series tpot{"TPOT", {}, {}, true, false};
  Table ft{"Pareto frontier", {"plan", "concurrency", "tokens/s per user", "tokens/s per GPU", "TTFT", "TPOT"}, {}};
  // Each point's 80% error band (infer --json: band/<figure>/low, high); every point has one.
  SeriesBand fr_band{0, {}}, ttft_band{0, {}}, tpot_band{1, {}};
  auto band_of = [&](SeriesBand& sb, const std::string& at) {
    sb.points.push_back(BandPoint{ref(sweep, at + "/low"), ref(sweep, at + "/high"), false});
  };
  for (std::size_t i = 0; i < frontier.size(); ++i) {
    const std::string b = fmt::format("/frontier/{}", i);
    const Ref user = ref(sweep, b + "/tokens_per_s_per_user"), gpu = ref(sweep, b + "/tokens_per_s_per_gpu");
    const Ref tf = ref(sweep, b + "/ttft_s"), tp = ref(sweep, b + "/tpot_s");
    fr.x.push_back(user);
    fr.y.push_back(gpu);
    ttft.x.push_back(user);
    ttft.y.push_back(tf);
    tpot.x.push_back(user);
    tpot.y.push_back(tp);
    band_of(fr_band, b + "/band/tokens_per_s_per_gpu");
    band_of(ttft_band, b + "/band/ttft_s");
    band_of(tpot_band, b + "/band/tpot_s");
    ft.rows.push_back({Cell{plan_text(frontier[i]), {}, 1},
                       num(ref(sweep, b + "/concurrency"), "{:.0f}"), num(user, "{:.1f}"), num(gpu, "{:.1f}"),
                       num(tf, "{:.1f}", 1e3, " ms"), num(tp, "{:.2f}", 1e3, " ms")});
  }
  Chart fc;
  fc.id = "pareto";
  fc.title = "Pareto frontier: tokens/s per GPU against tokens/s per user";
  fc.x_label = "tokens/s per user";
  fc.y_label = "tokens/s per GPU";
  fc.series = {fr};
  fc.bands.push_back(fr_band);
  if (point) {
    fc.bands.push_back(SeriesBand{1, {BandPoint{ref(*point, "/band/tokens_per_s_per_gpu/low"),
                                                ref(*point, "/band/tokens_per_s_per_gpu/high"), false}}});
    const std::string conf = plan_text(point->doc);
    fc.series.push_back(Series{"the configuration asked for (" + conf + ")",
                               {ref(*point, "/tokens_per_s_per_user")},
                               {ref(*point, "/tokens_per_s_per_gpu")},
                               false,
                               true});
  }
  if (tpot_limit > 0) {
    const Ref r = ref(sweep, "/tpot_limit_s");
    fc.limits.push_back(Limit{fmt::format("TPOT limit ({:.1f} ms = {:.1f} tokens/s per user)", tpot_limit * 1e3,
                                          1 / tpot_limit),
                              'x', 1 / r.value, r});
  }
  fc.caption = fmt::format("Each point is the best throughput per GPU reachable at that speed per user; moving right "
                           "buys interactivity with throughput; the shaded area is gpuplan's 80% error band (the "
                           "spread of its errors on published rows of this kind no fit saw). {}{}",
                           tpot_limit > 0 ? "Points left of the dashed TPOT line are too slow per user. " : "",
                           point ? "The single marker is the configuration given on the command line, with its "
                                   "band as an error bar." : "");
  fs.blocks.push_back(fc);
  Chart lc;
  lc.id = "latency";
  lc.title = "TTFT and TPOT along the frontier";
  lc.x_label = "tokens/s per user";
  lc.y_label = "milliseconds";
  lc.y_scale = 1e3;
  lc.y_log = true;  // TTFT, TPOT and a TTFT limit differ by orders of magnitude
  lc.series = {ttft, tpot};
  lc.bands = {ttft_band, tpot_band};
  if (ttft_limit > 0) {
    const Ref r = ref(sweep, "/ttft_limit_s");
    lc.limits.push_back(Limit{fmt::format("TTFT limit ({:.0f} ms)", r.value * 1e3), 'y', r.value, r});
  }
  if (tpot_limit > 0) {
    const Ref r = ref(sweep, "/tpot_limit_s");
    lc.limits.push_back(Limit{fmt::format("TPOT limit ({:.1f} ms)", r.value * 1e3), 'y', r.value, r});
  }
  lc.caption = fmt::format("Time to first token (solid) and time per output token (dashed) of the frontier's points, "
                           "against tokens/s per user, on a log scale, each with its 80% error band shaded. {}",
                           limits_text);
  fs.blocks.push_back(lc);
  fs.blocks.push_back(ft);
  page.sections.push_back(std::move(fs));

  if (point) {
    Section ps{"point", "The configuration asked for", {}};
    Table t{"Serving one configuration", {"figure", "value"}, {}};
    const Source& p = *point;
    t.rows.push_back({Cell{"plan", {}, 1}, Cell{plan_text(p.doc), {}, 1}});
    t.rows.push_back({Cell{"GPUs", {}, 1}, num(ref(p, "/gpus"), "{:.0f}")});
    t.rows.push_back({Cell{"concurrency", {}, 1}, num(ref(p, "/concurrency"), "{:.0f}")});
    t.rows.push_back({Cell{"KV cache holds (sequences)", {}, 1}, num(ref(p, "/max_concurrency"), "{:.0f}")});
    t.rows.push_back({Cell{"tokens/s total", {}, 1}, num(ref(p, "/tokens_per_s_total"), "{:.0f}")});
    t.rows.push_back({Cell{"tokens/s per GPU", {}, 1}, num(ref(p, "/tokens_per_s_per_gpu"), "{:.1f}")});
    t.rows.push_back({Cell{"tokens/s per user", {}, 1}, num(ref(p, "/tokens_per_s_per_user"), "{:.1f}")});
    t.rows.push_back({Cell{"TTFT", {}, 1}, num(ref(p, "/ttft_s"), "{:.1f}", 1e3, " ms")});
    t.rows.push_back({Cell{"TPOT", {}, 1}, num(ref(p, "/tpot_s"), "{:.2f}", 1e3, " ms")});
    t.rows.push_back({Cell{"end-to-end latency", {}, 1}, num(ref(p, "/e2e_latency_s"), "{:.2f}", 1, " s")});
    ps.blocks.push_back(t);
    page.sections.push_back(std::move(ps));
  }

  if (!ladder.empty()) {
    Section ks{"kv-cache", "KV cache against concurrency", {}};
    const nlohmann::json& l0 = ladder.front().doc;
    const std::string conf = plan_text(l0);
    Series kv{"KV cache per GPU", {}, {}, false, false};
    Series total{"total memory per GPU", {}, {}, true, false};
    Table kt{"Memory per GPU at each concurrency (" + conf + ")",
             {"concurrency", "KV cache per GPU", "total per GPU", "tokens/s per GPU", "TPOT"},
             {}};
    for (const auto& s : ladder) {
      const Ref c = ref(s, "/concurrency");
      kv.x.push_back(c);
      kv.y.push_back(ref(s, "/memory/kv_cache_bytes"));
      total.x.push_back(c);
      total.y.push_back(ref(s, "/memory/total_bytes"));
      kt.rows.push_back({num(c, "{:.0f}"), num(kv.y.back(), "{:.1f}", 1e-9, " GB"),
                         num(total.y.back(), "{:.1f}", 1e-9, " GB"), num(ref(s, "/tokens_per_s_per_gpu"), "{:.1f}"),
                         num(ref(s, "/tpot_s"), "{:.2f}", 1e3, " ms")});
    }
    Chart kc;
    kc.id = "kv-cache";
    kc.title = "KV cache against concurrency (" + conf + ")";
    kc.x_label = "sequences in flight (whole deployment)";
    kc.y_label = "GB per GPU";
    kc.y_scale = 1e-9;
    kc.series = {kv, total};
    const Ref cap = ref(ladder.front(), "/memory/capacity_bytes");
    const Ref maxc = ref(ladder.front(), "/max_concurrency");
    kc.limits.push_back(Limit{"GPU memory capacity", 'y', cap.value, cap});
    // The concurrency limit is the KV cache's or the scheduler's batch cap (--max-batch-size per
    // instance), whichever is lower: name the one that binds.
    const double batch_cap = l0.value("max_batch_size", 0.0) * l0.value("instances", 1.0);
    const bool batch_capped = batch_cap > 0 && maxc.value >= batch_cap;
    kc.limits.push_back(Limit{batch_capped ? fmt::format("batch cap ({:.0f} sequences)", maxc.value)
                                           : fmt::format("KV cache full ({:.0f} sequences)", maxc.value),
                              'x', maxc.value, maxc});
    kc.caption = fmt::format("Per-GPU KV cache (solid) and total memory (dashed: weights, KV cache, activations, "
                             "reserve) of {} on {} GPUs as the concurrency grows, against the GPU's {:.1f} GB. {} "
                             "(vertical line); past that, requests queue.",
                             conf, l0.value("gpus", 0), cap.value * 1e-9,
                             batch_capped ? fmt::format("The scheduler's batch cap admits at most {:.0f} sequences, "
                                                        "before the KV cache fills", maxc.value)
                                          : fmt::format("The KV cache holds at most {:.0f} sequences", maxc.value));
    ks.blocks.push_back(kc);
    ks.blocks.push_back(kt);
    page.sections.push_back(std::move(ks));
  }
  return page;
}

}  // namespace gpuplan::report
