// gpuplan calibrate: the efficiency file and the JSON of a fit, shared by its parts.
#include <fmt/format.h>

#include <algorithm>

#include <chrono>
#include <cmath>
#include <ctime>
#include <fstream>
#include <iostream>
#include <set>

#include "cli/commands.h"
#include "api/validate.h"
#include "cli/common.h"
#include "core/csv.h"
#include "core/error.h"
#include "catalog/serving_engine.h"
#include "validate/band_fit.h"
#include "validate/calibrate.h"
#include "validate/held_out.h"
#include "validate/inference_cases.h"
#include "validate/training_cases.h"
#include "validate/validation.h"
#include "cli/calibrate_parts.h"

namespace gpuplan::cli::calibrate_detail {

std::vector<std::string> split_list(const std::string& s) {
  std::vector<std::string> out;
  size_t p = 0;
  while (p <= s.size()) {
    const size_t q = std::min(s.find(',', p), s.size());
    if (q > p) out.push_back(s.substr(p, q - p));
    p = q + 1;
  }
  return out;
}

// The entry of `generation` in `out`; a generation without its own (it used `default`) gets one, a copy
// of `base` (the values it was predicted with), for the fitted values to be written into.
Efficiency& generation_entry(std::vector<Efficiency>& out, const std::string& generation, const Efficiency& base) {
  for (auto& e : out)
    if (e.generation == generation) return e;
  out.push_back(base);
  out.back().generation = generation;
  return out.back();
}

// The header of data/catalog/efficiency.yaml, the same whichever fit writes the file (each fit writes
// every generation's entry, so the header documents all of them).
std::string efficiency_file_header() {
  return "Efficiency parameters per accelerator generation (src/catalog/efficiency.h).\n"
         "Training values: `gpuplan calibrate --dataset training.csv --write ...`;\n"
         "serving values (infer_hbm_eff, infer_step_overhead_s, infer_kernel_overhead_s): `gpuplan calibrate\n"
         "  --inference --dataset FILE [--generation G] --write ...` (each entry's infer_fitted_on names its file);\n"
         "prefill rates (infer_mla_prefill_eff, every generation with InferenceX TTFTs; infer_fp8_block_share, the\n"
         "  block-scaled FP8 GEMMs' share of the FP8 rate, where disaggregated opening waves measure the prefill pools):\n"
         "  `gpuplan calibrate --inference --prefill --dataset inferencex-deepseek-r1.csv --params\n"
         "  infer_mla_prefill_eff,infer_fp8_block_share,infer_fp8_block_triton_share` (TTFT at 1-8 clients jointly\n"
         "  with the engines' front ends, and the p99 TTFT of the opening waves; infer_fp8_block_triton_share, the same\n"
         "  share on SGLang's Triton kernel, on the rows whose recipes run it; docs/inference-model.md, \"Prefill rate\n"
         "  per generation\", \"Block-scaled FP8 and the opening waves\" and \"SGLang's Triton block-FP8 kernel\");\n"
         "  infer_gemm_max (a serving GEMM rate) is fitted by none of them (the held-out\n"
         "  files reject it);\n"
         "MLA decode attention rate (infer_mla_decode_eff, cdna4 and blackwell_ultra: hopper's and blackwell's fits\n"
         "  are rejected by the held-out files): `gpuplan calibrate --inference --params infer_mla_decode_eff\n"
         "  --generation cdna4,blackwell_ultra --dataset\n"
         "  inferencex-deepseek-r1.csv` (TPOT of MLA models); mla_decode_tile_rows (cdna3, cdna4: 16) is a fact of\n"
         "  the MLA decode kernels, not fitted (AITER's 16-head kernels; NVIDIA's tile 64 rows: the default);\n"
         "the `default` entry serves generations without measurements.\n"
         "expert_gemm_overhead_s (fine-grained MoE, docs/training-model.md): the value `gpuplan calibrate` fitted on\n"
         "training.csv (2026-11-30) with the other training values held at this file's fit (a full refit moved the\n"
         "shared GEMM values and worsened the serving files); generations without MoE rows keep the 20 us prior.";
}

// Writes the efficiency entries `out` as the catalog's efficiency file to --write (nothing when empty).
void write_efficiency_file(const std::string& write_path, const std::vector<Efficiency>& out,
                           const std::vector<std::string>& command_args, bool json) {
  if (write_path.empty()) return;
  check_output_file(write_path, "--write", command_args);
  std::ofstream f(write_path);
  if (!f) throw InputError("--write", "cannot write '" + write_path + "'");
  f << efficiencies_to_yaml(out, efficiency_file_header());
  if (!json) std::cout << "Wrote " << write_path << "\n";
}

// One generation's fit in the JSON output: its rows, loss and median error before and after, and the
// fitted values.
nlohmann::json generation_fit_json(const GenerationFit& f, nlohmann::json fitted) {
  return {{"generation", f.generation},       {"rows", f.rows},
          {"loss_before", f.loss_before},     {"loss_after", f.loss_after},
          {"median_ape_before_pct", f.median_ape_before}, {"median_ape_after_pct", f.median_ape_after},
          {"fitted", std::move(fitted)}};
}

// The --dataset of a serving fit: the inference.csv or the InferenceX schema (`mode`: the options
// that asked for it, for the error).
CsvTable read_serving_table(const std::string& dataset, const std::string& mode) {
  CsvTable table = read_csv_file(dataset, "--dataset");
  if (!is_inferencex_schema(table) && !is_inference_schema(table))
    throw InputError("--dataset", "expected the inference.csv or InferenceX schema with " + mode);
  return table;
}

}  // namespace gpuplan::cli::calibrate_detail
