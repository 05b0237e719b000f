#pragma once
// Dumps of InferenceX's runs in the inference schema (AIConfigurator's CSV exports: a source whose
// convention says its runs are InferenceX's, data/serving/source_conventions.yaml) leave out what the
// run's sweep entry states: a disaggregated run's worker counts, a run's MTP. They are read from
// InferenceX's sweep in force on the run's date (validate/inferencex_sweep.h) and set as InferenceX's own
// rows set them (validate/inferencex_mtp.h). See docs/validation.md ("Disaggregated rows without worker
// counts", "Speculative decoding AIConfigurator's exports do not record").
#include <optional>
#include <string>
#include <vector>

#include "catalog/catalog.h"
#include "core/csv.h"
#include "validate/inference_cases.h"
#include "validate/inferencex_sweep.h"
#include "validate/notes_deployment.h"
#include "validate/source_conventions.h"

namespace gpuplan {

// The run's date its notes state ("measured=2026-03-23T13:00:07Z"), or empty.
std::string notes_measured_date(const std::string& notes);

// Row `i` of `t` (case `c`, its model, GPU, weights and lengths read) leaves its disaggregated worker
// counts blank (`counts_blank`: what parse_notes_deployment said): the one deployment InferenceX's sweep in
// force on its date lists for its model, GPU, weights, engine, lengths, pool widths (from `n`) and clients,
// into `n` and `entry`. Returns the reason the row stays unread (`counts_blank` and why), or nullopt.
std::optional<std::string> inferencex_dump_deployment(const CsvTable& t, size_t i, const Catalog& catalog,
                                                      const SourceConvention& source, const InferenceCase& c,
                                                      const std::string& notes, const std::string& counts_blank,
                                                      NotesDeployment& n, const InferenceXSweepEntry*& entry,
                                                      std::vector<std::string>& assumptions);

// A run whose notes say nothing of MTP, as InferenceX's sweep ran it: a disaggregated run read from a sweep
// entry (`sweep_entry`) takes that entry's MTP; a single-node run the MTP of the entries in force on its
// date that ran its model, GPU, weights, engine, lengths, TP, clients and (where the notes name one)
// image, when they agree. Returns 1 (MTP set on `c`), 0 (the entries ran it without: said) or -1 (not
// known: nothing set).
int inferencex_dump_mtp(const CsvTable& t, size_t i, const Catalog& catalog, const SourceConvention& source,
                        const std::string& notes, bool disagg, const InferenceXSweepEntry* sweep_entry,
                        InferenceCase& c);

}  // namespace gpuplan
