// The pieces of `gpuplan infer`'s documents and text shared by its modes.
#include "api/infer_json.h"

#include <fmt/format.h>

#include <algorithm>

#include "api/sorted_object.h"
#include "core/error.h"

namespace gpuplan::api {

// The documents' objects are filled field by field in sorted key order (SortedObject): nlohmann's
// initializer lists build a two-element array per field before moving it in, and a map insertion
// out of order descends the tree; both cost more than the evaluation of a point.
nlohmann::json infer_step_json(const StepTime& s) {
  nlohmann::json j = nlohmann::json::object();
  SortedObject(j)
      .add("attention_s", s.attention_s)
      .add("draft_s", s.draft_s)
      .add("ep_comm_s", s.ep_comm_s)
      .add("flops", s.flops)
      .add("gemm_s", s.gemm_s)
      .add("kv_bytes_read", s.kv_bytes_read)
      .add("overhead_s", s.overhead_s)
      .add("pp_comm_s", s.pp_comm_s)
      .add("total_s", s.total_s)
      .add("tp_comm_s", s.tp_comm_s)
      .add("weight_bytes_read", s.weight_bytes_read);
  return j;
}

nlohmann::json infer_parallel_json(const InferenceParallel& p) {
  nlohmann::json j = nlohmann::json::object();
  SortedObject(j)
      .add("attention_dp", p.attention_dp)
      .add("ep", p.ep)
      .add("pp", p.pp)
      .add("tp", p.tp)
      .add("two_batch_overlap", p.two_batch_overlap);
  return j;
}

nlohmann::json infer_result_json(const InferenceResult& r) {
  nlohmann::json v = nlohmann::json::array();
  for (const auto& x : r.violations) v.push_back({{"code", x.code}, {"subject", x.subject}, {"message", x.message}});
  nlohmann::json mem = nlohmann::json::object();
  SortedObject(mem)
      .add("activations_bytes", r.memory.activations_bytes)
      .add("capacity_bytes", r.memory.capacity_bytes)
      .add("kv_bytes_per_sequence", r.memory.kv_bytes_per_sequence)
      .add("kv_cache_bytes", r.memory.kv_cache_bytes)
      .add("reserve_bytes", r.memory.reserve_bytes)
      .add("total_bytes", r.memory.total_bytes)
      .add("weights_bytes", r.memory.weights_bytes);
  nlohmann::json j = nlohmann::json::object();
  SortedObject(j)
      .add("batch_per_instance", r.batch_per_instance)
      .add("concurrency", r.concurrency)
      .add("decode_gpus", r.decode_gpus)
      .add("decode_step", infer_step_json(r.decode_step))
      .add("disaggregated", r.disaggregated)
      .add("e2e_latency_s", r.e2e_latency_s)
      .add("expected_active_experts", r.expected_active_experts)
      .add("gpus_per_instance", r.gpus_per_instance)
      .add("instances", r.instances)
      .add("kv_transfer_s", r.kv_transfer_s)
      .add("max_concurrency", r.max_concurrency)
      .add("memory", std::move(mem))
      .add("prefill_chunk", infer_step_json(r.prefill_chunk))
      .add("prefill_gpus", r.prefill_gpus)
      .add("prefill_s", r.prefill_s)
      .add("prefix_load_s", r.prefix_load_s)
      .add("prompt_queue_s", r.prompt_queue_s)
      .add("prefill_utilization", r.prefill_utilization)
      .add("queue_wait_s", r.queue_wait_s)
      .add("receive_wait_s", r.receive_wait_s)
      .add("requests_per_s", r.requests_per_s)
      .add("tokens_per_s_per_gpu", r.tokens_per_s_per_gpu)
      .add("tokens_per_s_per_user", r.tokens_per_s_per_user)
      .add("tokens_per_s_total", r.tokens_per_s_total)
      .add("tokens_per_step", r.tokens_per_step)
      .add("tpot_s", r.tpot_s)
      .add("ttft_median_s", r.ttft_median_s)
      .add("batch_wait_s", r.batch_wait_s)
      .add("ttft_p99_s", r.ttft_p99_s)
      .add("ttft_s", r.ttft_s)
      .add("valid", r.valid())
      .add("violations", std::move(v));
  return j;
}

std::string decode_step_text(const char* label, const StepTime& d) {
  return fmt::format("{} {:.2f} ms: GEMMs {:.2f}, attention {:.2f}, TP {:.2f}, EP {:.2f}, PP {:.2f}, "
                     "overhead {:.2f} ms; per GPU {:.1f} GB weights + {:.1f} GB KV read\n",
                     label, d.total_s * 1e3, d.gemm_s * 1e3, d.attention_s * 1e3, d.tp_comm_s * 1e3, d.ep_comm_s * 1e3,
                     d.pp_comm_s * 1e3, d.overhead_s * 1e3, d.weight_bytes_read / 1e9, d.kv_bytes_read / 1e9);
}

std::string infer_plan_text(const InferenceParallel& p) {
  return fmt::format("tp={} ep={} pp={}{}{}", p.tp, p.ep, p.pp, p.attention_dp ? " attention-dp" : "",
                     p.two_batch_overlap ? " tbo" : "");
}

InferenceParallel pool_parallel(const ModelArch& m, int tp, int ep, bool attention_dp, bool tbo, const char* side) {
  if (tp < 1 || tp > 1024) throw InputError(fmt::format("--{}-tp", side), fmt::format("must be 1 to 1024, got {}", tp));
  if (ep < 0 || ep > 1024) throw InputError(fmt::format("--{}-ep", side), fmt::format("must be 1 to 1024, got {}", ep));
  InferenceParallel p;
  p.tp = std::max(tp, ep);
  p.ep = m.is_moe() ? (ep > 0 ? ep : p.tp) : 1;
  p.attention_dp = m.is_moe() && (attention_dp || ep > tp);
  p.two_batch_overlap = tbo;
  return p;
}

bool reshapes_fabric(const FabricOptions& opts) {
  const double r = parse_oversubscription(opts.oversubscription, "--fabric-oversubscription");
  return !(r == 1 && parse_fabric_topology(opts.topology) == fabric::Topology::rail_optimized);
}

}  // namespace gpuplan::api
