#include "report/page.h"

#include <gtest/gtest.h>

#include <regex>

#include "report/chart_library.h"
#include "report/kinds.h"

namespace gpuplan::report {
namespace {

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto pos = text.find(what); pos != std::string::npos; pos = text.find(what, pos + what.size())) ++n;
  return n;
}

Source sample_source() {
  return Source{"train", "a <training> step", {"train", "--model", "x & y", "--json"},
                nlohmann::json::parse(R"({"step_time_s": 12.5, "mfu": {"6n": 0.42}, "name": "</script><b>",
                                          "list": [1.5, 2.5, 3.5], "text": "n/a"})")};
}

Page sample_page() {
  const Source src = sample_source();
  Page page;
  page.title = "Report <&> \"quoted\"";
  page.summary = "summary 'single'";
  page.sources = {src};
  page.provenance = {"gpuplan report train --model 'x & y'", "9.9.9", {{"h100 (accelerator)", "tdp_w", "700", "https://example.org/<a>"}}};
  Section s{"results", "Results <1>", {}};
  s.blocks.push_back(Paragraph{"a < b && c > d"});
  s.blocks.push_back(Table{"Caption & more", {"plan", "step time"}, {{Cell{"<given>", {}, 1}, num(ref(src, "/step_time_s"), "{:.2f}", 1, " s")}}});
  Chart bar;
  bar.id = "bars";
  bar.title = "Bars";
  bar.type = ChartType::stacked_bar;
  bar.x_label = "plan";
  bar.y_label = "seconds";
  bar.caption = "Stacked bars.";
  bar.categories = {"given"};
  bar.series = {Series{"step", {}, {ref(src, "/step_time_s")}, false, false}};
  bar.limits = {Limit{"cap", 'y', 20, std::nullopt}};
  Chart line;
  line.id = "line";
  line.title = "Line";
  line.x_label = "x";
  line.y_label = "y %";
  line.y_scale = 100;
  line.caption = "A line.";
  line.series = {Series{"s", {ref(src, "/list/0"), ref(src, "/list/1")}, {ref(src, "/mfu/6n"), ref(src, "/mfu/6n")}, false, false}};
  s.blocks.push_back(bar);
  s.blocks.push_back(line);
  page.sections.push_back(s);
  return page;
}

TEST(Escaping, HtmlAndScriptJsonAndShell) {
  EXPECT_EQ(escape_html("<a href=\"x\">'&'</a>"), "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;");
  const std::string j = script_json(nlohmann::json{{"k", "</script><!-- & -->"}});
  EXPECT_EQ(j.find('<'), std::string::npos);
  EXPECT_EQ(j.find('>'), std::string::npos);
  EXPECT_EQ(j.find('&'), std::string::npos);
  EXPECT_EQ(nlohmann::json::parse(j)["k"], "</script><!-- & -->");  // same value once parsed
  EXPECT_EQ(shell_quote("tp=4,pp=2"), "tp=4,pp=2");
  EXPECT_EQ(shell_quote("it's x"), "'it'\\''s x'");
  EXPECT_EQ(shell_quote(""), "''");
  EXPECT_EQ(command_line({"train", "--model", "a b"}), "gpuplan train --model 'a b'");
}

TEST(Ref, ReadsNumbersAndRejectsTheRest) {
  const Source src = sample_source();
  const Ref r = ref(src, "/mfu/6n");
  EXPECT_DOUBLE_EQ(r.value, 0.42);
  EXPECT_EQ(r.source, "train");
  EXPECT_EQ(r.path, "/mfu/6n");
  EXPECT_THROW(ref(src, "/missing"), std::runtime_error);
  EXPECT_THROW(ref(src, "/text"), std::runtime_error);
  const Cell c = num(r, "{:.1f}", 100, "%");
  EXPECT_EQ(c.text, "42.0%");
  EXPECT_DOUBLE_EQ(c.scale, 100);
}

TEST(Page, EscapesEveryUserStringAndNothingBreaksOutOfScripts) {
  const std::string html = render_html(sample_page(), "/* lib */", "chart.js test");
  EXPECT_NE(html.find("<title>Report &lt;&amp;&gt; &quot;quoted&quot;</title>"), std::string::npos);
  EXPECT_NE(html.find("a &lt; b &amp;&amp; c &gt; d"), std::string::npos);
  EXPECT_NE(html.find("&lt;given&gt;"), std::string::npos);
  EXPECT_NE(html.find("gpuplan train --model &#39;x &amp; y&#39; --json"), std::string::npos);
  EXPECT_EQ(html.find("<b>"), std::string::npos);  // the source's "</script><b>" stays inside its JSON
  EXPECT_EQ(html.find("<given>"), std::string::npos);
  // Every <script> element closes once: nothing inside one closed it early.
  EXPECT_EQ(count(html, "<script"), count(html, "</script>"));
}

