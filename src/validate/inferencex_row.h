#pragma once
// The deployment cells of an InferenceX-schema row (../shared/data/README.md, the InferenceX section),
// read once for map_inferencex_cases: yes/no flags in the forms tables write them, the speculative-
// decoding cell, and GPU counts a row leaves blank derived from its workers and their widths. A cell
// that cannot be read skips the row with a reason naming the column and what it allows; nothing is
// read as a default without saying so in the row's assumptions.
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/csv.h"

namespace gpuplan {

// A yes/no cell: yes/no, true/false, y/n, 1/0 or on/off in any case, spaces around ignored.
enum class YesNoCell { blank, yes, no, unreadable };
YesNoCell read_yes_no_cell(std::string_view text);

// The speculative-decoding cell: none (also no/off/false/0/-), or multi-token prediction (a cell that
// starts with mtp, nextn or eagle: DeepSeek's MTP head drafting, as SGLang's EAGLE and TensorRT-LLM's
// MTP run it). Other methods (n-gram, Medusa, a separate draft model) are not modelled: unreadable.
enum class SpecDecodeCell { blank, none, mtp, unreadable };
SpecDecodeCell read_spec_decode_cell(std::string_view text);

struct InferenceXDeployment {
  bool disaggregated = false;
  bool prefill_attention_dp = false, decode_attention_dp = false;
  bool mtp = false;
  double prefill_workers = 1, decode_workers = 1;  // blank: 1
  double gpus = 0;                                 // the whole deployment's
  double prefill_gpus = 0, decode_gpus = 0;        // disaggregated pools' (aggregated: decode_gpus = gpus)
  std::vector<std::string> notes;                  // cells read by a rule or derived, in words
};

// Reads row `i`'s deployment into `out`. Returns the reason to skip the row when a cell is
// unreadable, the GPU counts contradict one another (gpus != prefill_gpus + decode_gpus), or a
// blank count cannot be derived (no TP/EP width stated either); nullopt when `out` holds it.
// Blank cells: disaggregated is yes when the row states a prefill pool (prefill_workers or
// prefill_gpus of 1 or more; 0 is none), no otherwise; attention-DP no; spec_decode none; workers 1; a pool's GPUs its
// workers x max(TP, EP); gpus the pools' sum (aggregated: decode workers x width).
std::optional<std::string> read_inferencex_deployment(const CsvTable& t, size_t i, InferenceXDeployment& out);

}  // namespace gpuplan
