#include "catalog/efficiency.h"

#include <fmt/format.h>

#include "core/yaml_reader.h"

namespace gpuplan {

Efficiency parse_efficiency(YamlMap& m, const std::string& origin) {
  Efficiency e;
  e.generation = m.str("generation");
  e.gemm_max = m.opt_num_in("gemm_max", 0.01, 1.0).value_or(e.gemm_max);
  e.gemm_half_dim = m.opt_num_in("gemm_half_dim", 0.0, 65536).value_or(e.gemm_half_dim);
  e.gemm_fp8_scale = m.opt_num_in("gemm_fp8_scale", 0.01, 1.0).value_or(e.gemm_fp8_scale);
  e.gemm_fp4_scale = m.opt_num_in("gemm_fp4_scale", 0.01, 1.0).value_or(e.gemm_fp4_scale);
  e.attention_eff = m.opt_num_in("attention_eff", 0.01, 1.0).value_or(e.attention_eff);
  e.hbm_eff = m.opt_num_in("hbm_eff", 0.01, 1.0).value_or(e.hbm_eff);
  e.scaleup_eff = m.opt_num_in("scaleup_eff", 0.01, 1.0).value_or(e.scaleup_eff);
  e.scaleout_eff = m.opt_num_in("scaleout_eff", 0.01, 1.0).value_or(e.scaleout_eff);
  e.kernel_overhead_s = m.opt_num_in("kernel_overhead_s", 0.0, 1e-2).value_or(e.kernel_overhead_s);
  e.overlap_eff = m.opt_num_in("overlap_eff", 0.0, 1.0).value_or(e.overlap_eff);
  e.expert_gemm_overhead_s = m.opt_num_in("expert_gemm_overhead_s", 0.0, 1e-2).value_or(e.expert_gemm_overhead_s);
  e.infer_hbm_eff = m.opt_num_in("infer_hbm_eff", 0.01, 1.0).value_or(e.infer_hbm_eff);
  e.infer_step_overhead_s = m.opt_num_in("infer_step_overhead_s", 0.0, 0.1).value_or(e.infer_step_overhead_s);
  e.infer_kernel_overhead_s = m.opt_num_in("infer_kernel_overhead_s", 0.0, 1e-3).value_or(e.infer_kernel_overhead_s);
  e.infer_fitted_on = m.opt_str("infer_fitted_on").value_or("");
  e.infer_fitted_date = m.opt_str("infer_fitted_date").value_or("");
  e.infer_method = m.opt_str("infer_method").value_or("");
  e.infer_gemm_max = m.opt_num_in("infer_gemm_max", 0.01, 1.0).value_or(e.infer_gemm_max);
  e.infer_mla_prefill_eff = m.opt_num_in("infer_mla_prefill_eff", 0.01, 1.0).value_or(e.infer_mla_prefill_eff);
  e.infer_fp8_block_share = m.opt_num_in("infer_fp8_block_share", 0.01, 1.0).value_or(e.infer_fp8_block_share);
  e.infer_fp8_block_triton_share =
      m.opt_num_in("infer_fp8_block_triton_share", 0.01, 1.0).value_or(e.infer_fp8_block_triton_share);
  e.infer_prefill_fitted_on = m.opt_str("infer_prefill_fitted_on").value_or("");
  e.infer_prefill_fitted_date = m.opt_str("infer_prefill_fitted_date").value_or("");
  e.infer_prefill_method = m.opt_str("infer_prefill_method").value_or("");
  e.mla_decode_tile_rows =
      static_cast<int>(m.opt_integer_in("mla_decode_tile_rows", 1, 256).value_or(e.mla_decode_tile_rows));
  e.infer_mla_decode_eff = m.opt_num_in("infer_mla_decode_eff", 0.01, 1.0).value_or(e.infer_mla_decode_eff);
  e.infer_mla_decode_fitted_on = m.opt_str("infer_mla_decode_fitted_on").value_or("");
  e.infer_mla_decode_fitted_date = m.opt_str("infer_mla_decode_fitted_date").value_or("");
  e.infer_mla_decode_method = m.opt_str("infer_mla_decode_method").value_or("");
  e.fitted_on = m.opt_str("fitted_on").value_or("");
  e.fitted_date = m.opt_str("fitted_date").value_or("");
  e.method = m.opt_str("method").value_or("");
  e.origin = origin;
  m.reject_unknown_keys();
  return e;
}

std::string efficiencies_to_yaml(const std::vector<Efficiency>& entries, const std::string& header_comment) {
  std::string out;
  size_t pos = 0;
  while (pos < header_comment.size()) {
    size_t end = header_comment.find('\n', pos);
    if (end == std::string::npos) end = header_comment.size();
    out += "# " + header_comment.substr(pos, end - pos) + "\n";
    pos = end + 1;
  }
  out += "efficiencies:\n";
  for (const auto& e : entries) {
    out += fmt::format("  - generation: {}\n", e.generation);
    out += fmt::format("    gemm_max: {:.4g}\n    gemm_half_dim: {:.4g}\n", e.gemm_max, e.gemm_half_dim);
    out += fmt::format("    gemm_fp8_scale: {:.4g}\n    gemm_fp4_scale: {:.4g}\n", e.gemm_fp8_scale, e.gemm_fp4_scale);
    out += fmt::format("    attention_eff: {:.4g}\n    hbm_eff: {:.4g}\n", e.attention_eff, e.hbm_eff);
    out += fmt::format("    scaleup_eff: {:.4g}\n    scaleout_eff: {:.4g}\n", e.scaleup_eff, e.scaleout_eff);
    out += fmt::format("    kernel_overhead_s: {:.4g}\n    overlap_eff: {:.4g}\n", e.kernel_overhead_s, e.overlap_eff);
    out += fmt::format("    expert_gemm_overhead_s: {:.4g}\n", e.expert_gemm_overhead_s);
    if (e.mla_decode_tile_rows != Efficiency{}.mla_decode_tile_rows)
      out += fmt::format("    mla_decode_tile_rows: {}\n", e.mla_decode_tile_rows);
    if (!e.fitted_on.empty()) out += fmt::format("    fitted_on: \"{}\"\n", e.fitted_on);
    if (!e.fitted_date.empty()) out += fmt::format("    fitted_date: \"{}\"\n", e.fitted_date);
    if (!e.method.empty()) out += fmt::format("    method: \"{}\"\n", e.method);
    if (!e.infer_method.empty()) {  // serving parameters (calibrate --inference); kept by the training fit
      out += fmt::format("    infer_hbm_eff: {:.4g}\n", e.infer_hbm_eff);
      out += fmt::format("    infer_step_overhead_s: {:.4g}\n    infer_kernel_overhead_s: {:.4g}\n",
                         e.infer_step_overhead_s, e.infer_kernel_overhead_s);
      if (!e.infer_fitted_on.empty()) out += fmt::format("    infer_fitted_on: \"{}\"\n", e.infer_fitted_on);
      if (!e.infer_fitted_date.empty()) out += fmt::format("    infer_fitted_date: \"{}\"\n", e.infer_fitted_date);
      out += fmt::format("    infer_method: \"{}\"\n", e.infer_method);
    }
    if (e.infer_gemm_max > 0 || e.infer_mla_prefill_eff > 0 || e.infer_fp8_block_share > 0 ||
        e.infer_fp8_block_triton_share > 0) {  // prefill side (calibrate --inference --prefill)
      if (e.infer_gemm_max > 0) out += fmt::format("    infer_gemm_max: {:.4g}\n", e.infer_gemm_max);
      if (e.infer_mla_prefill_eff > 0) out += fmt::format("    infer_mla_prefill_eff: {:.4g}\n", e.infer_mla_prefill_eff);
      if (e.infer_fp8_block_share > 0) out += fmt::format("    infer_fp8_block_share: {:.4g}\n", e.infer_fp8_block_share);
      if (e.infer_fp8_block_triton_share > 0)
        out += fmt::format("    infer_fp8_block_triton_share: {:.4g}\n", e.infer_fp8_block_triton_share);
      if (!e.infer_prefill_fitted_on.empty())
        out += fmt::format("    infer_prefill_fitted_on: \"{}\"\n", e.infer_prefill_fitted_on);
      if (!e.infer_prefill_fitted_date.empty())
        out += fmt::format("    infer_prefill_fitted_date: \"{}\"\n", e.infer_prefill_fitted_date);
      if (!e.infer_prefill_method.empty())
        out += fmt::format("    infer_prefill_method: \"{}\"\n", e.infer_prefill_method);
    }
    if (e.infer_mla_decode_eff > 0) {  // MLA decode attention rate (calibrate --inference --params infer_mla_decode_eff)
      out += fmt::format("    infer_mla_decode_eff: {:.4g}\n", e.infer_mla_decode_eff);
      if (!e.infer_mla_decode_fitted_on.empty())
        out += fmt::format("    infer_mla_decode_fitted_on: \"{}\"\n", e.infer_mla_decode_fitted_on);
      if (!e.infer_mla_decode_fitted_date.empty())
        out += fmt::format("    infer_mla_decode_fitted_date: \"{}\"\n", e.infer_mla_decode_fitted_date);
      if (!e.infer_mla_decode_method.empty())
        out += fmt::format("    infer_mla_decode_method: \"{}\"\n", e.infer_mla_decode_method);
    }
  }
  return out;
}

}  // namespace gpuplan
