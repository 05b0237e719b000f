#pragma once
// The report kinds: each is a pure function from the --json documents of gpuplan commands (Sources)
// to a Page. Which commands a kind runs is the CLI's business (src/cli/cmd_report.cc); adding a kind is
// one builder here and one row in the CLI's table (see docs/report.md).
#include <optional>
#include <vector>

#include "report/page.h"

namespace gpuplan::report {

// train: `train` (the given plan), `search` (the top plans for the same job), `scale` (weak scaling of
// the best plan over GPU counts). Step-time and memory breakdowns per plan, MFU and tokens/s per GPU
// against the GPU count.
Page train_report(const Source& train, const Source& search, const Source& scale);

// infer: `infer --sweep` (the Pareto frontier), the user's `infer` point when one was asked for, and a
// ladder of `infer --concurrency C` runs of one plan (KV cache against concurrency).
Page infer_report(const Source& sweep, const std::optional<Source>& point, const std::vector<Source>& ladder);

// schedule: `schedule --timeline N`: utilisation over time and queueing delay per policy.
Page schedule_report(const Source& schedule);

// compare: `compare --json` (two systems, their yardsticks, per-model serving curves and training picks).
// The per-GPU ratio of every higher-is-better yardstick, the full yardstick table with the ratio under each
// normalisation, and per model the serving frontiers of both systems with the ratio along the curve.
Page compare_report(const Source& compare);

// site: `site --cluster C [--site S] --json`: IT power per unit by part, positions by cooling kind against
// the site's, and what has to change (CDUs, water, feed, network racks, floor loading, retrofit order).
Page site_report(const Source& site);

// size: `size --json`: $ per million tokens and the odds (P(meets SLA), P(cheapest)) per system, and the
// table of units, money, power and latency.
Page size_report(const Source& size);

// The figures of a `catalog show NAME --json` document, each with its source ("*" is the entry's
// default source).
std::vector<Figure> catalog_figures(const Source& catalog_show);

}  // namespace gpuplan::report
