#include <fmt/format.h>

#include "report/kinds.h"

namespace gpuplan::report {

namespace {

struct Part {
  const char* key;
  const char* label;
};
constexpr Part kStepParts[] = {
    {"gemm_s", "compute: GEMMs"},          {"attention_s", "compute: attention"},
    {"memory_bound_s", "compute: memory-bound ops"}, {"recompute_s", "compute: recompute"},
    {"offload_s", "exposed activation offload"},
    {"tp_comm_s", "exposed TP comm"},      {"cp_comm_s", "exposed CP comm"},
    {"ep_comm_s", "exposed EP comm (all-to-all)"}, {"pp_comm_s", "exposed PP comm"},
    {"dp_comm_s", "exposed DP comm"},      {"bubble_s", "pipeline bubble"},
    {"optimizer_s", "optimizer step"},
};
constexpr Part kMemoryParts[] = {
    {"weights_bytes", "weights"},     {"gradients_bytes", "gradients"}, {"optimizer_bytes", "optimizer state"},
    {"activations_bytes", "activations"}, {"reserve_bytes", "reserve"},
};

// One plan of the page: where its numbers are in which source.
struct PlanRow {
  std::string label;  // short, for chart axes
  std::string plan;   // the full plan text
  const Source* src;
  std::string base;   // JSON pointer prefix of the result ("" or "/top/2")
  std::string mfu_6n, mfu_attn;  // paths of the MFU figures (train and search name them differently)
};

std::string train_plan_text(const nlohmann::json& p) {
  return fmt::format("tp={},pp={},vp={},cp={},ep={},dp={},mbs={},recompute={},zero={},sp={}", p.value("tp", 0),
                     p.value("pp", 0), p.value("vp", 0), p.value("cp", 0), p.value("ep", 0), p.value("dp", 0),
                     p.value("mbs", 0), p.value("recompute", std::string("?")), p.value("zero", 0),
                     p.value("sequence_parallel", false) ? 1 : 0);
}

}  // namespace

Page train_report(const Source& train, const Source& search, const Source& scale) {
  const nlohmann::json& t = train.doc;
  Page page;
  page.title = fmt::format("Training report: {} on {} x {}", t.value("model", std::string()), t.value("num_gpus", 0),
                           t.value("system", std::string()));
  page.summary = fmt::format("{} ({}), global batch {} x {} tokens, {}. The given plan against the best plans a search "
                             "finds for the same job, and how the best plan scales with the GPU count.",
                             t.value("system", std::string()), t.value("accelerator", std::string()),
                             t.value("global_batch", 0), t.value("seq_len", 0), t.value("precision", std::string()));
  page.sources = {train, search, scale};

  std::vector<PlanRow> plans;
  plans.push_back({"given", train_plan_text(t.value("plan", nlohmann::json::object())), &train, "", "/mfu/6n",
                   "/mfu/with_attention"});
  const auto& top = search.doc.value("top", nlohmann::json::array());
  for (std::size_t i = 0; i < top.size(); ++i) {
    const std::string base = fmt::format("/top/{}", i);
    plans.push_back({fmt::format("search #{}", i + 1), top[i]["plan"].value("text", std::string()), &search, base,
                     base + "/mfu_6n", base + "/mfu_attn"});
  }

  // Summary table.
  Section summary{"plans", "Plans", {}};
  summary.blocks.push_back(Paragraph{fmt::format(
      "The given plan (--plan) and the top {} of {} plans the search evaluated ({} enumerated, dropped: {} that do not "
      "divide, {} that do not fit memory), ranked by tokens/s.",
      top.size(), search.doc.value("evaluated", 0), search.doc.value("enumerated", 0),
      search.doc.value(nlohmann::json::json_pointer("/dropped/divisibility"), 0),
      search.doc.value(nlohmann::json::json_pointer("/dropped/memory"), 0))});
  Table tab{"Step time, throughput, MFU and memory per plan",
            {"plan", "parallel plan", "step time", "tokens/s per GPU", "MFU (6N)", "MFU (with attention)",
             "memory per GPU", "GPU memory"},
            {}};
  for (const auto& p : plans) {
    tab.rows.push_back({Cell{p.label, {}, 1}, Cell{p.plan, {}, 1}, num(ref(*p.src, p.base + "/step_time_s"), "{:.3f}", 1, " s"),
                        num(ref(*p.src, p.base + "/tokens_per_s_per_gpu"), "{:.0f}"),
                        num(ref(*p.src, p.mfu_6n), "{:.1f}", 100, "%"), num(ref(*p.src, p.mfu_attn), "{:.1f}", 100, "%"),
                        num(ref(*p.src, p.base + "/memory/total_bytes"), "{:.1f}", 1e-9, " GB"),
                        num(ref(*p.src, p.base + "/memory/capacity_bytes"), "{:.1f}", 1e-9, " GB")});
  }
  summary.blocks.push_back(tab);
  // The error band of the given plan's throughput (train --json "band"): held-out error of its kind and generation.
  if (const auto b = t.value(nlohmann::json::json_pointer("/band/tokens_per_s_per_gpu"), nlohmann::json()); b.is_object())
    summary.blocks.push_back(Paragraph{fmt::format(
        "Error band (80% of held-out published rows of this kind, {} on {}): the given plan's {:.0f} tokens/s per GPU "
        "could measure {:.0f} to {:.0f} (+/- {:.0f}%; {} rows, {} source families). Plans closer than that are within "
        "the model's error.",
        b.value(nlohmann::json::json_pointer("/basis/kind"), std::string()),
        b.value(nlohmann::json::json_pointer("/basis/generation"), std::string()), b.value("value", 0.0),
        b.value("low", 0.0), b.value("high", 0.0), b.value("plus_minus_pct", 0.0),
        b.value(nlohmann::json::json_pointer("/basis/rows"), 0), b.value(nlohmann::json::json_pointer("/basis/families"), 0))});
  page.sections.push_back(std::move(summary));

  // Step-time breakdown.
  Section step{"step-time", "Where the step time goes", {}};
  Chart sc;
  sc.id = "step-breakdown";
  sc.title = "Step-time breakdown per plan";
  sc.type = ChartType::stacked_bar;
  sc.x_label = "plan";
  sc.y_label = "seconds per step";
  for (const auto& p : plans) sc.categories.push_back(p.label);
  for (const Part& part : kStepParts) {
    Series s{part.label, {}, {}, false, false};
    bool any = false;
    for (const auto& p : plans) {
      s.y.push_back(ref(*p.src, p.base + "/breakdown/" + part.key));
      any = any || s.y.back().value > 0;
    }
    if (any) sc.series.push_back(std::move(s));
  }
  sc.caption = fmt::format("Stacked bars, one per plan ({}), of the per-GPU critical-path step time: compute by op "
                           "class, exposed communication by kind, pipeline bubble and optimizer step; parts that are "
                           "zero for every plan are left out. The bars' heights are the step times of the table above.",
                           plans.size());
  step.blocks.push_back(sc);
  page.sections.push_back(std::move(step));

  // Memory breakdown against capacity.
  Section mem{"memory", "Memory per GPU", {}};
  Chart mc;
  mc.id = "memory-breakdown";
  mc.title = "Per-GPU memory breakdown against capacity";
  mc.type = ChartType::stacked_bar;
  mc.x_label = "plan";
  mc.y_label = "GB per GPU";
  mc.y_scale = 1e-9;
  for (const auto& p : plans) mc.categories.push_back(p.label);
  for (const Part& part : kMemoryParts) {
    Series s{part.label, {}, {}, false, false};
    for (const auto& p : plans) s.y.push_back(ref(*p.src, p.base + "/memory/" + part.key));
    mc.series.push_back(std::move(s));
  }
  const Ref cap = ref(train, "/memory/capacity_bytes");
  mc.limits.push_back(Limit{"GPU memory capacity", 'y', cap.value, cap});
  mc.caption = fmt::format("Stacked bars of each plan's memory per GPU (of its most loaded pipeline stage): weights, "
                           "gradients, optimizer state, activations and a reserve, against the GPU's {:.1f} GB "
                           "(dashed line). A bar above the line does not fit.",
                           cap.value * 1e-9);
  mem.blocks.push_back(mc);
  page.sections.push_back(std::move(mem));

  // Scaling sweep.
  Section scaling{"scaling", "Scaling with the GPU count", {}};
  const auto& pts = scale.doc.value("points", nlohmann::json::array());
  Series tok{"tokens/s per GPU", {}, {}, false, false};
  Series m6{"MFU (6N)", {}, {}, false, false};
  Series ma{"MFU (with attention)", {}, {}, true, false};
  Table st{"Best plan at each GPU count",
           {"GPUs", "global batch", "plan", "tokens/s per GPU", "MFU (6N)", "step time"},
           {}};
  std::string missing;
  for (std::size_t i = 0; i < pts.size(); ++i) {
    const std::string b = fmt::format("/points/{}", i);
    const Ref g = ref(scale, b + "/gpus");
    if (!pts[i].value("found", false)) {
      st.rows.push_back({num(g, "{:.0f}"), num(ref(scale, b + "/global_batch"), "{:.0f}"),
                         Cell{"no plan: " + pts[i].value("reason", std::string()), {}, 1}, Cell{"", {}, 1},
                         Cell{"", {}, 1}, Cell{"", {}, 1}});
      missing += (missing.empty() ? "" : ", ") + fmt::format("{:.0f}", g.value);
      continue;
    }
    tok.x.push_back(g);
    tok.y.push_back(ref(scale, b + "/tokens_per_s_per_gpu"));
    m6.x.push_back(g);
    m6.y.push_back(ref(scale, b + "/mfu_6n"));
    ma.x.push_back(g);
    ma.y.push_back(ref(scale, b + "/mfu_attn"));
    st.rows.push_back({num(g, "{:.0f}"), num(ref(scale, b + "/global_batch"), "{:.0f}"),
                       Cell{pts[i]["plan"].value("text", std::string()), {}, 1},
                       num(tok.y.back(), "{:.0f}"), num(m6.y.back(), "{:.1f}", 100, "%"),
                       num(ref(scale, b + "/step_time_s"), "{:.3f}", 1, " s")});
  }
  const std::string mode = scale.doc.value("mode", std::string());
  const std::string batch_note =
      mode == "weak" ? fmt::format("{} sequences per GPU", scale.doc.value("batch_per_gpu", 0.0))
                     : fmt::format("global batch {}", scale.doc.value("global_batch", 0));
  const std::string gap = missing.empty() ? "" : fmt::format(" No plan fits at {} GPUs (see the table).", missing);
  Chart tc;
  tc.id = "scaling-tokens";
  tc.title = "Tokens/s per GPU against GPU count";
  tc.x_label = "GPUs";
  tc.y_label = "tokens/s per GPU";
  tc.x_log = true;
  tc.series = {tok};
  tc.caption = fmt::format("{} scaling ({}), the best plan a search finds at each GPU count; GPU count on a log scale. "
                           "A flat line is perfect scaling.{}",
                           mode, batch_note, gap);
  Chart fc;
  fc.id = "scaling-mfu";
  fc.title = "MFU against GPU count";
  fc.x_label = "GPUs";
  fc.y_label = "MFU (%)";
  fc.y_scale = 100;
  fc.x_log = true;
  fc.series = {m6, ma};
  fc.caption = fmt::format("Model FLOPs utilisation of the same sweep against the precision's dense peak: 6N-style "
                           "(solid) and counting attention FLOPs (dashed).{}",
                           gap);
  scaling.blocks.push_back(tc);
  scaling.blocks.push_back(fc);
  scaling.blocks.push_back(st);
  page.sections.push_back(std::move(scaling));
  return page;
}

}  // namespace gpuplan::report
