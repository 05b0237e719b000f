#include "validate/notes_deployment.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <regex>

#include "core/text.h"
#include "inference/speculative.h"

namespace gpuplan {

namespace {

constexpr const char* kSection = "disagg:";
constexpr long long kMaxDegree = 4096;     // workers, tp, pp, attn_dp, moe_tp, moe_ep
constexpr long long kMaxBatch = 1000000;   // bs: sequences per attention rank

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}

// A whole number of at most 12 digits, or nullopt (blank, sign, fraction, text).
std::optional<long long> whole(const std::string& s) {
  if (s.empty() || s.size() > 12) return std::nullopt;
  long long v = 0;
  for (char c : s) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return std::nullopt;
    v = v * 10 + (c - '0');
  }
  return v;
}

// One pool's "key=value key=value ..." text into `p`; blanks into `blank`, bad values into `bad`.
void parse_pool(const std::string& text, const char* side, NotesPool& p, std::vector<std::string>& blank,
                std::vector<std::string>& bad) {
  struct Key {
    const char* name;
    long long lo, hi;
    bool seen = false;
  };
  const bool decode = std::string(side) == "decode";
  Key keys[] = {{"workers", 1, kMaxDegree}, {"tp", 1, kMaxDegree},     {"pp", 1, kMaxDegree},
                {"attn_dp", 1, kMaxDegree}, {"moe_tp", 0, kMaxDegree}, {"moe_ep", 0, kMaxDegree},
                {"bs", decode ? 1 : 0, kMaxBatch}};
  size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
    if (i >= text.size()) break;
    size_t j = i;
    while (j < text.size() && !std::isspace(static_cast<unsigned char>(text[j]))) ++j;
    const std::string tok = text.substr(i, j - i);
    i = j;
    const auto eq = tok.find('=');
    const std::string key = tok.substr(0, eq);
    Key* k = nullptr;
    for (auto& x : keys)
      if (key == x.name) k = &x;
    if (eq == std::string::npos || !k) {
      bad.push_back(fmt::format("{} '{}' (not a key=value the notes use)", side, tok));
      continue;
    }
    if (k->seen) {
      bad.push_back(fmt::format("{} {} given twice", side, key));
      continue;
    }
    k->seen = true;
    const std::string val = tok.substr(eq + 1);
    if (val.empty()) {
      if (!(key == "bs" && !decode)) blank.push_back(fmt::format("{} {}", side, key));
      continue;
    }
    const auto v = whole(val);
    if (!v || *v < k->lo || *v > k->hi) {
      bad.push_back(fmt::format("{} {}='{}' (a whole number {} to {})", side, key, val, k->lo, k->hi));
      continue;
    }
    if (key == "workers") p.workers = static_cast<int>(*v);
    else if (key == "tp") p.tp = static_cast<int>(*v);
    else if (key == "pp") p.pp = static_cast<int>(*v);
    else if (key == "attn_dp") p.attn_dp = static_cast<int>(*v);
    else if (key == "moe_tp") p.moe_tp = static_cast<int>(*v);
    else if (key == "moe_ep") p.moe_ep = static_cast<int>(*v);
    else p.bs = *v;
  }
  for (const auto& k : keys)
    if (!k.seen && !(std::string(k.name) == "bs" && !decode)) blank.push_back(fmt::format("{} {}", side, k.name));
}

// Sections and keys are matched case-insensitively ("Disagg: Prefill: Workers=1 ...").
}  // namespace

bool has_notes_deployment(const std::string& notes) { return to_lower(notes).find(kSection) != std::string::npos; }

