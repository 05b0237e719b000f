#pragma once
// The parts of `gpuplan calibrate` (cmd_calibrate.cc parses the options and picks one): the efficiency
// file and JSON helpers they share (calibrate_output.cc), the serving fits (calibrate_serving.cc), the
// error bands (calibrate_bands.cc) and the engine fits (calibrate_engines.cc).
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "catalog/efficiency.h"
#include "cli/common.h"
#include "core/csv.h"
#include "validate/calibrate.h"
#include "validate/training_cases.h"

namespace gpuplan::cli::calibrate_detail {  // named, not anonymous: the CLI is a unity build

// Parses a comma-separated list.
std::vector<std::string> split_list(const std::string& s);
// The entry of `generation` in `out`; a generation without its own gets a copy of `base`.
Efficiency& generation_entry(std::vector<Efficiency>& out, const std::string& generation, const Efficiency& base);
// The header of data/catalog/efficiency.yaml.
std::string efficiency_file_header();
// Writes the efficiency entries `out` as the catalog's efficiency file to --write (nothing when empty).
void write_efficiency_file(const std::string& write_path, const std::vector<Efficiency>& out,
                           const std::vector<std::string>& command_args, bool json);
// One generation's fit in the JSON output.
nlohmann::json generation_fit_json(const GenerationFit& f, nlohmann::json fitted);
// The --dataset of a serving fit: the inference.csv or the InferenceX schema.
CsvTable read_serving_table(const std::string& dataset, const std::string& mode);

// calibrate --inference (calibrate_serving.cc).
int calibrate_inference_cli(const CommonOptions& common, const std::string& dataset, const std::string& write_path,
                            const std::vector<std::string>& holdouts, CalibrationOptions opts,
                            const std::vector<std::string>& only_generations,
                            const std::vector<std::string>& command_args);
// calibrate --inference --params infer_mla_decode_eff (calibrate_serving.cc).
int calibrate_mla_decode_cli(const CommonOptions& common, const std::string& dataset, const std::string& write_path,
                             const CalibrationOptions& opts, const std::vector<std::string>& only_generations,
                             const std::vector<std::string>& command_args);
// calibrate --inference --prefill (calibrate_serving.cc).
int calibrate_prefill_cli(const CommonOptions& common, const std::string& dataset, const std::string& write_path,
                          CalibrationOptions opts, const std::vector<std::string>& only_generations,
                          const std::vector<std::string>& command_args);
// calibrate --bands (calibrate_bands.cc).
void calibrate_bands_cli(const CommonOptions& common, const Catalog& catalog, const std::string& dataset,
                         const std::vector<TrainingCase>& cases, const std::vector<std::string>& serving,
                         const std::vector<std::string>& training_extra, const std::vector<std::string>& new_ground,
                         const std::string& write_path,
                         const CalibrationOptions& opts);
// calibrate --engines (calibrate_engines.cc).
int calibrate_engines_cli(const CommonOptions& common, const std::string& dataset, const std::string& write_path,
                          const std::vector<std::string>& command_args, const std::vector<std::string>& fit_sources,
                          bool moe_gemm_waves, const std::vector<std::string>& front_end_engines);

}  // namespace gpuplan::cli::calibrate_detail
