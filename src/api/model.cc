// gpuplan model list | gpuplan model show NAME|PATH.json [--seq L]
// Lists the built-in transformer architectures, or shows one (built-in or a Hugging Face
// config.json) with its parameter counts against the published ones, FLOPs and KV-cache per token.
#include <fmt/format.h>

#include <iostream>

#include "api/model.h"
#include "api/text.h"
#include "core/error.h"
#include "core/suggest.h"
#include "model/model_registry.h"

namespace gpuplan::api {
namespace {

using nlohmann::json;

const char* to_string(AttentionKind k) {
  switch (k) {
    case AttentionKind::mha: return "mha";
    case AttentionKind::gqa: return "gqa";
    case AttentionKind::mla: return "mla";
  }
  return "?";
}

std::string billions(double params) { return fmt::format("{:.2f}", params / 1e9); }

json arch_json(const ModelArch& m) {
  json j = {{"name", m.name},
            {"display_name", m.display_name},
            {"aliases", m.aliases},
            {"family", m.family},
            {"layers", m.layers},
            {"hidden", m.hidden},
            {"ffn_hidden", m.ffn_hidden},
            {"heads", m.heads},
            {"kv_heads", m.kv_heads},
            {"head_dim", m.head_dim},
            {"vocab", m.vocab},
            {"gated_mlp", m.gated_mlp},
            {"tied_embeddings", m.tied_embeddings},
            {"attention_bias", m.attention_bias},
            {"mlp_bias", m.mlp_bias},
            {"sliding_window", m.sliding_window},
            {"sliding_window_layers", m.sliding_window_layers},
            {"chunked_window", m.chunked_window},
            {"attention", to_string(m.attention)},
            {"max_seq_len", m.max_seq_len},
            {"origin", m.origin},
            {"sources", m.sources}};
  if (m.attention == AttentionKind::mla)
    j["mla"] = {{"q_lora_rank", m.mla.q_lora_rank},
                {"kv_lora_rank", m.mla.kv_lora_rank},
                {"qk_nope_head_dim", m.mla.qk_nope_head_dim},
                {"qk_rope_head_dim", m.mla.qk_rope_head_dim},
                {"v_head_dim", m.mla.v_head_dim}};
  if (m.is_moe())
    j["moe"] = {{"num_experts", m.moe.num_experts},
                {"top_k", m.moe.top_k},
                {"expert_ffn_hidden", m.moe.expert_ffn_hidden},
                {"shared_experts", m.moe.shared_experts},
                {"shared_ffn_hidden", m.moe.shared_ffn_hidden},
                {"first_dense_layers", m.moe.first_dense_layers},
                {"layer_freq", m.moe.layer_freq},
                {"moe_layers", m.moe_layers()}};
  j["attention_output_gate"] = m.attention_output_gate;
  if (m.is_hybrid())
    j["linear_attention"] = {{"layers", m.linear.layers},
                             {"full_attention_layers", m.full_attention_layers()},
                             {"key_heads", m.linear.key_heads},
                             {"value_heads", m.linear.value_heads},
                             {"key_head_dim", m.linear.key_head_dim},
                             {"value_head_dim", m.linear.value_head_dim},
                             {"conv_kernel", m.linear.conv_kernel},
                             {"state_bytes_per_element", m.linear.state_bytes_per_element}};
  if (m.is_sparse())
    j["sparse_attention"] = {{"index_topk", m.sparse.index_topk},
                             {"index_heads", m.sparse.index_heads},
                             {"index_head_dim", m.sparse.index_head_dim}};
  if (!m.unmapped.empty()) {  // a config.json's keys the import did not map, or read under an assumption
    json u = json::array();
    for (const auto& n : m.unmapped) u.push_back({{"field", n.field}, {"note", n.note}});
    j["unmapped_fields"] = u;
  }
  return j;
}

std::string experts_cell(const ModelArch& m) {
  return m.is_moe() ? fmt::format("{}/{}", m.moe.num_experts, m.moe.top_k) : "-";
}

int run_list(Output& output) {
  const auto& models = builtin_models();
  if (output.json()) {
    json list = json::array();
    for (const ModelArch& m : models) {
      json j = arch_json(m);
      j["total_params"] = total_params(m);
      j["active_params"] = active_params(m);
      list.push_back(j);
    }
    output.emit("model", {{"models", list}});
    return kExitOk;
  }
  std::vector<std::vector<std::string>> rows;
  for (const ModelArch& m : models)
    rows.push_back({m.name, m.family, std::to_string(m.layers), std::to_string(m.hidden),
                    m.attention == AttentionKind::mla ? fmt::format("{}/mla", m.heads)
                                                      : fmt::format("{}/{}", m.heads, m.kv_heads),
                    experts_cell(m), billions(total_params(m)), billions(active_params(m))});
  print_table(output.os(), {"name", "family", "layers", "hidden", "heads/kv", "experts/top-k", "total B", "active B"}, rows,
              2);
  output.os() << "\n" << models.size()
            << " models. `gpuplan model show NAME` for one (any alias or a Hugging Face config.json).\n";
  return kExitOk;
}

// The published active count under the card's own convention (gpt-oss omits the input table).
double active_as_published(const ModelArch& m) {
  return active_params(m) - (m.published_active_excludes_embedding ? 1.0 * m.vocab * m.hidden : 0.0);
}

json count_json(double computed, const std::optional<double>& published) {
  json j = {{"computed", computed}, {"published", nullptr}, {"diff_pct", nullptr}};
  if (published) {
    j["published"] = *published;
    j["diff_pct"] = 100.0 * (computed - *published) / *published;
  }
  return j;
}

std::string vs_published(double computed, const std::optional<double>& published) {
  if (!published) return fmt::format("{:.3f} B", computed / 1e9);
  return fmt::format("{:.3f} B  (published {:.3f} B, {:+.2f}%)", computed / 1e9, *published / 1e9,
                     100.0 * (computed - *published) / *published);
}

int run_show(const std::string& name, int seq, Output& output) {
  if (seq < 1) throw InputError("--seq", "must be >= 1 token");
  const ModelArch m = resolve_model(name, "NAME");
  const double total = total_params(m), active = active_params(m);
  const TokenFlops f = forward_flops_per_token(m, seq, true);
  const double kv_bf16 = kv_cache_bytes_per_token(m, 2), kv_fp8 = kv_cache_bytes_per_token(m, 1);
  // 6N (Kaplan et al. 2020): N = active parameters the matmuls use, i.e. without the untied
  // input-embedding table (a lookup, not a matmul).
  const double n_matmul = active - (m.tied_embeddings ? 0.0 : 1.0 * m.vocab * m.hidden);
  if (output.json()) {
    json params = {{"total", count_json(total, m.published_total_params)},
                   {"active", count_json(active, std::nullopt)},
                   {"embedding", embedding_params(m)}};
    params["active"]["published"] = m.published_active_params ? json(*m.published_active_params) : json(nullptr);
    if (m.published_active_params)
      params["active"]["diff_pct"] =
          100.0 * (active_as_published(m) - *m.published_active_params) / *m.published_active_params;
    params["active"]["published_excludes_embedding"] = m.published_active_excludes_embedding;
    json flops = {{"seq", seq},
                  {"causal", true},
                  {"forward_dense_matmul", f.dense_matmul},
                  {"forward_attention", f.attention},
                  {"forward_total", f.total()},
                  {"training_total", 3 * f.total()},
                  {"training_6n", 6 * n_matmul}};
    json kv = {{"bf16", kv_bf16},
               {"fp8", kv_fp8},
               {"bf16_at_seq", kv_bf16 * seq},
               {"recurrent_state_bytes_per_sequence", recurrent_state_bytes_per_sequence(m)}};
    output.emit("model", {{"model", arch_json(m)},
                         {"params", params},
                         {"flops_per_token", flops},
                         {"kv_cache_bytes_per_token", kv}});
    return kExitOk;
  }
  output.os() << m.display_name << "  (" << m.name << ", " << m.family << ", " << m.origin << ")\n";
  if (!m.aliases.empty()) {
    std::string a;
    for (const auto& s : m.aliases) a += (a.empty() ? "" : ", ") + s;
    output.os() << "  aliases:        " << a << "\n";
  }
  output.os() << fmt::format("  layers {}, hidden {}, ffn {}, heads {}, kv heads {}, head dim {}, vocab {}\n",
                           m.layers, m.hidden, m.ffn_hidden, m.heads, m.kv_heads, m.head_dim, m.vocab);
  output.os() << fmt::format("  attention {}{}{}, MLP {}, embeddings {}\n", to_string(m.attention),
                           m.sliding_window <= 0 ? ""
                           : m.chunked_window
                               ? fmt::format(", chunks of {} tokens in {} layers", m.sliding_window, m.window_layers())
                               : fmt::format(", window {} tokens", m.sliding_window),
                           m.attention_bias ? ", biased" : "", m.gated_mlp ? "gated (3 matrices)" : "2 matrices",
                           m.tied_embeddings ? "tied" : "untied");
  if (m.attention == AttentionKind::mla)
    output.os() << fmt::format("  MLA: q_lora {}, kv_lora {}, qk nope/rope {}/{}, v {}\n", m.mla.q_lora_rank,
                             m.mla.kv_lora_rank, m.mla.qk_nope_head_dim, m.mla.qk_rope_head_dim,
                             m.mla.v_head_dim);
  if (m.is_hybrid())
    output.os() << fmt::format("  linear attention (Gated DeltaNet) in {} of {} layers: {} key / {} value heads of "
                               "{}/{}, conv {}; recurrent state {:.1f} MB per sequence\n",
                               m.linear.layers, m.layers, m.linear.key_heads, m.linear.value_heads,
                               m.linear.key_head_dim, m.linear.value_head_dim, m.linear.conv_kernel,
                               recurrent_state_bytes_per_sequence(m) / 1e6);
  if (m.is_sparse())
    output.os() << fmt::format("  sparse attention (DSA): top-{} keys per query, indexer {} heads of {}\n",
                               m.sparse.index_topk, m.sparse.index_heads, m.sparse.index_head_dim);
  if (m.is_moe())
    output.os() << fmt::format("  MoE: {} experts, top-{}, expert ffn {}, {} shared, {} MoE layers of {}\n",
                             m.moe.num_experts, m.moe.top_k, m.moe.expert_ffn_hidden, m.moe.shared_experts,
                             m.moe_layers(), m.layers);
  if (!m.unmapped.empty()) {
    output.os() << fmt::format("  config keys not mapped ({}):\n", m.unmapped.size());
    for (const auto& n : m.unmapped) output.os() << fmt::format("    {}: {}\n", n.field, n.note);
  }
  output.os() << "\nParameters\n";
  output.os() << "  total:          " << vs_published(total, m.published_total_params) << "\n";
  output.os() << "  active/token:   " << vs_published(active_as_published(m), m.published_active_params)
            << (m.published_active_excludes_embedding ? "  [input embedding excluded, as published]" : "")
            << "\n";
  output.os() << fmt::format("  embeddings:     {:.3f} B\n", embedding_params(m) / 1e9);
  output.os() << fmt::format("  weights bf16:   {}\n", human_bytes(2 * total));
  output.os() << fmt::format("\nFLOPs per token (seq {}, causal)\n", seq);
  output.os() << fmt::format("  forward, weight matmuls:   {:.4g} GFLOP\n", f.dense_matmul / 1e9);
  output.os() << fmt::format("  forward, with attention:   {:.4g} GFLOP\n", f.total() / 1e9);
  output.os() << fmt::format("  training (3x forward):     {:.4g} GFLOP\n", 3 * f.total() / 1e9);
  output.os() << fmt::format("  training, 6N:              {:.4g} GFLOP  (N = {:.3f} B active, input embedding excluded)\n",
                           6 * n_matmul / 1e9, n_matmul / 1e9);
  output.os() << "\nKV cache per token\n";
  output.os() << fmt::format("  bf16: {} bytes   fp8: {} bytes   ({} per sequence of {} in bf16)\n",
                           fmt::format("{:.0f}", kv_bf16), fmt::format("{:.0f}", kv_fp8),
                           human_bytes(kv_bf16 * seq), seq);
  return kExitOk;
}

}  // namespace

void add_model_options(CLI::App& app, ModelRequest& req) {
  app.description("List the built-in transformer architectures, or show one with its parameter counts "
               "(against the published ones), FLOPs per token and KV-cache bytes per token.");
  app.footer(
      "Examples:\n"
      "  gpuplan model list\n"
      "  gpuplan model show llama3.1-70b           any name or alias, case and punctuation ignored\n"
      "  gpuplan model show DeepSeek-V3 --seq 8192 --json\n"
      "  gpuplan model show ./config.json          a Hugging Face config.json of any decoder (llama, mistral,\n"
      "                                            qwen, deepseek, gpt_oss, gemma2/3, phi3, cohere, granite...);\n"
      "                                            keys it cannot map are listed by name");
  app.require_subcommand(1, 1);
  CLI::App* list = app.add_subcommand("list", "Table of the built-in models");
  list->fallthrough();
  list->callback([&req] { req.list = true; });
  CLI::App* show = app.add_subcommand("show", "One model: architecture, parameters, FLOPs, KV cache");
  show->add_option("NAME", req.name, "Built-in name or alias, or a path to a Hugging Face config.json")->required();
  show->add_option("--seq", req.seq, "Sequence length for attention FLOPs and KV-cache totals (tokens)")
      ->capture_default_str();
  show->fallthrough();
}

int model(ModelRequest req, Output& output) {
  if (req.list) return run_list(output);
  return run_show(req.name, req.seq, output);
}

}  // namespace gpuplan::api