std::optional<std::string> parse_notes_deployment(const std::string& notes_as_written, NotesDeployment& out) {
  out = {};
  const std::string notes = to_lower(notes_as_written);
  const auto at = notes.find(kSection);
  if (at == std::string::npos) return "the notes state no disaggregated deployment ('disagg:')";
  const std::string rest = notes.substr(at + std::string(kSection).size());
  std::vector<std::string> blank, bad;
  for (const char* side : {"prefill", "decode"}) {
    const std::string tag = std::string(side) + ":";
    const auto p = rest.find(tag);
    if (p == std::string::npos) {
      blank.push_back(fmt::format("the {} pool", side));
      continue;
    }
    const auto b = p + tag.size();
    const auto e = rest.find(';', b);
    parse_pool(rest.substr(b, e == std::string::npos ? std::string::npos : e - b), side,
               std::string(side) == "prefill" ? out.prefill : out.decode, blank, bad);
  }
  if (!bad.empty())
    return fmt::format("the notes' disaggregated deployment is malformed: {}", join(bad));
  if (!blank.empty()) {
    out.only_counts_blank = std::all_of(blank.begin(), blank.end(), [](const std::string& b) {
      return b == "prefill workers" || b == "decode workers" || b == "decode bs";
    });
    return fmt::format("the notes' disaggregated deployment leaves {} blank (not stated: not guessed)", join(blank));
  }
  // AIConfigurator's worker formula: the product must be a GPU count, not an overflow.
  for (const NotesPool* p : {&out.prefill, &out.decode})
    if (double(p->workers) * p->tp * p->pp * p->attn_dp > 100000)
      return fmt::format("the notes' disaggregated deployment spans over 100000 GPUs in one pool");
  return std::nullopt;
}

std::optional<std::string> notes_disaggregated(const ModelArch& m, const NotesDeployment& n, DisaggregatedDeployment& d,
                                               std::vector<std::string>& assumptions) {
  d = {};
  for (const char* side : {"prefill", "decode"}) {
    const bool pre = std::string(side) == "prefill";
    const NotesPool& np = pre ? n.prefill : n.decode;
    InferenceParallel& p = pre ? d.prefill : d.decode;
    int& gpus = pre ? d.prefill_gpus : d.decode_gpus;
    if (np.pp != 1) return fmt::format("pipeline-parallel {} workers (pp {}) are not modelled in disaggregated pools", side, np.pp);
    const int width = np.tp * np.attn_dp;
    gpus = np.workers * width;
    p.pp = 1;
    if (!m.is_moe()) {
      // A dense model's attention-DP ranks share nothing: each is a worker of tp GPUs.
      p.tp = np.tp;
      p.ep = 1;
      if (np.attn_dp > 1)
        assumptions.push_back(fmt::format("{}: dense model, attn_dp {}: {} workers of tp {}", side, np.attn_dp,
                                          np.workers * np.attn_dp, np.tp));
    } else {
      if (np.tp > 1 && np.attn_dp > 1)
        return fmt::format("tensor-parallel attention inside attention-DP ranks ({} tp {} x attn_dp {}) is not "
                           "modelled",
                           side, np.tp, np.attn_dp);
      if (np.moe_tp < 1 || np.moe_ep < 1)
        return fmt::format("the notes leave the {} pool's MoE split unstated (moe_tp {}, moe_ep {})", side, np.moe_tp,
                           np.moe_ep);
      if (np.moe_tp * np.moe_ep != width)
        return fmt::format("{} moe_tp {} x moe_ep {} is not the worker's tp x attn_dp = {}", side, np.moe_tp,
                           np.moe_ep, width);
      p.tp = width;
      p.attention_dp = np.attn_dp > 1;
      p.ep = np.moe_ep;
      p.ep = dividing_expert_parallel(m, width, p.ep);
      if (p.ep != np.moe_ep)
        assumptions.push_back(fmt::format("{} moe_ep {} does not divide the {} experts: ep {}", side, np.moe_ep,
                                          m.moe.num_experts, p.ep));
    }
    p.two_batch_overlap = false;
  }
  // AIConfigurator's decode bs is per attention-DP rank (its global_bs = bs x attention_dp_size): a
  // rank of gpuplan's decode worker (one per GPU with attention-DP, else the worker; a dense model's
  // attn_dp ranks are workers already).
  d.decode_max_batch = n.decode.bs;  // 0: no cap stated (a deployment read from the source's sweep)
  const std::string cap =
      d.decode_max_batch > 0
          ? fmt::format("decode batch cap {} per rank ({} slots)", d.decode_max_batch,
                        d.decode_max_batch * (d.decode.attention_dp ? d.decode.tp : 1) * (d.decode_gpus / d.decode.tp))
          : std::string("no decode batch cap stated");
  assumptions.push_back(fmt::format("disaggregated (notes): prefill {} x (tp {}{}{}), decode {} x (tp {}{}{}), {}",
                                    d.prefill_gpus / d.prefill.tp, d.prefill.tp,
                                    d.prefill.attention_dp ? " attention-DP" : "",
                                    m.is_moe() ? fmt::format(" ep {}", d.prefill.ep) : std::string(),
                                    d.decode_gpus / d.decode.tp, d.decode.tp,
                                    d.decode.attention_dp ? " attention-DP" : "",
                                    m.is_moe() ? fmt::format(" ep {}", d.decode.ep) : std::string(), cap));
  return std::nullopt;
}

