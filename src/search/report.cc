#include "search/report.h"

namespace gpuplan {

nlohmann::json plan_json(const TrainingPlan& p) {
  return {{"text", to_string(p)},
          {"tp", p.tp},
          {"pp", p.pp},
          {"vp", p.vp},
          {"cp", p.cp},
          {"cp_kind", std::string(to_string(p.cp_kind))},  // ring or a2a (training/context_parallel.h)
          {"ep", p.ep},
          {"etp", p.etp},
          {"dp", p.dp},
          {"mbs", p.mbs},
          {"recompute", std::string(to_string(p.recompute))},
          {"recompute_layers", p.recompute_layers},  // full recompute: layers of each chunk, 0 = all
          {"offload_layers", p.offload_layers},      // activations offloaded to host, layers of each chunk
          {"zero", p.zero},
          {"sequence_parallel", p.sequence_parallel}};
}

nlohmann::json breakdown_json(const StepBreakdown& s) {
  return {{"compute_s", s.gemm_s + s.attention_s + s.memory_bound_s + s.recompute_s},
          {"gemm_s", s.gemm_s},
          {"attention_s", s.attention_s},
          {"memory_bound_s", s.memory_bound_s},
          {"recompute_s", s.recompute_s},
          {"offload_s", s.offload_s},
          {"tp_comm_s", s.tp_comm_s},
          {"cp_comm_s", s.cp_comm_s},
          {"ep_comm_s", s.ep_comm_s},
          {"pp_comm_s", s.pp_comm_s},
          {"dp_comm_s", s.dp_comm_s},
          {"bubble_s", s.bubble_s},
          {"optimizer_s", s.optimizer_s},
          {"total_s", s.total_s()}};
}

nlohmann::json memory_summary_json(const TrainingMemory& m) {
  return {{"total_bytes", m.total_bytes},
          {"capacity_bytes", m.capacity_bytes},
          {"headroom_bytes", m.headroom_bytes},
          {"fits", m.fits},
          {"weights_bytes", m.weights_bytes},
          {"gradients_bytes", m.gradients_bytes},
          {"optimizer_bytes", m.optimizer_bytes},
          {"activations_bytes", m.activations_bytes},
          {"reserve_bytes", m.reserve_bytes},
          {"stage", m.stage},
          {"host_bytes_per_gpu", m.host_bytes_per_gpu},
          {"host_capacity_bytes_per_gpu", m.host_capacity_bytes_per_gpu},
          {"fits_host", m.fits_host}};
}

nlohmann::json candidate_json(const TrainingPlan& plan, const TrainingResult& r) {
  return {{"plan", plan_json(plan)},
          {"step_time_s", r.step_time_s},
          {"tokens_per_s", r.tokens_per_s},
          {"tokens_per_s_per_gpu", r.tokens_per_s_per_gpu},
          {"model_tflops_per_gpu", r.model_tflops_per_gpu},
          {"mfu_6n", r.mfu_6n},
          {"mfu_attn", r.mfu_attn},
          {"mfu_6n_bf16", r.mfu_6n_bf16},
          {"microbatches", r.microbatches},
          {"memory", memory_summary_json(r.memory)},
          {"breakdown", breakdown_json(r.parts)}};
}

nlohmann::json stats_json(const SearchStats& s) {
  return {{"enumerated", s.enumerated},
          {"evaluated", s.evaluated},
          {"dropped", {{"divisibility", s.dropped_divisibility}, {"memory", s.dropped_memory}}}};
}

}  // namespace gpuplan
