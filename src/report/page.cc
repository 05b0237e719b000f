#include "report/page.h"

#include <fmt/format.h>

#include <cctype>
#include <stdexcept>

#include "report/page_assets.h"

namespace gpuplan::report {

namespace {

// Numbers in chart data tables: enough digits to read, never an exponent.
std::string auto_format(double v) {
  const double a = v < 0 ? -v : v;
  if (a >= 1000) return fmt::format("{:.0f}", v);
  if (a >= 100) return fmt::format("{:.1f}", v);
  if (a >= 1) return fmt::format("{:.2f}", v);
  return fmt::format("{:.4f}", v);
}

nlohmann::json ref_json(const Ref& r) { return {{"value", r.value}, {"source", r.source}, {"path", r.path}}; }

std::string attr(std::string_view s) { return escape_html(s); }

std::string cell_html(const Cell& c, bool row_header) {
  std::string open = row_header ? "<th scope=\"row\"" : "<td";
  if (c.ref) {
    open += fmt::format(" class=\"num\" data-source=\"{}\" data-path=\"{}\" data-value=\"{}\" data-scale=\"{}\"",
                        attr(c.ref->source), attr(c.ref->path), nlohmann::json(c.ref->value).dump(),
                        nlohmann::json(c.scale).dump());
  }
  return open + ">" + escape_html(c.text) + (row_header ? "</th>" : "</td>");
}

std::string table_html(const Table& t, const std::string& extra_class = "") {
  std::string out = "<div class=\"table-wrap\"><table" + (extra_class.empty() ? "" : " class=\"" + extra_class + "\"") + ">";
  if (!t.caption.empty()) out += "<caption>" + escape_html(t.caption) + "</caption>";
  out += "<thead><tr>";
  for (const auto& c : t.columns) out += "<th scope=\"col\">" + escape_html(c) + "</th>";
  out += "</tr></thead><tbody>";
  for (const auto& row : t.rows) {
    out += "<tr>";
    for (std::size_t i = 0; i < row.size(); ++i) out += cell_html(row[i], i == 0);
    out += "</tr>";
  }
  return out + "</tbody></table></div>\n";
}

// The chart's numbers as a table: its text alternative in full, and what prints without the canvas.
Table chart_table(const Chart& c) {
  Table t;
  t.caption = "Data of: " + c.title;
  if (c.type != ChartType::line) {
    t.columns.push_back(c.x_label);
    for (const auto& s : c.series) t.columns.push_back(s.name + " (" + c.y_label + ")");
    for (std::size_t i = 0; i < c.categories.size(); ++i) {
      std::vector<Cell> row{Cell{c.categories[i], std::nullopt, 1}};
      for (const auto& s : c.series)
        row.push_back(i < s.y.size() ? num(s.y[i], "{}", c.y_scale) : Cell{"", std::nullopt, 1});
      t.rows.push_back(std::move(row));
    }
  } else {
    t.columns = {"series", c.x_label, c.y_label};
    for (const auto& s : c.series)
      for (std::size_t i = 0; i < s.y.size() && i < s.x.size(); ++i)
        t.rows.push_back({Cell{s.name, std::nullopt, 1}, num(s.x[i], "{}", c.x_scale), num(s.y[i], "{}", c.y_scale)});
  }
  for (const auto& l : c.limits) {
    std::vector<Cell> row{Cell{l.label + " (limit, " + (l.axis == 'x' ? c.x_label : c.y_label) + ")", std::nullopt, 1},
                          Cell{auto_format(l.value * (l.axis == 'x' ? c.x_scale : c.y_scale)), std::nullopt, 1}};
    while (row.size() < t.columns.size()) row.push_back(Cell{"", std::nullopt, 1});
    t.rows.push_back(std::move(row));
  }
  return t;
}

std::string chart_html(const Chart& c) {
  const std::string id = "chart-" + c.id;
  std::string out = fmt::format("<figure class=\"chart\" id=\"{0}\" aria-labelledby=\"{0}-title\">\n", attr(id));
  out += fmt::format("<h3 id=\"{}-title\">{}</h3>\n", attr(id), escape_html(c.title));
  out += fmt::format(
      "<div class=\"chart-box\"><canvas id=\"{0}-canvas\" role=\"img\" aria-label=\"{1}\" "
      "aria-describedby=\"{0}-caption\">{2}</canvas></div>\n",
      attr(id), attr(c.title + ". " + c.caption), escape_html(c.caption));
  out += "<noscript><p class=\"note\">This chart is drawn by JavaScript; its numbers are in the table below.</p></noscript>\n";
  out += fmt::format("<figcaption id=\"{}-caption\">{}</figcaption>\n", attr(id), escape_html(c.caption));
  out += "<details class=\"chart-data\"><summary>Data table</summary>\n" + table_html(chart_table(c)) + "</details>\n";
  out += fmt::format("<script type=\"application/json\" class=\"gpuplan-chart-data\" data-chart=\"{}\">{}</script>\n",
                     attr(c.id), script_json(chart_json(c)));
  return out + "</figure>\n";
}

struct BlockHtml {
  std::string operator()(const Paragraph& p) const { return "<p>" + escape_html(p.text) + "</p>\n"; }
  std::string operator()(const Table& t) const { return table_html(t); }
  std::string operator()(const Chart& c) const { return chart_html(c); }
};

std::string section_html(const Section& s) {
  std::string out = fmt::format("<section id=\"{0}\" aria-labelledby=\"{0}-h\">\n<h2 id=\"{0}-h\">{1}</h2>\n",
                                attr(s.id), escape_html(s.title));
  for (const auto& b : s.blocks) out += std::visit(BlockHtml{}, b);
  return out + "</section>\n";
}

Section provenance_section(const Page& page, std::string_view chart_js_version) {
  Section s{"provenance", "Inputs and provenance", {}};
  s.blocks.push_back(Paragraph{"Everything needed to reproduce this report: the command that wrote it, the gpuplan "
                               "commands whose --json output it shows (each number on this page equals theirs), and "
                               "the catalog figures the results rest on, with their sources."});
  Table inputs{"Inputs", {"item", "value"}, {}};
  inputs.rows.push_back({Cell{"command line", {}, 1}, Cell{page.provenance.command_line, {}, 1}});
  inputs.rows.push_back({Cell{"gpuplan version", {}, 1}, Cell{page.provenance.version, {}, 1}});
  inputs.rows.push_back({Cell{"charting library", {}, 1}, Cell{std::string(chart_js_version), {}, 1}});
  s.blocks.push_back(inputs);
  Table sources{"Commands whose --json output this page shows", {"source", "what", "command"}, {}};
  for (const auto& src : page.sources)
    sources.rows.push_back({Cell{src.id, {}, 1}, Cell{src.title, {}, 1}, Cell{command_line(src.args), {}, 1}});
  s.blocks.push_back(sources);
  if (!page.provenance.figures.empty()) {
    Table figs{"Catalog figures used, with their sources", {"entry", "figure", "value", "source"}, {}};
    for (const auto& f : page.provenance.figures)
      figs.rows.push_back({Cell{f.entry, {}, 1}, Cell{f.field, {}, 1}, Cell{f.value, {}, 1}, Cell{f.source, {}, 1}});
    s.blocks.push_back(figs);
  }
  return s;
}

}  // namespace

Ref ref(const Source& src, const std::string& path) {
  const nlohmann::json::json_pointer p(path);
  if (!src.doc.contains(p)) throw std::runtime_error("report: " + src.id + " has no value at " + path);
  const auto& v = src.doc.at(p);
  if (!v.is_number()) throw std::runtime_error("report: " + src.id + path + " is not a number");
  return Ref{v.get<double>(), src.id, path};
}

Cell num(const Ref& r, const std::string& format, double scale, const std::string& suffix) {
  const double v = r.value * scale;
  std::string text = format == "{}" ? auto_format(v) : fmt::format(fmt::runtime(format), v);
  return Cell{text + suffix, r, scale};
}

std::string escape_html(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char ch : text) {
    switch (ch) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += ch;
    }
  }
  return out;
}