namespace {

// Whether the words at [at, at + len) of `l` are negated: "no"/"without"/"w/o"/"non-" just before,
// "off"/"disabled"/"=false"/": false"/"=0" just after.
bool negated(const std::string& l, size_t at, size_t len) {
  const std::string before = l.substr(at >= 12 ? at - 12 : 0, at >= 12 ? 12 : at);
  static const std::regex neg_before(R"((\bno|\bwithout|\bw/o|\bnon)[\s-]*$)");
  if (std::regex_search(before, neg_before)) return true;
  const std::string after = l.substr(at + len, 14);
  static const std::regex neg_after(
      R"(^\s*(\boff\b|\bdisabled\b|\bnot\s+(used|enabled|on)\b|\bunused\b|[=:]\s*(false|0|none|no|off)\b|[=:]?\s*n/a\b))");
  return std::regex_search(after, neg_after);
}

// Whether the words at [at, at + len) of `l` say nothing: "not stated", "not given", "unknown" after them.
bool unstated(const std::string& l, size_t at, size_t len) {
  static const std::regex none_after(R"(^\s*(is\s+|was\s+)?(not\s+(stated|given|known|reported|specified)|unknown|unstated)\b)");
  return std::regex_search(l.substr(at + len, 24), none_after);
}

bool in_range(const std::string& digits, long long lo, long long hi, int& out) {
  if (digits.empty() || digits.size() > 6) return false;
  const long long v = std::stoll(digits);
  if (v < lo || v > hi) return false;
  out = static_cast<int>(v);
  return true;
}

}  // namespace