TEST(Page, TablesAreAccessibleAndCarryTheirNumbers) {
  const std::string html = render_html(sample_page(), "", "chart.js test");
  EXPECT_NE(html.find("<html lang=\"en\">"), std::string::npos);
  EXPECT_NE(html.find("<caption>Caption &amp; more</caption>"), std::string::npos);
  EXPECT_NE(html.find("<th scope=\"col\">step time</th>"), std::string::npos);
  EXPECT_NE(html.find("<th scope=\"row\">&lt;given&gt;</th>"), std::string::npos);
  EXPECT_NE(html.find("data-source=\"train\" data-path=\"/step_time_s\" data-value=\"12.5\" data-scale=\"1.0\">12.50 s</td>"),
            std::string::npos);
  // The provenance section: command line, version, catalog figures with sources, source commands.
  EXPECT_NE(html.find("id=\"provenance\""), std::string::npos);
  EXPECT_NE(html.find("9.9.9"), std::string::npos);
  EXPECT_NE(html.find("https://example.org/&lt;a&gt;"), std::string::npos);
  EXPECT_NE(html.find("Catalog figures used"), std::string::npos);
  EXPECT_NE(html.find("@media print"), std::string::npos);
}

TEST(Page, EveryChartHasADataBlockACaptionAndATextAlternative) {
  const Page page = sample_page();
  const std::string html = render_html(page, "/* lib */", "chart.js test");
  for (const std::string id : {"bars", "line"}) {
    SCOPED_TRACE(id);
    EXPECT_EQ(count(html, "<canvas id=\"chart-" + id + "-canvas\" role=\"img\" aria-label=\""), 1u);
    EXPECT_EQ(count(html, "<figcaption id=\"chart-" + id + "-caption\">"), 1u);
    EXPECT_EQ(count(html, "class=\"gpuplan-chart-data\" data-chart=\"" + id + "\">"), 1u);
    EXPECT_EQ(count(html, "<h3 id=\"chart-" + id + "-title\">"), 1u);
  }
  EXPECT_EQ(count(html, "<figure class=\"chart\""), 2u);
  EXPECT_EQ(count(html, "class=\"gpuplan-chart-data\""), 2u);
  EXPECT_EQ(count(html, "<details class=\"chart-data\">"), 2u);
  // The data block is the chart's JSON, with every value's source and path.
  const std::regex block("data-chart=\"line\">([^<]*)</script>");
  std::smatch m;
  ASSERT_TRUE(std::regex_search(html, m, block));
  const auto j = nlohmann::json::parse(m[1].str());
  EXPECT_EQ(j["title"], "Line");
  EXPECT_EQ(j["y_scale"], 100);
  EXPECT_EQ(j["series"][0]["y"][0]["path"], "/mfu/6n");
  EXPECT_EQ(j["series"][0]["color"], palette()[0]);
  // The chart's data table shows the scaled numbers (42% here).
  EXPECT_NE(html.find("data-path=\"/mfu/6n\" data-value=\"0.42\" data-scale=\"100.0\">42.00</td>"), std::string::npos);
}

TEST(Page, ErrorBandsCarryTheirSourcesAndMatchTheirSeries) {
  const Source src = sample_source();
  Chart c;
  c.id = "banded";
  c.type = ChartType::bar;
  c.categories = {"a", "b"};
  c.series = {Series{"s", {}, {ref(src, "/list/1"), ref(src, "/step_time_s")}, false, false}};
  // The first bar has an absolute band, the second a relative one (multipliers), a third none.
  c.bands = {SeriesBand{0, {BandPoint{ref(src, "/list/0"), ref(src, "/list/2"), false},
                            BandPoint{ref(src, "/mfu/6n"), ref(src, "/list/0"), true}}}};
  const auto j = chart_json(c);
  const auto& band = j["series"][0]["band"];
  ASSERT_EQ(band.size(), 2u);
  EXPECT_EQ(band[0]["low"]["path"], "/list/0");
  EXPECT_EQ(band[0]["high"]["value"], 3.5);
  EXPECT_FALSE(band[0]["relative"].get<bool>());
  EXPECT_TRUE(band[1]["relative"].get<bool>());
  c.bands[0].points.push_back(BandPoint{});  // three band points for two bars
  EXPECT_THROW(chart_json(c), std::runtime_error);
  c.bands[0].points.pop_back();
  c.bands[0].points[1].high.reset();  // low without high
  EXPECT_THROW(chart_json(c), std::runtime_error);
  c.bands[0].points[1] = BandPoint{};  // no band at that bar: null edges
  EXPECT_TRUE(chart_json(c)["series"][0]["band"][1]["low"].is_null());
}

