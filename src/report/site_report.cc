#include <fmt/format.h>

#include "report/kinds.h"

namespace gpuplan::report {

Page site_report(const Source& site) {
  const nlohmann::json& d = site.doc;
  const nlohmann::json cluster = d.value("cluster", nlohmann::json::object());
  const nlohmann::json retrofit = d.value("retrofit", nlohmann::json::object());
  const auto groups = cluster.value("groups", nlohmann::json::array());
  const auto positions = retrofit.value("positions", nlohmann::json::array());
  const auto changes = retrofit.value("changes", nlohmann::json::array());
  Page page;
  page.title = fmt::format("Site report: {} on {}", cluster.value("name", std::string()),
                           d.value("site", nlohmann::json::object()).value("name", std::string("(no site file)")));
  page.summary = fmt::format("{} system group(s), {:.2f} MW of IT, {:.2f} MW of facility power at PUE {:.2f}; {}; {} "
                             "thing(s) to change or check.",
                             groups.size(), cluster.value("it_w", 0.0) / 1e6, cluster.value("facility_w", 0.0) / 1e6,
                             d.value("site", nlohmann::json::object()).value("pue", 0.0),
                             cluster.value("fits", false) ? "it fits" : "it does not fit as the site is",
                             changes.size());
  page.sources = {site};

  // Power per unit by part, one stacked bar per system.
  Section ps{"power", "Power and floor use", {}};
  Chart pc;
  pc.id = "unit-power";
  pc.title = "IT power per unit by part";
  pc.type = ChartType::stacked_bar;
  pc.x_label = "system";
  pc.y_label = "kW per unit";
  pc.y_scale = 1e-3;
  const char* parts[] = {"gpu", "nic", "host", "switch", "storage"};
  for (const char* part : parts) pc.series.push_back({part, {}, {}, false, false});
  for (std::size_t i = 0; i < groups.size(); ++i) {
    pc.categories.push_back(groups[i].value("system", std::string()));
    for (std::size_t p = 0; p < std::size(parts); ++p)
      pc.series[p].y.push_back(ref(site, fmt::format("/cluster/groups/{}/parts_w/{}", i, parts[p])));
  }
  pc.caption = "Full-load IT power of one unit of each system (an HGX node or an NVL72 rack), split into GPUs, NICs, "
               "the host (CPUs, memory, fans, NVSwitch) and the unit's share of scale-out switches and storage.";
  ps.blocks.push_back(pc);
  Table gt{"Units, positions and power per system", {"system", "units", "placed", "positions used", "kW per unit",
                                                     "kW per rack"}, {}};
  for (std::size_t i = 0; i < groups.size(); ++i) {
    const std::string b = fmt::format("/cluster/groups/{}", i);
    gt.rows.push_back({Cell{groups[i].value("system", std::string()), {}, 1},
                       num(ref(site, b + "/requested_units"), "{:.0f}"), num(ref(site, b + "/placed_units"), "{:.0f}"),
                       num(ref(site, b + "/positions_used"), "{:.0f}"), num(ref(site, b + "/unit_w"), "{:.1f}", 1e-3),
                       num(ref(site, b + "/rack_w"), "{:.1f}", 1e-3)});
  }
  ps.blocks.push_back(gt);
  page.sections.push_back(std::move(ps));

  // Positions by cooling kind: needed against what the site has.
  Section qs{"positions", "Positions by cooling kind", {}};
  Chart qc;
  qc.id = "positions";
  qc.title = "Positions needed and available, by cooling kind";
  qc.type = ChartType::bar;
  qc.x_label = "cooling";
  qc.y_label = "positions";
  Series need{"needed", {}, {}, false, false}, have{"available (take a unit)", {}, {}, false, false};
  for (std::size_t i = 0; i < positions.size(); ++i) {
    qc.categories.push_back(positions[i].value("cooling", std::string()));
    need.y.push_back(ref(site, fmt::format("/retrofit/positions/{}/needed", i)));
    have.y.push_back(ref(site, fmt::format("/retrofit/positions/{}/available", i)));
  }
  qc.series = {need, have};
  qc.caption = "For each cooling kind the deployment uses: the positions it fills (each system at the densest the "
               "site's positions allow) next to the site's positions of that kind that take at least one unit. A gap "
               "is what to add.";
  qs.blocks.push_back(qc);
  page.sections.push_back(std::move(qs));

  // What has to change.
  Section cs{"changes", "What has to change", {}};
  for (const auto& c : changes) cs.blocks.push_back(Paragraph{c.get<std::string>()});
  Table ct{"Cooling, power and network figures", {"figure", "value"}, {}};
  struct F {
    const char* key;
    const char* label;
    const char* format;
    double scale;
    const char* suffix;
  };
  constexpr F kFigures[] = {
      {"liquid_heat_w", "heat to liquid", "{:.0f}", 1e-3, " kW"},
      {"cdu_capacity_w", "CDU capacity on the site", "{:.0f}", 1e-3, " kW"},
      {"cdu_to_add_w", "CDU capacity to add", "{:.0f}", 1e-3, " kW"},
      {"water_flow_kg_per_s", "facility water flow", "{:.1f}", 1, " kg/s"},
      {"feed_needed_w", "feed needed (with headroom)", "{:.2f}", 1e-6, " MW"},
      {"feed_to_add_w", "feed to add", "{:.2f}", 1e-6, " MW"},
      {"circuits", "rack power circuits (2N)", "{:.0f}", 1, ""},
      {"switch_racks", "network racks (scale-out switches)", "{:.0f}", 1, ""},
      {"network_w", "network power (switches and optics)", "{:.0f}", 1e-3, " kW"},
      {"liquid_retrofit_usd_order", "liquid retrofit, order of magnitude (assumption)", "{:.1f}", 1e-6, " $M"},
  };
  for (const F& f : kFigures)
    if (retrofit.contains(f.key)) ct.rows.push_back({Cell{f.label, {}, 1}, num(ref(site, std::string("/retrofit/") + f.key), f.format, f.scale, f.suffix)});
  cs.blocks.push_back(ct);
  const auto floor = retrofit.value("floor", nlohmann::json::array());
  if (!floor.empty()) {
    Table ft{"Floor loading of rack-scale systems", {"system", "rack kg", "kg per m2", "source"}, {}};
    for (std::size_t i = 0; i < floor.size(); ++i)
      ft.rows.push_back({Cell{floor[i].value("system", std::string()), {}, 1},
                         num(ref(site, fmt::format("/retrofit/floor/{}/rack_kg", i)), "{:.0f}"),
                         num(ref(site, fmt::format("/retrofit/floor/{}/kg_per_m2", i)), "{:.0f}"),
                         Cell{floor[i].value("source", std::string()), {}, 1}});
    cs.blocks.push_back(ft);
  }
  page.sections.push_back(std::move(cs));
  return page;
}

}  // namespace gpuplan::report
