// The size report: a serving demand sized on every system (`gpuplan size --json`): cost and odds per
// system as charts, and the whole table with every figure pointing back to the document.
#include <fmt/format.h>

#include "report/kinds.h"

namespace gpuplan::report {

Page size_report(const Source& size) {
  const nlohmann::json& d = size.doc;
  const auto options = d.value("options", nlohmann::json::array());
  const auto demand = d.value("demand", nlohmann::json::object());
  const auto sla = d.value("sla", nlohmann::json::object());
  Page page;
  // The lengths' law where they vary (size's `lengths`: a dataset's up to isl_max, or a client's uniform).
  const auto lengths = d.value("lengths", nlohmann::json::object());
  const std::string law = lengths.value("law", std::string("fixed"));
  std::string varying;
  if (law == "dataset") varying = fmt::format(", prompts up to {}", lengths.value("isl_max", 0));
  if (law == "client_uniform")
    varying = fmt::format(", lengths uniform from {:g} x the longest", lengths.value("length_low", 1.0));
  page.title = fmt::format("Sizing: {} at {:.3g} requests/s (peak), ISL/OSL {}/{}{}", d.value("model", std::string()),
                           demand.value("peak_requests_per_s", 0.0), d.value("isl", 0), d.value("osl", 0), varying);
  const double ttft_limit_s = sla.value("ttft_p99_s", 0.0);
  page.summary = fmt::format("{}{}; units bought so that P(meets SLA) >= {:g} over {} draws of the model's error; {} "
                             "prices.",
                             ttft_limit_s > 0 ? fmt::format("TTFT p99 within {:.3g} s", ttft_limit_s) : "No TTFT limit",
                             sla.value("tokens_per_s_per_user", 0.0) > 0
                                 ? fmt::format(", {:g} tokens/s per user", sla.value("tokens_per_s_per_user", 0.0))
                                 : "",
                             d.value("confidence", 0.0), d.value("draws", 0), d.value("price_mode", std::string()));
  page.sources = {size};

  // Priced, sized options, in the document's order (cheapest first).
  std::vector<std::size_t> sized;
  for (std::size_t i = 0; i < options.size(); ++i)
    if (options[i].contains("units") && options[i].value("priced", false)) sized.push_back(i);

  Section cs{"cost", "Cost and odds per system", {}};
  Chart money;
  money.id = "usd-per-million-tokens";
  money.title = "$ per million output tokens at the average demand";
  money.type = ChartType::bar;
  money.x_label = "system";
  money.y_label = "$ per million tokens";
  money.series.push_back({"$ per million tokens", {}, {}, false, false});
  Chart odds;
  odds.id = "odds";
  odds.title = "P(meets SLA) of the purchase and P(cheapest)";
  odds.type = ChartType::bar;
  odds.x_label = "system";
  odds.y_label = "probability, %";
  odds.y_scale = 100;
  odds.y_max = 100;
  odds.series.push_back({"P(meets SLA)", {}, {}, false, false});
  odds.series.push_back({"P(cheapest)", {}, {}, false, false});
  for (std::size_t i : sized) {
    const std::string system = options[i].value("system", std::string());
    money.categories.push_back(system);
    odds.categories.push_back(system);
    money.series[0].y.push_back(ref(size, fmt::format("/options/{}/usd_per_million_tokens", i)));
    odds.series[0].y.push_back(ref(size, fmt::format("/options/{}/p_meets_sla", i)));
    odds.series[1].y.push_back(ref(size, fmt::format("/options/{}/p_cheapest", i)));
  }
  money.caption = "What each system's purchase costs per million output tokens a year at the average demand (owned: "
                  "the TCO of the units; rented: GPUs x price x hours), cheapest first.";
  odds.caption = "The chance the purchase meets the SLA under the model's error (one draw per accelerator generation, "
                 "shared), and the chance each system is the cheapest that meets it.";
  cs.blocks.push_back(money);
  cs.blocks.push_back(odds);
  page.sections.push_back(std::move(cs));

  Section ts{"options", "Every system", {}};
  Table t{"Units, money, power and latency per system",
          {"system", "units", "GPUs", "capex $M", "$M per year", "$ per M tokens", "IT kW", "facility MW",
           "P(meets SLA)", "P(cheapest)", "TTFT p99 s", "tokens/s per user"},
          {}};
  for (std::size_t i = 0; i < options.size(); ++i) {
    const auto& o = options[i];
    if (!o.contains("units")) continue;
    const std::string b = fmt::format("/options/{}", i);
    t.rows.push_back({Cell{o.value("system", std::string()), {}, 1}, num(ref(size, b + "/units"), "{:.0f}"),
                      num(ref(size, b + "/gpus"), "{:.0f}"), num(ref(size, b + "/capex_usd"), "{:.2f}", 1e-6),
                      num(ref(size, b + "/usd_per_year"), "{:.2f}", 1e-6),
                      num(ref(size, b + "/usd_per_million_tokens"), "{:.3f}"), num(ref(size, b + "/it_kw"), "{:.0f}"),
                      num(ref(size, b + "/facility_mw"), "{:.2f}"), num(ref(size, b + "/p_meets_sla"), "{:.2f}"),
                      num(ref(size, b + "/p_cheapest"), "{:.2f}"), num(ref(size, b + "/ttft_p99_s"), "{:.2f}"),
                      num(ref(size, b + "/tokens_per_s_per_user"), "{:.1f}")});
  }
  ts.blocks.push_back(t);
  for (const auto& o : options)
    if (o.contains("why_not"))
      ts.blocks.push_back(Paragraph{o.value("system", std::string()) + ": " + o.value("why_not", std::string())});
  page.sections.push_back(std::move(ts));

  // The money's sensitivity: the tornado of the cheapest priced purchase, and the crossover of the two
  // cheapest (size --sensitivity).
  Section ms{"sensitivity", "What moves the money", {}};
  for (std::size_t i : sized) {
    const auto bars = options[i].value("sensitivity", nlohmann::json::array());
    if (bars.empty()) continue;
    Chart tornado;
    tornado.id = "tornado";
    tornado.title = fmt::format("$ per million tokens of {} (owned) at each parameter's low and high",
                                options[i].value("system", std::string()));
    tornado.type = ChartType::bar;
    tornado.x_label = "parameter (low / high)";
    tornado.y_label = "$ per million tokens";
    tornado.series.push_back({"at the low value", {}, {}, false, false});
    tornado.series.push_back({"at the high value", {}, {}, false, false});
    for (std::size_t j = 0; j < bars.size(); ++j) {
      const auto& b = bars[j];
      tornado.categories.push_back(fmt::format("{} ({:.4g} / {:.4g} {})", b.value("parameter", std::string()),
                                               b.value("low", 0.0), b.value("high", 0.0), b.value("unit", std::string())));
      const std::string at = fmt::format("/options/{}/sensitivity/{}", i, j);
      tornado.series[0].y.push_back(ref(size, at + "/usd_per_million_tokens_low"));
      tornado.series[1].y.push_back(ref(size, at + "/usd_per_million_tokens_high"));
    }
    tornado.caption = "The cheapest purchase's $ per million output tokens with one input of the cost model at its low "
                      "and its high value, the others as stated, widest first: which assumption the answer turns on.";
    ms.blocks.push_back(tornado);
    break;
  }
  if (d.contains("crossover")) {
    const auto& x = d["crossover"];
    // Whole dollars a unit owned, cents a GPU-hour rented.
    const char* format = d.value("price_mode", std::string()) == "own" ? "{:.0f}" : "{:.2f}";
    const auto price = [&](const char* key) {
      return x[key].is_null() ? Cell{"no price", {}, 1} : num(ref(size, std::string("/crossover/") + key), format);
    };
    Table c{fmt::format("Crossover of the two cheapest purchases, units as bought ({})", x.value("price_unit", std::string())),
            {"", "system", "price now", "price at which the two cost the same a year"},
            {}};
    c.rows.push_back({Cell{"the runner-up overtakes below", {}, 1}, Cell{x.value("runner_up", std::string()), {}, 1},
                      price("runner_up_price_usd"), price("runner_up_overtakes_below_usd")});
    c.rows.push_back({Cell{"the first loses its place above", {}, 1}, Cell{x.value("first", std::string()), {}, 1},
                      price("first_price_usd"), price("first_loses_above_usd")});
    ms.blocks.push_back(c);
  }
  if (!ms.blocks.empty()) page.sections.push_back(std::move(ms));
  return page;
}

}  // namespace gpuplan::report
