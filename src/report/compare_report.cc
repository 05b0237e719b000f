#include <fmt/format.h>

#include <cmath>

#include "report/kinds.h"

namespace gpuplan::report {

namespace {

bool is_num(const nlohmann::json& v) { return v.is_number(); }

// Four significant digits without an exponent.
Cell value_cell(const Ref& r) {
  const double a = std::fabs(r.value);
  return num(r, a >= 1000 ? "{:.0f}" : a >= 100 ? "{:.1f}" : a >= 10 ? "{:.2f}" : "{:.3g}");
}

// The 80% error band of a yardstick's ratio (compare --json models[].band): training throughput has
// the ratio's band itself; serving throughput yardsticks the relative band that holds at every point
// of the curve; catalog figures (peaks, memory, fabric, cost) none.
BandPoint yardstick_band(const Source& cmp, const std::string& key) {
  const auto colon = key.find(':');
  if (colon == std::string::npos) return {};
  const std::string what = key.substr(0, colon), model = key.substr(colon + 1);
  const auto& models = cmp.doc.value("models", nlohmann::json::array());
  for (std::size_t mi = 0; mi < models.size(); ++mi) {
    if (models[mi].value("model", std::string()) != model || !models[mi].contains("band")) continue;
    const auto& band = models[mi]["band"];
    const std::string mb = fmt::format("/models/{}/band/", mi);
    if (what == "train_tokens_per_s" && band.contains("training_ratio"))
      return {ref(cmp, mb + "training_ratio/low"), ref(cmp, mb + "training_ratio/high"), false};
    const bool serving_rate = what == "infer_at_interactivity" || what == "infer_best_format" ||
                              what == "infer_max_throughput";
    if (serving_rate && band.contains("serving_ratio_relative"))
      return {ref(cmp, mb + "serving_ratio_relative/low"), ref(cmp, mb + "serving_ratio_relative/high"), true};
  }
  return {};
}

}  // namespace

Page compare_report(const Source& cmp) {
  const nlohmann::json& d = cmp.doc;
  const std::string a = d["a"].value("system", std::string("A")), b = d["b"].value("system", std::string("B"));
  Page page;
  page.title = fmt::format("Compare: {} against {}", d["a"].value("display_name", a), d["b"].value("display_name", b));
  page.summary = fmt::format("Every yardstick a headline might use, per GPU, per system unit ({} against {} GPUs), per "
                             "dollar of TCO per hour and per kW of IT power. Ratios are A/B with A = {}, B = {}.",
                             d["a"].value("gpus_per_unit", 0), d["b"].value("gpus_per_unit", 0), a, b);
  page.sources.push_back(cmp);
  const auto& ys = d.value("yardsticks", nlohmann::json::array());

  // Ratios per GPU, one bar per yardstick that both sides have.
  Section gist{"ratios", "A against B per GPU, by yardstick", {}};
  gist.blocks.push_back(Paragraph{
      "The same two systems differ by a different factor under each yardstick: quote a ratio with its yardstick, its "
      "precision and, for serving, its interactivity. Lower-is-better yardsticks (cost, energy, power) are left out of "
      "the chart; they are in the table below."});
  Chart rc;
  rc.id = "ratios";
  rc.title = fmt::format("{} / {} per GPU", a, b);
  rc.type = ChartType::bar;
  rc.x_label = "yardstick";
  rc.y_label = "ratio A/B per GPU";
  rc.y_log = true;
  Series rs{"A/B per GPU", {}, {}, false, false};
  SeriesBand rs_band{0, {}};
  bool any_band = false;
  for (std::size_t i = 0; i < ys.size(); ++i) {
    const auto& y = ys[i];
    if (!y.value("higher_is_better", true) || !is_num(y["ratio"])) continue;
    rc.categories.push_back(y.value("name", std::string()));
    rs.y.push_back(ref(cmp, fmt::format("/yardsticks/{}/ratio", i)));
    rs_band.points.push_back(yardstick_band(cmp, y.value("key", std::string())));
    any_band |= rs_band.points.back().low.has_value();
  }
  rc.series = {rs};
  if (any_band) rc.bands = {rs_band};
  rc.limits.push_back(Limit{"parity (1x)", 'y', 1.0, std::nullopt});
  rc.caption = fmt::format("Bars: {} divided by {} per GPU under each yardstick (log scale; the line marks parity). "
                           "Peak at each side's best format is the vendor-style figure; serving and training ratios "
                           "come from the best plan of each side under the same conditions, with gpuplan's 80% error "
                           "band of the ratio as an error bar (catalog figures have none).",
                           a, b);
  gist.blocks.push_back(rc);
  page.sections.push_back(std::move(gist));

  // The full table.
  Section tab{"yardsticks", "Yardsticks", {}};
  Table t{"Each yardstick on both systems (values per GPU) and the ratio A/B under four normalisations",
          {"yardstick", "unit", a, b, "A/B per GPU", "per system", "per $/h", "per kW", "headline that uses it"},
          {}};
  for (std::size_t i = 0; i < ys.size(); ++i) {
    const auto& y = ys[i];
    const std::string base = fmt::format("/yardsticks/{}", i);
    std::vector<Cell> row{Cell{y.value("name", std::string()) +
                                   (y.value("higher_is_better", true) ? "" : " (lower is better)"),
                               {}, 1},
                          Cell{y.value("unit", std::string()), {}, 1}};
    for (const char* side : {"a", "b"})
      row.push_back(is_num(y[side]) ? value_cell(ref(cmp, base + "/" + side)) : Cell{"-", {}, 1});
    for (const char* per : {"gpu", "system", "usd", "watt"}) {
      const std::string p = base + "/per/" + per + "/ratio";
      const auto& pj = y["per"];
      if (pj.contains(per) && is_num(pj[per]["ratio"])) row.push_back(num(ref(cmp, p), "{:.2f}", 1, "x"));
      else row.push_back(Cell{"-", {}, 1});
    }
    row.push_back(Cell{y.value("headline", std::string()), {}, 1});
    t.rows.push_back(std::move(row));
  }
  tab.blocks.push_back(Paragraph{fmt::format(
      "Conditions of each training and serving figure are in the command's JSON (yardsticks[].note). Per system: one "
      "{}-GPU unit against one {}-GPU unit; per $/h: divided by each side's TCO per GPU-hour; per kW: divided by each "
      "side's full-load IT power per GPU.",
      d["a"].value("gpus_per_unit", 0), d["b"].value("gpus_per_unit", 0))});
  tab.blocks.push_back(t);
  page.sections.push_back(std::move(tab));

  // Per model: the serving curves with the ratio along them, and training.
  const auto& models = d.value("models", nlohmann::json::array());
  for (std::size_t mi = 0; mi < models.size(); ++mi) {
    const auto& m = models[mi];
    const std::string name = m.value("model", std::string());
    const std::string mb = fmt::format("/models/{}", mi);
    Section s{fmt::format("model-{}", mi), name, {}};
    if (m.contains("inference")) {
      const auto& inf = m["inference"];
      Chart cc;
      cc.id = fmt::format("curve-{}", mi);
      cc.title = fmt::format("{}: tokens/s per GPU against tokens/s per user", name);
      cc.x_label = "tokens/s per user";
      cc.y_label = "tokens/s per GPU";
      cc.y_log = true;
      const std::pair<const char*, std::string> fronts[] = {
          {"frontier_a", fmt::format("{} ({})", a, inf.value("precision", std::string()))},
          {"frontier_b", fmt::format("{} ({})", b, inf.value("precision", std::string()))},
          {"best_frontier_a", fmt::format("{} ({})", a, inf.value("best_precision_a", std::string()))},
          {"best_frontier_b", fmt::format("{} ({})", b, inf.value("best_precision_b", std::string()))}};
      for (const auto& [key, label] : fronts) {
        const auto& f = inf.value(key, nlohmann::json::array());
        if (f.empty()) continue;
        if ((std::string(key) == "best_frontier_a" && inf["best_precision_a"] == inf["precision"]) ||
            (std::string(key) == "best_frontier_b" && inf["best_precision_b"] == inf["precision"]))
          continue;  // the same curve as the common-format one
        Series sr{label, {}, {}, std::string(key).rfind("best", 0) == 0, false};
        for (std::size_t i = 0; i < f.size(); ++i) {
          sr.x.push_back(ref(cmp, fmt::format("{}/inference/{}/{}/tokens_per_s_per_user", mb, key, i)));
          sr.y.push_back(ref(cmp, fmt::format("{}/inference/{}/{}/tokens_per_s_per_gpu", mb, key, i)));
        }
        cc.series.push_back(std::move(sr));
      }
      const Ref x = ref(cmp, mb + "/inference/tokens_per_s_per_user");
      cc.limits.push_back(Limit{fmt::format("the stated interactivity ({:g} tokens/s per user)", x.value), 'x', x.value, x});
      cc.caption = fmt::format("Pareto frontiers of serving {} (ISL/OSL {}/{}) on one unit of each system: solid lines "
                               "in the common format, dashed at each side's best format. Further right is faster per "
                               "user, higher is more throughput per GPU; the vertical line is the interactivity the "
                               "yardstick table reads.",
                               name, inf.value("isl", 0), inf.value("osl", 0));
      s.blocks.push_back(cc);

      Chart ratio;
      ratio.id = fmt::format("curve-ratio-{}", mi);
      ratio.title = fmt::format("{}: the ratio along the curve", name);
      ratio.x_label = "tokens/s per user";
      ratio.y_label = "A/B tokens/s per GPU";
      Series rr{"A/B", {}, {}, false, false};
      Table ct{fmt::format("{}: tokens/s per GPU at each interactivity", name),
               {"tokens/s per user", a, b, "A/B", a + " deployment", b + " deployment"}, {}};
      const auto& curve = inf.value("curve", nlohmann::json::array());
      for (std::size_t i = 0; i < curve.size(); ++i) {
        const std::string cb = fmt::format("{}/inference/curve/{}", mb, i);
        const Ref ux = ref(cmp, cb + "/tokens_per_s_per_user");
        std::vector<Cell> row{num(ux, "{:g}")};
        for (const char* side : {"a", "b"})
          row.push_back(is_num(curve[i][side]) ? num(ref(cmp, cb + "/" + side), "{:.1f}") : Cell{"not reached", {}, 1});
        if (is_num(curve[i]["ratio"])) {
          const Ref rv = ref(cmp, cb + "/ratio");
          row.push_back(num(rv, "{:.2f}", 1, "x"));
          rr.x.push_back(ux);
          rr.y.push_back(rv);
        } else {
          row.push_back(Cell{"-", {}, 1});
        }
        for (const char* kind : {"kind_a", "kind_b"})  // aggregated / disaggregated, + MTP
          row.push_back(Cell{curve[i].value(kind, nlohmann::json()).is_string() ? curve[i][kind].get<std::string>() : "-",
                             {}, 1});
        ct.rows.push_back(std::move(row));
      }
      if (!rr.x.empty()) {
        ratio.series = {rr};
        if (m.contains("band") && m["band"].contains("serving_ratio_relative")) {
          // The same relative band at every point of the curve (one kind, one generation per side).
          SeriesBand rb{0, {}};
          for (std::size_t k = 0; k < rr.y.size(); ++k)
            rb.points.push_back(BandPoint{ref(cmp, mb + "/band/serving_ratio_relative/low"),
                                          ref(cmp, mb + "/band/serving_ratio_relative/high"), true});
          ratio.bands = {rb};
        }
        ratio.caption = fmt::format("How many times {}'s throughput per GPU is {}'s at the same speed per user, in the "
                                    "common format: the ratio changes along the curve, so a single 'x' needs its "
                                    "interactivity. The shaded area is gpuplan's 80% error band of the ratio.",
                                    a, b);
        s.blocks.push_back(ratio);
      }
      s.blocks.push_back(ct);
    }
    if (m.contains("training")) {
      const auto& tr = m["training"];
      Table tt{fmt::format("{} training: the best plan of each system for the same job ({} GPUs, {} x {} tokens per "
                           "step, {})",
                           name, tr.value("gpus", 0), tr.value("global_batch", 0), tr.value("seq_len", 0),
                           tr.value("precision", std::string())),
               {"system", "plan", "tokens/s per GPU", "MFU (6N)", "$ per million tokens", "J per token"},
               {}};
      for (const char* side : {"a", "b"}) {
        const auto& p = tr[side];
        const std::string pb = fmt::format("{}/training/{}", mb, side);
        if (!p.value("found", false)) {
          tt.rows.push_back({Cell{side == std::string("a") ? a : b, {}, 1}, Cell{p.value("why_not", std::string()), {}, 1},
                             Cell{"-", {}, 1}, Cell{"-", {}, 1}, Cell{"-", {}, 1}, Cell{"-", {}, 1}});
          continue;
        }
        tt.rows.push_back({Cell{side == std::string("a") ? a : b, {}, 1}, Cell{p.value("plan", std::string()), {}, 1},
                           num(ref(cmp, pb + "/tokens_per_s_per_gpu"), "{:.0f}"),
                           num(ref(cmp, pb + "/mfu_6n"), "{:.1f}", 100, "%"),
                           is_num(p["usd_per_million_tokens"]) ? num(ref(cmp, pb + "/usd_per_million_tokens"), "{:.3f}")
                                                              : Cell{"no price", {}, 1},
                           num(ref(cmp, pb + "/joules_per_token"), "{:.2f}")});
      }
      s.blocks.push_back(tt);
    }
    page.sections.push_back(std::move(s));
  }
  return page;
}

}  // namespace gpuplan::report
