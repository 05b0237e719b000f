#include "inference/kv_pool.h"

#include <algorithm>
#include <cmath>

namespace gpuplan {

const char* to_string(KvPoolRule r) {
  switch (r) {
    case KvPoolRule::free_share: return "free_share";
    case KvPoolRule::whole_share: return "whole_share";
    case KvPoolRule::sglang: return "sglang";
  }
  return "free_share";
}

std::optional<KvPoolRule> parse_kv_pool_rule(const std::string& s) {
  if (s == "free_share") return KvPoolRule::free_share;
  if (s == "whole_share") return KvPoolRule::whole_share;
  if (s == "sglang") return KvPoolRule::sglang;
  return std::nullopt;
}

double sglang_default_mem_fraction(double memory_bytes, int tp, int pp, bool attention_dp, bool speculative) {
  constexpr double kMiB = 1024.0 * 1024.0, kGiB = 1024.0;  // the reserve is counted in MiB
  const double mem = memory_bytes / kMiB;
  const bool wide = tp >= 4;
  double chunk = 0, graph_bs = 0;
  if (mem < 20 * kGiB) chunk = 2048, graph_bs = 8;
  else if (mem < 35 * kGiB) chunk = 2048, graph_bs = wide ? 80 : 24;
  else if (mem < 60 * kGiB) chunk = 4096, graph_bs = wide ? 160 : 32;
  else if (mem < 160 * kGiB) chunk = 8192, graph_bs = wide ? 512 : 256;
  else chunk = 16384, graph_bs = 512;
  double reserved = 512 + std::max(chunk, 2048.0) * 1.5 + graph_bs * 2 + double(tp) * double(pp) / 8 * kGiB;
  if (attention_dp) {
    reserved += graph_bs * tp * 3;
    if (graph_bs > 300) reserved += graph_bs * tp * 1.5;
  }
  if (mem > 60 * kGiB) reserved = std::max(reserved, 10 * kGiB);
  if (speculative) reserved += 2 * kGiB;
  return std::round((mem - reserved) / mem * 1000.0) / 1000.0;
}

}  // namespace gpuplan