std::string script_json(const nlohmann::json& j) {
  const std::string s = j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  std::string out;
  out.reserve(s.size());
  for (char ch : s) {
    // Only possible inside JSON strings, where the \u form means the same character.
    if (ch == '<') out += "\\u003c";
    else if (ch == '>') out += "\\u003e";
    else if (ch == '&') out += "\\u0026";
    else out += ch;
  }
  return out;
}

std::string shell_quote(std::string_view arg) {
  bool plain = !arg.empty();
  for (char ch : arg)
    if (!(std::isalnum(static_cast<unsigned char>(ch)) || std::string_view("-_./=,:+@%").find(ch) != std::string_view::npos))
      plain = false;
  if (plain) return std::string(arg);
  std::string out = "'";
  for (char ch : arg) out += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
  return out + "'";
}

std::string command_line(const std::vector<std::string>& args) {
  std::string out = "gpuplan";
  for (const auto& a : args) {
    out += ' ';
    out += shell_quote(a);
  }
  return out;
}

const std::vector<std::string>& palette() {
  static const std::vector<std::string> colours = {"#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9",
                                                   "#D55E00", "#F0E442", "#000000", "#882255", "#44AA99",
                                                   "#999933"};
  return colours;
}

nlohmann::json chart_json(const Chart& c) {
  nlohmann::json series = nlohmann::json::array();
  for (std::size_t i = 0; i < c.series.size(); ++i) {
    const Series& s = c.series[i];
    nlohmann::json x = nlohmann::json::array(), y = nlohmann::json::array();
    for (const auto& r : s.x) x.push_back(ref_json(r));
    for (const auto& r : s.y) y.push_back(ref_json(r));
    series.push_back({{"name", s.name}, {"color", palette()[i % palette().size()]}, {"dashed", s.dashed},
                      {"points_only", s.points_only}, {"x", x}, {"y", y}});
  }
  for (const SeriesBand& b : c.bands) {
    if (b.series >= series.size() || b.points.size() != c.series[b.series].y.size())
      throw std::runtime_error("chart " + c.id + ": a band needs one point per point of its series");
    nlohmann::json pts = nlohmann::json::array();
    for (const BandPoint& p : b.points) {
      if (p.low.has_value() != p.high.has_value())
        throw std::runtime_error("chart " + c.id + ": a band point needs both low and high, or neither");
      pts.push_back({{"low", p.low ? ref_json(*p.low) : nlohmann::json()},
                     {"high", p.high ? ref_json(*p.high) : nlohmann::json()},
                     {"relative", p.relative}});
    }
    series[b.series]["band"] = pts;
  }
  nlohmann::json limits = nlohmann::json::array();
  for (std::size_t i = 0; i < c.limits.size(); ++i) {
    const Limit& l = c.limits[i];
    nlohmann::json j = {{"label", l.label}, {"axis", std::string(1, l.axis)}, {"value", l.value},
                        {"color", i % 2 ? "#666666" : "#D55E00"}};
    if (l.from) j["from"] = ref_json(*l.from);
    limits.push_back(std::move(j));
  }
  return {{"id", c.id},           {"title", c.title},         {"type", c.type == ChartType::stacked_bar ? "stacked_bar" : c.type == ChartType::bar ? "bar" : "line"},
          {"x_label", c.x_label}, {"y_label", c.y_label},     {"caption", c.caption},
          {"x_scale", c.x_scale}, {"y_scale", c.y_scale},     {"x_log", c.x_log}, {"y_log", c.y_log}, {"y_max", c.y_max},
          {"categories", c.categories}, {"series", series},   {"limits", limits}};
}