TEST(Page, InlinesTheChartLibraryAndTheSources) {
  const std::string html = render_html(sample_page(), "window.FAKE_LIB=1;", "chart.js 0.0");
  EXPECT_NE(html.find("window.FAKE_LIB=1;"), std::string::npos);
  const std::regex block("id=\"gpuplan-sources\">([^<]*)</script>");
  std::smatch m;
  ASSERT_TRUE(std::regex_search(html, m, block));
  const auto j = nlohmann::json::parse(m[1].str());
  EXPECT_EQ(j[0]["doc"], sample_source().doc);
  EXPECT_EQ(j[0]["args"][2], "x & y");
}

TEST(ChartLibrary, IsEmbeddedAndSafeToInline) {
  const std::string_view js = chart_library_js();
  EXPECT_GT(js.size(), 100000u);
  EXPECT_NE(js.find("Chart"), std::string_view::npos);
  EXPECT_EQ(js.find("</script"), std::string_view::npos);
  EXPECT_EQ(chart_library_version().substr(0, 9), "chart.js ");
}

TEST(Palette, IsOkabeItoFirst) {
  const std::vector<std::string> okabe_ito = {"#0072B2", "#E69F00", "#009E73", "#CC79A7",
                                              "#56B4E9", "#D55E00", "#F0E442", "#000000"};
  ASSERT_GE(palette().size(), okabe_ito.size());
  for (std::size_t i = 0; i < okabe_ito.size(); ++i) EXPECT_EQ(palette()[i], okabe_ito[i]);
}

TEST(CatalogFigures, EachFigureWithItsSource) {
  const Source s{"catalog-h100", "", {}, nlohmann::json::parse(R"({"kind": "accelerator", "entry": {"name": "h100",
      "tdp_w": 700.0, "peak_flops_per_s": {"bf16": 9.895e14}, "aliases": ["H100"],
      "sources": {"*": "datasheet", "tdp_w": "power page"}}})")};
  const auto f = catalog_figures(s);
  ASSERT_EQ(f.size(), 2u);
  EXPECT_EQ(f[0].entry, "h100 (accelerator)");
  EXPECT_EQ(f[0].field, "peak_flops_per_s.bf16");
  EXPECT_EQ(f[0].source, "datasheet");
  EXPECT_EQ(f[1].field, "tdp_w");
  EXPECT_EQ(f[1].value, "700.0");
  EXPECT_EQ(f[1].source, "power page");
}

TEST(Kinds, ScheduleReportReferencesEveryPolicy) {
  const Source s{"schedule", "", {"schedule", "--json"}, nlohmann::json::parse(R"({"cluster": {"name": "c", "gpus": 8},
      "trace": {"source": "generated", "jobs": 2}, "cross_domain_slowdown_pct": 5.0, "results": [
      {"policy": "fifo", "jobs": 2, "utilisation": 0.5, "avg_jct_s": 10, "p99_jct_s": 20, "avg_queueing_delay_s": 3600,
       "p99_queueing_delay_s": 7200, "makespan_s": 100, "fragmentation": 0, "one_domain_share": 1, "split_jobs": 0,
       "gpu_hours_lost_to_cross_domain": 0, "preemptions": 0,
       "timeline": {"bin_s": 50, "t_s": [25, 75], "utilisation": [1.0, 0.0]}}]})")};
  const Page p = schedule_report(s);
  const std::string html = render_html(p, "", "chart.js test");
  EXPECT_NE(html.find("data-chart=\"utilisation\""), std::string::npos);
  EXPECT_NE(html.find("data-chart=\"queueing-delay\""), std::string::npos);
  EXPECT_NE(html.find("data-path=\"/results/0/avg_queueing_delay_s\" data-value=\"3600.0\""), std::string::npos);
  EXPECT_NE(html.find("data-path=\"/results/0/timeline/utilisation/1\""), std::string::npos);
  // A document without the numbers a chart needs is an error, never a silently empty chart.
  Source broken = s;
  broken.doc["results"][0].erase("p99_queueing_delay_s");
  EXPECT_THROW(schedule_report(broken), std::runtime_error);
}

}  // namespace
}  // namespace gpuplan::report
