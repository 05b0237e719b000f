#include "validate/zero_spelling.h"

#include <fmt/format.h>

#include <functional>
#include <regex>
#include <vector>

#include "core/text.h"

namespace gpuplan {

namespace {

std::vector<std::string> own_clauses(const std::string& text) {
  static const std::regex other_run(R"(\b(compared (against|with|to)|versus|vs\.?|than)\b)", std::regex::icase);
  std::vector<std::string> out;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t end = text.find(';', pos);
    if (end == std::string::npos) end = text.size();
    const std::string clause = text.substr(pos, end - pos);
    if (!std::regex_search(clause, other_run)) out.push_back(clause);
    pos = end + 1;
  }
  return out;
}

struct Rule {
  const char* spelling;
  std::function<int(const std::string&)> stage;  // -1: no match in the clause
  const char* why;
};

int match_stage(const std::string& clause, const std::regex& re, int fixed) {
  std::smatch m;
  if (!std::regex_search(clause, m, re)) return -1;
  return fixed >= 0 ? fixed : std::stoi(m[1].str());
}

const std::vector<Rule>& rules() {
  using std::regex;
  static const regex stated(R"(\bzero[-_ ]?(?:stage[-_ ]?)?([0-3])\b)", regex::icase);
  static const regex full_shard(R"(\bfull[-_ ]shard\b)", regex::icase);
  static const regex grad_op(R"(\bshard[-_ ]grad[-_ ]op\b)", regex::icase);
  static const regex no_shard(R"(\bno[-_]shard\b)", regex::icase);
  static const regex megatron_fsdp(R"(megatron[-_ ]fsdp|\bfsdp\s*=\s*\d)", regex::icase);
  static const regex zero_name(R"(\bZeRO\b)");
  static const regex dist_opt(R"(distributed[-_ ]optimi[sz]er)", regex::icase);
  static const regex fsdp(R"(\bfsdp\b)", regex::icase);
  static const std::vector<Rule> r = {
      {"ZeRO-N", [](const std::string& c) { return match_stage(c, stated, -1); }, "a stage stated"},
      {"FULL_SHARD", [](const std::string& c) { return match_stage(c, full_shard, 3); }, "PyTorch FSDP's full sharding"},
      {"SHARD_GRAD_OP", [](const std::string& c) { return match_stage(c, grad_op, 2); },
       "PyTorch FSDP's gradient and optimizer sharding"},
      {"NO_SHARD", [](const std::string& c) { return match_stage(c, no_shard, 0); }, "PyTorch FSDP without sharding"},
      {"Megatron-FSDP", [](const std::string& c) { return match_stage(c, megatron_fsdp, 3); },
       "Megatron-FSDP's default strategy optim_grads_params"},
      {"ZeRO", [](const std::string& c) { return match_stage(c, zero_name, 1); },
       "ZeRO without a stage: optimizer-state sharding, as Megatron's distributed optimizer"},
      {"distributed optimizer", [](const std::string& c) { return match_stage(c, dist_opt, 1); },
       "Megatron's distributed optimizer"},
      {"FSDP", [](const std::string& c) { return match_stage(c, fsdp, 3); }, "PyTorch FSDP's default, FULL_SHARD"},
  };
  return r;
}

}  // namespace

ZeroReading read_zero_spelling(const std::string& text) {
  const std::vector<std::string> clauses = own_clauses(text);
  for (const Rule& rule : rules())
    for (const std::string& c : clauses)
      if (const int stage = rule.stage(c); stage >= 0)
        return {stage, rule.spelling, fmt::format("'{}' in the notes read as ZeRO-{} ({})", rule.spelling, stage, rule.why)};
  return {};
}

}  // namespace gpuplan
