#include "inference/engine.h"

namespace gpuplan {

EngineParams engine_params(const Catalog& catalog, const std::string& framework) {
  const ServingEngine& def = catalog.default_serving_engine();
  EngineParams p;
  p.mtp_accept = def.mtp_accept.value_or(0.0);
  if (const ServingEngine* e = catalog.find_serving_engine(framework)) {
    p.name = e->name;
    p.request_overhead_s = e->request_overhead_s;
    p.host_per_seq_step_s = e->host_per_seq_step_s;
    p.moe_gemm_eff = e->moe_gemm_eff;
    p.mtp_host_step_s = e->mtp_host_step_s;
    p.mtp_host_per_seq_step_s = e->mtp_host_per_seq_step_s;
    p.mtp_eager_draft_extend_s = e->mtp_eager_draft_extend_s;
    p.prefill_separate = e->prefill_separate;
    p.attention_dp_dense_replicated = e->attention_dp_dense == "replicated";
    p.attention_dp_moe_exchange = parse_moe_exchange(e->attention_dp_moe_exchange).value_or(MoeExchange::all_to_all);
    p.kv_admission = parse_kv_admission(e->kv_admission).value_or(KvAdmission::reserve_full);
    p.kv_pool = parse_kv_pool_rule(e->kv_pool).value_or(KvPoolRule::free_share);
    p.window_kv_whole = e->window_kv == "whole_context";
    if (e->mtp_accept) p.mtp_accept = *e->mtp_accept;
  }
  return p;
}

void apply_engine_facts(const EngineParams& e, InferenceWorkload& w) {
  w.prefill_separate = e.prefill_separate;
  w.attention_dp_dense_replicated = e.attention_dp_dense_replicated;
  w.attention_dp_moe_exchange = e.attention_dp_moe_exchange;
  w.kv_admission = e.kv_admission;
  w.kv_pool = e.kv_pool;
  w.window_kv_whole = e.window_kv_whole;
}

bool apply_sglang_mtp_host(const Catalog& catalog, const std::string& generation, bool spec_v1, InferenceWorkload& w) {
  const bool flashinfer = generation == "hopper";
  const EngineParams worker = engine_params(catalog, "sglang");
  w.mtp_host_step_s = worker.mtp_host_step_s;
  w.mtp_host_per_seq_step_s = worker.mtp_host_per_seq_step_s;
  w.mtp_eager_draft_extend_s = worker.mtp_eager_draft_extend_s;
  w.mtp_host_in_series = spec_v1 || flashinfer;
  w.mtp_draft_extend_eager = flashinfer;
  return w.mtp_host_in_series;
}

}  // namespace gpuplan
