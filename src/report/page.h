#pragma once
// A small builder of self-contained HTML report pages: sections of paragraphs, accessible tables and
// charts, rendered to one HTML string that carries its data (one JSON block per chart, plus every
// source document) and the charting library, so it opens offline. Pure: no I/O.
//
// Every number a page shows can point back to where it came from: a Ref names a source (the JSON
// document a gpuplan command printed with --json) and a JSON pointer into it. The browser test reruns
// each source's command and checks every referenced number against it.
#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace gpuplan::report {

// One command's --json document and the arguments that reproduce it (after "gpuplan", with --json).
struct Source {
  std::string id;                 // "train", "search", ... (unique in a page)
  std::string title;              // what it is, in words
  std::vector<std::string> args;  // e.g. {"train", "--model", "llama3.1-70b", ..., "--json"}
  nlohmann::json doc;
};

// A number taken from a source: value == source.doc[path] (a JSON pointer such as "/top/0/step_time_s").
struct Ref {
  double value = 0;
  std::string source;
  std::string path;
};

// The number at `path` in `src`; throws std::runtime_error when it is missing or not a number.
Ref ref(const Source& src, const std::string& path);

struct Paragraph {
  std::string text;  // plain text, escaped when rendered
};

struct Cell {
  std::string text;         // as shown
  std::optional<Ref> ref;   // the number behind it, if any
  double scale = 1;         // text shows ref.value * scale (e.g. 100 for a percentage, 1e-9 for GB)
};
// A formatted number cell: fmt-style spec applied to value * scale, e.g. num(r, "{:.1f}", 100) + "%".
Cell num(const Ref& r, const std::string& format, double scale = 1, const std::string& suffix = "");

struct Table {
  std::string caption;
  std::vector<std::string> columns;
  std::vector<std::vector<Cell>> rows;  // the first cell of each row is its header
};

// A series of a chart. Bar charts use y only (one value per category); line charts use x and y.
struct Series {
  std::string name;
  std::vector<Ref> x, y;
  bool dashed = false;
  bool points_only = false;  // a scatter of markers, no line
};

// A reference line: "x" draws a vertical line at value, "y" a horizontal one.
struct Limit {
  std::string label;
  char axis = 'y';
  double value = 0;
  std::optional<Ref> from;  // the source number it derives from (may differ, e.g. 1/TPOT)
};

// The error band of a series (gpuplan's 80% held-out band, the JSON's low/high): drawn as error bars
// on bars and a shaded area along lines. One BandPoint per point of the series; a point without low/high
// has no band (a catalog figure). `relative`: low/high are multipliers of the point's value (a ratio's
// band "x0.8 to x1.2"), not values.
struct BandPoint {
  std::optional<Ref> low, high;
  bool relative = false;
};
struct SeriesBand {
  std::size_t series = 0;  // index into Chart::series
  std::vector<BandPoint> points;
};

enum class ChartType { stacked_bar, bar, line };  // bar: grouped bars

struct Chart {
  std::string id;     // unique in a page: [a-z0-9-]
  std::string title;
  std::string x_label, y_label;
  std::string caption;  // the text alternative: what the chart shows and what to read from it
  ChartType type = ChartType::line;
  std::vector<std::string> categories;  // bar charts: one per bar
  std::vector<Series> series;
  std::vector<Limit> limits;
  double x_scale = 1, y_scale = 1;  // drawn value = source value * scale (e.g. 100 for %)
  bool x_log = false, y_log = false;  // logarithmic axes (a log x axis ticks at the data's x values)
  double y_max = 0;                   // drawn y axis maximum (e.g. 100 for a share in %); 0: from the data
  std::vector<SeriesBand> bands;      // error bands of some series
};

using Block = std::variant<Paragraph, Table, Chart>;

struct Section {
  std::string id;
  std::string title;
  std::vector<Block> blocks;
};

// A catalog figure the results rest on, with its source.
struct Figure {
  std::string entry;  // "hgx-h100 (system)"
  std::string field;
  std::string value;
  std::string source;
};

struct Provenance {
  std::string command_line;  // the gpuplan report invocation, shell-quoted
  std::string version;       // gpuplan's
  std::vector<Figure> figures;
};

struct Page {
  std::string title;
  std::string summary;  // one line under the title
  std::vector<Section> sections;
  std::vector<Source> sources;
  Provenance provenance;
};

// The HTML text of a whole page, with `chart_js` (the charting library) inlined.
std::string render_html(const Page& page, std::string_view chart_js, std::string_view chart_js_version);

// Helpers, public for tests and kind builders.
std::string escape_html(std::string_view text);
// JSON safe to inline in <script type="application/json">: '<', '>' and '&' become \u escapes.
std::string script_json(const nlohmann::json& j);
// POSIX-shell quoting of one argument ("it's" -> 'it'\''s'); plain words stay bare.
std::string shell_quote(std::string_view arg);
std::string command_line(const std::vector<std::string>& args);  // "gpuplan " + quoted args
// A chart's data block: the JSON the page's script draws from (title, labels, series with refs).
nlohmann::json chart_json(const Chart& chart);
// The Okabe-Ito colour-blind-safe palette (then three more from Paul Tol's muted scheme).
const std::vector<std::string>& palette();

}  // namespace gpuplan::report