NotesServing read_notes_serving(const std::string& notes) {
  NotesServing out;
  const std::string l = to_lower(notes);
  // Attention-DP.
  static const std::regex dep(R"(\b([td])ep(\d{1,5})\b)");
  for (auto it = std::sregex_iterator(l.begin(), l.end(), dep); it != std::sregex_iterator(); ++it) {
    int n = 0;
    if (!in_range((*it)[2].str(), 1, 4096, n)) continue;
    if ((*it)[1].str() == "t") {
      out.tp_ep = n;
      if (out.attention_dp < 0) out.attention_dp = 0;
      out.said.push_back(fmt::format("TEP{}", n));
    } else {
      out.attention_dp_ranks = n;
      out.attention_dp = 1;
      out.said.push_back(fmt::format("DEP{}", n));
    }
  }
  // SGLang names it "DP attention" (--enable-dp-attention, enable_dp_attention).
  static const std::regex adp(
      R"(\battention[\s_-]*(dp|data[\s-]*parallel(ism)?)\b|\battn[\s-]+dp\b|\battn-dp\b|\badp\b|)"
      R"(\benable_attention_dp\s*[=:]\s*(true|false|1|0)\b|\benable[_-]dp[_-]attention\s*[=:]\s*(true|false|1|0)\b|)"
      R"(\b(enable[\s_-]+)?dp[\s_-]*attention\b)");
  for (auto it = std::sregex_iterator(l.begin(), l.end(), adp); it != std::sregex_iterator(); ++it) {
    const std::string m = it->str();
    const size_t at = static_cast<size_t>(it->position());
    if (unstated(l, at, m.size())) continue;
    bool off = negated(l, at, m.size());
    const bool valued = m.find_first_of("=:") != std::string::npos;
    if (valued && m.rfind("enable", 0) == 0)  // enable_attention_dp=..., enable_dp_attention=...
      off = m.back() == 'e' ? m.find("false") != std::string::npos : m.back() == '0';
    if (off) {
      out.attention_dp = 0;
      out.said.push_back(fmt::format("attention-DP off ('{}')", m));
      break;  // a stated off wins over mentions
    }
    if (out.attention_dp < 0 || (out.attention_dp == 0 && out.tp_ep == 0)) out.attention_dp = 1;
    if (out.said.empty() || out.said.back().rfind("attention-DP", 0) != 0)
      out.said.push_back(fmt::format("attention-DP ('{}')", m));
  }
  // MTP.
  static const std::regex mtp(
      R"(\bmtp(\d{0,2})\b|\bmulti[\s-]*token[\s-]*prediction\b|\bnextn\b|\beagle\d?\b|\bnum_nextn_predict_layers\b|\bspeculative_num_steps\b|\bnum[_-]speculative[_-]tokens\b)");
  for (auto it = std::sregex_iterator(l.begin(), l.end(), mtp); it != std::sregex_iterator(); ++it) {
    const std::string m = it->str();
    const size_t at = static_cast<size_t>(it->position());
    if (unstated(l, at, m.size())) continue;
    if (negated(l, at, m.size())) {
      out.mtp = 0;
      out.mtp_draft_tokens = 0;
      out.said.push_back(fmt::format("MTP off ('{}')", m));
      break;
    }
    out.mtp = 1;
    int n = 0;
    // A count glued on ("mtp3") or just after ("mtp=3", "mtp 3", "nextn: 3").
    static const std::regex count_after(R"(^\s*[=:]?\s*(\d{1,3})\b)");
    std::smatch cm;
    const std::string after = l.substr(at + m.size(), 10);
    if ((*it)[1].length() > 0 && in_range((*it)[1].str(), 1, 16, n)) out.mtp_draft_tokens = n;
    else if (std::regex_search(after, cm, count_after) && in_range(cm[1].str(), 1, 16, n)) out.mtp_draft_tokens = n;
    out.said.push_back(fmt::format("MTP ('{}')", l.substr(at, m.size() + (out.mtp_draft_tokens ? 3 : 0))));
  }
  if (out.mtp == 1 && out.mtp_draft_tokens == 0) {
    static const std::regex drafts(R"(\b(\d{1,3})\s*(draft|speculative)[\s_-]*tokens?\b|\bdraft[\s_-]*tokens?\s*[=:]\s*(\d{1,3})\b)");
    std::smatch dm;
    int n = 0;
    if (std::regex_search(l, dm, drafts) &&
        in_range(dm[1].matched ? dm[1].str() : dm[3].str(), 1, 16, n))
      out.mtp_draft_tokens = n;
  }
  // The drafts' measured acceptance: a length (tokens a step yields per sequence) or a rate (accepted
  // drafts over proposed ones; a percentage or a fraction).
  if (out.mtp == 1) {
    static const std::regex accept(
        R"(\b(mean\s+|average\s+|avg\.?\s+)?accept(ance|ed)?[\s_-]*(length|len|rate)?\s*(of\s+|[=:~]\s*|is\s+|was\s+)?(\d{1,2}(\.\d+)?)\s*(%?))");
    std::smatch am;
    if (std::regex_search(l, am, accept)) {
      const double v = std::stod(am[5].str());
      const bool percent = !am[7].str().empty();
      // Unnamed ("acceptance 0.7", "acceptance 2.4"): a fraction is a rate, more than one a length.
      const bool length = am[3].matched ? am[3].str().rfind("len", 0) == 0 : !percent && v > 1;
      if (length && !percent && v >= 1 && v <= 17) out.mtp_accept_length = v;
      else if (!length && percent && v > 0 && v <= 100) out.mtp_accept_rate = v / 100;
      else if (!length && !percent && v > 0 && v <= 1) out.mtp_accept_rate = v;
      if (out.mtp_accept_length > 0 || out.mtp_accept_rate > 0) out.said.push_back(fmt::format("'{}'", am[0].str()));
    }
  }
  // Two-batch overlap (SGLang --enable-two-batch-overlap, "TBO").
  static const std::regex tbo(R"(\btwo[\s_-]*batch[\s_-]*overlap\b|\btbo\b)");
  for (auto it = std::sregex_iterator(l.begin(), l.end(), tbo); it != std::sregex_iterator(); ++it) {
    const std::string m = it->str();
    const size_t at = static_cast<size_t>(it->position());
    if (unstated(l, at, m.size())) continue;
    if (negated(l, at, m.size())) {
      out.two_batch_overlap = 0;
      out.said.push_back(fmt::format("two-batch overlap off ('{}')", m));
      break;
    }
    out.two_batch_overlap = 1;
    out.said.push_back(fmt::format("two-batch overlap ('{}')", m));
    break;
  }
  return out;
}

