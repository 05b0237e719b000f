#include "validate/inferencex_row.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>

#include "core/text.h"

namespace gpuplan {

namespace {

std::string trimmed_lower(std::string_view text) {
  size_t a = 0, b = text.size();
  while (a < b && std::isspace(static_cast<unsigned char>(text[a]))) ++a;
  while (b > a && std::isspace(static_cast<unsigned char>(text[b - 1]))) --b;
  return to_lower(std::string(text.substr(a, b - a)));
}

bool one_of(const std::string& s, std::initializer_list<std::string_view> words) {
  return std::find(words.begin(), words.end(), s) != words.end();
}

// What a cell holds, for an error: at most 40 characters.
std::string echo(const std::string& cell) {
  return cell.size() > 40 ? fmt::format("{}...", std::string_view(cell).substr(0, 40)) : cell;
}

// A count cell: blank leaves `out` (and sets *blank); otherwise a number >= 0 (0: none, as tables
// write an aggregated row's prefill pool).
std::optional<std::string> count_cell(const CsvTable& t, size_t i, const char* column, double& out,
                                      bool* blank = nullptr) {
  const std::string& cell = t.cell(i, column);
  const bool is_blank = trimmed_lower(cell).empty();
  if (blank) *blank = is_blank;
  if (is_blank) return std::nullopt;
  double v = 0;
  if (!parse_cell_number(cell, v) || v < 0)
    return fmt::format("{} '{}' is not a count (a number >= 0, or blank)", column, echo(cell));
  out = v;
  return std::nullopt;
}

// A TP/EP width cell: a number >= 1, or 0 when blank or unreadable (the GPU counts decide then).
double width_cell(const CsvTable& t, size_t i, const char* column) {
  double v = 0;
  return parse_cell_number(t.cell(i, column), v) && v >= 1 ? v : 0.0;
}

}  // namespace

YesNoCell read_yes_no_cell(std::string_view text) {
  const std::string s = trimmed_lower(text);
  if (s.empty()) return YesNoCell::blank;
  if (one_of(s, {"yes", "y", "true", "t", "1", "on"})) return YesNoCell::yes;
  if (one_of(s, {"no", "n", "false", "f", "0", "off"})) return YesNoCell::no;
  return YesNoCell::unreadable;
}

SpecDecodeCell read_spec_decode_cell(std::string_view text) {
  const std::string s = trimmed_lower(text);
  if (s.empty()) return SpecDecodeCell::blank;
  if (one_of(s, {"none", "no", "off", "false", "0", "-", "n/a"})) return SpecDecodeCell::none;
  for (std::string_view head : {"mtp", "nextn", "eagle"})
    if (s.rfind(head, 0) == 0) return SpecDecodeCell::mtp;
  return SpecDecodeCell::unreadable;
}

std::optional<std::string> read_inferencex_deployment(const CsvTable& t, size_t i, InferenceXDeployment& out) {
  out = {};
  // A yes/no cell into `value` (blank: no, and *blank set).
  auto flag = [&](const char* column, bool& value, bool* blank = nullptr) -> std::optional<std::string> {
    const std::string& cell = t.cell(i, column);
    const YesNoCell v = read_yes_no_cell(cell);
    if (v == YesNoCell::unreadable)
      return fmt::format("{} '{}' is not yes or no (yes/no, true/false, y/n, 1/0, on/off, or blank)", column,
                         echo(cell));
    if (blank) *blank = v == YesNoCell::blank;
    value = v == YesNoCell::yes;
    return std::nullopt;
  };
  bool dis_blank = true;
  if (auto e = flag("disaggregated", out.disaggregated, &dis_blank)) return e;
  if (auto e = flag("prefill_attention_dp", out.prefill_attention_dp)) return e;
  if (auto e = flag("decode_attention_dp", out.decode_attention_dp)) return e;

  const std::string& spec = t.cell(i, "spec_decode");
  switch (read_spec_decode_cell(spec)) {
    case SpecDecodeCell::mtp: out.mtp = true; break;
    case SpecDecodeCell::none: break;
    case SpecDecodeCell::blank: out.notes.push_back("spec_decode blank: read as none"); break;
    case SpecDecodeCell::unreadable:
      return fmt::format("spec_decode '{}' is not a method gpuplan models (none, or multi-token prediction: "
                         "mtp, nextn, eagle)",
                         echo(spec));
  }

  bool pw_blank = true, pg_blank = true, dg_blank = true, g_blank = true;
  if (auto e = count_cell(t, i, "prefill_workers", out.prefill_workers, &pw_blank)) return e;
  if (auto e = count_cell(t, i, "decode_workers", out.decode_workers)) return e;
  if (auto e = count_cell(t, i, "prefill_gpus", out.prefill_gpus, &pg_blank)) return e;
  if (auto e = count_cell(t, i, "decode_gpus", out.decode_gpus, &dg_blank)) return e;
  if (auto e = count_cell(t, i, "gpus", out.gpus, &g_blank)) return e;

  if (!g_blank && out.gpus < 1) return fmt::format("gpus {} is below 1", out.gpus);
  if (dis_blank) {
    out.disaggregated = (!pw_blank && out.prefill_workers >= 1) || (!pg_blank && out.prefill_gpus >= 1);
    out.notes.push_back(out.disaggregated ? "disaggregated blank: read as yes (the row states a prefill pool)"
                                          : "disaggregated blank: read as no (no prefill pool stated)");
  }
  // A pool's GPUs when blank: its workers x max(TP, EP); 0 when no width is stated either.
  auto derived_gpus = [&](const std::string& side, double workers) {
    const double width = std::max(width_cell(t, i, (side + "_tp").c_str()), width_cell(t, i, (side + "_ep").c_str()));
    return width >= 1 ? workers * width : 0.0;
  };
  auto unknown = [](const std::string& side) {
    return fmt::format("{0}_gpus and {0}_tp/{0}_ep blank: the {0} pool's size is unknown", side);
  };
  if (out.disaggregated) {
    // One pool blank beside a stated total: the total less the other pool.
    if (!g_blank && pg_blank != dg_blank) {
      const bool prefill = pg_blank;
      double& gpus = prefill ? out.prefill_gpus : out.decode_gpus;
      gpus = out.gpus - (prefill ? out.decode_gpus : out.prefill_gpus);
      if (gpus < 1)
        return fmt::format("{}_gpus blank and gpus {} leaves {} GPUs for it", prefill ? "prefill" : "decode", out.gpus,
                           gpus);
      out.notes.push_back(fmt::format("{0}_gpus blank: gpus {1} less {2}_gpus {3} = {4}", prefill ? "prefill" : "decode",
                                      out.gpus, prefill ? "decode" : "prefill",
                                      prefill ? out.decode_gpus : out.prefill_gpus, gpus));
      (prefill ? pg_blank : dg_blank) = false;
    }
    for (const std::string side : {"prefill", "decode"}) {
      const bool prefill = side == "prefill";
      if (!(prefill ? pg_blank : dg_blank)) continue;
      const double workers = prefill ? out.prefill_workers : out.decode_workers;
      double& gpus = prefill ? out.prefill_gpus : out.decode_gpus;
      gpus = derived_gpus(side, workers);
      if (gpus < 1) return unknown(side);
      out.notes.push_back(fmt::format("{0}_gpus blank: {1} workers x {2} GPUs (the wider of {0}_tp, {0}_ep)", side,
                                      workers, gpus / workers));
    }
    const double pools = out.prefill_gpus + out.decode_gpus;
    if (g_blank) {
      out.gpus = pools;
      out.notes.push_back(fmt::format("gpus blank: prefill_gpus + decode_gpus = {}", pools));
    } else if (std::fabs(out.gpus - pools) > 0.5) {
      return fmt::format("gpus {} differs from prefill_gpus {} + decode_gpus {}", out.gpus, out.prefill_gpus,
                         out.decode_gpus);
    }
  } else {
    if (g_blank) {
      out.gpus = derived_gpus("decode", out.decode_workers);
      if (out.gpus < 1) return "gpus blank, and " + unknown("decode");
      out.notes.push_back(fmt::format("gpus blank: {} decode workers x {} GPUs (the wider of decode_tp, decode_ep)",
                                      out.decode_workers, out.gpus / out.decode_workers));
    }
    out.decode_gpus = out.gpus;
  }
  return std::nullopt;
}

}  // namespace gpuplan