std::string render_html(const Page& page, std::string_view chart_js, std::string_view chart_js_version) {
  std::string out = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                    "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
  out += "<meta name=\"generator\" content=\"gpuplan " + attr(page.provenance.version) + "\">\n";
  out += "<title>" + escape_html(page.title) + "</title>\n<style>\n" + std::string(page_css()) +
         "</style>\n</head>\n<body>\n";
  out += "<header>\n<h1>" + escape_html(page.title) + "</h1>\n";
  if (!page.summary.empty()) out += "<p class=\"summary\">" + escape_html(page.summary) + "</p>\n";
  out += "<nav aria-label=\"Contents\"><ol>";
  for (const auto& s : page.sections)
    out += fmt::format("<li><a href=\"#{}\">{}</a></li>", attr(s.id), escape_html(s.title));
  out += "<li><a href=\"#provenance\">Inputs and provenance</a></li></ol></nav>\n</header>\n<main>\n";
  for (const auto& s : page.sections) out += section_html(s);
  out += section_html(provenance_section(page, chart_js_version));
  out += "</main>\n";
  nlohmann::json sources = nlohmann::json::array();
  for (const auto& s : page.sources)
    sources.push_back({{"id", s.id}, {"title", s.title}, {"args", s.args}, {"doc", s.doc}});
  out += "<script type=\"application/json\" id=\"gpuplan-sources\">" + script_json(sources) + "</script>\n";
  out += "<script>/* " + std::string(chart_js_version) + " (MIT licence) */\n" + std::string(chart_js) + "\n</script>\n";
  out += "<script>\n" + std::string(page_script()) + "</script>\n</body>\n</html>\n";
  return out;
}

}  // namespace gpuplan::report