double notes_mtp_accept(const NotesServing& n, int draft_tokens) {
  if (draft_tokens <= 0) return 0;
  // Per-draft acceptance a (each draft accepted given the previous was) whose expectation matches what
  // the notes measured: the length 1 + a + ... + a^k, or the rate (a + a^2 + ... + a^k) / k.
  double target = 0;
  if (n.mtp_accept_length > 0) target = n.mtp_accept_length - 1;
  else if (n.mtp_accept_rate > 0) target = n.mtp_accept_rate * draft_tokens;
  else return 0;
  if (target <= 0 || target > draft_tokens) return 0;
  const auto drafts_accepted = [&](double a) { return mtp_accepted_length(draft_tokens, a) - 1; };
  double lo = 0, hi = 1;
  for (int i = 0; i < 60; ++i) {
    const double mid = 0.5 * (lo + hi);
    (drafts_accepted(mid) < target ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

bool notes_mtp(const NotesServing& n, const ModelArch& m, double accept, InferenceWorkload& w,
               std::vector<std::string>& assumptions) {
  if (n.mtp != 1) return false;
  std::string words;
  for (const auto& x : n.said) words += (words.empty() ? "" : ", ") + x;
  if (!has_mtp_module(m)) {
    assumptions.push_back(fmt::format("the notes state speculative decoding ({}) but {} has no MTP module: drafting "
                                      "with another model is not modelled",
                                      words, m.name));
    return false;
  }
  w.mtp_draft_tokens = n.mtp_draft_tokens > 0 ? n.mtp_draft_tokens : kMtpDraftTokensDefault;
  const double stated = notes_mtp_accept(n, w.mtp_draft_tokens);
  w.mtp_accept = stated > 0 ? stated : accept;
  assumptions.push_back(fmt::format("MTP as the notes state it ({}): {} draft tokens{}{}", words, w.mtp_draft_tokens,
                                    n.mtp_draft_tokens > 0 ? "" : " (the engines' default)",
                                    stated > 0 ? fmt::format(", each accepted at {:.3f} (the measured acceptance)", stated)
                                    : n.mtp_accept_length > 0 || n.mtp_accept_rate > 0
                                        ? fmt::format(", the engine's acceptance {:.3f} (the stated acceptance is out of "
                                                      "reach at {} drafts)",
                                                      accept, w.mtp_draft_tokens)
                                        : std::string()));
  return true;
}

}  // namespace gpuplan
