#include "schedule/trace.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <numeric>
#include <sstream>

#include "core/input_file.h"
#include "core/error.h"

namespace gpuplan::schedule {

const char* to_string(JobKind k) {
  switch (k) {
    case JobKind::trace: return "trace";
    case JobKind::training: return "training";
    case JobKind::finetune: return "finetune";
    case JobKind::inference: return "inference";
  }
  return "trace";
}

namespace {

std::vector<std::string_view> split_csv(std::string_view line) {
  std::vector<std::string_view> out;
  size_t pos = 0;
  while (true) {
    const size_t c = line.find(',', pos);
    out.push_back(line.substr(pos, c == std::string_view::npos ? std::string_view::npos : c - pos));
    if (c == std::string_view::npos) break;
    pos = c + 1;
  }
  for (auto& s : out) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '"')) s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '"' || s.back() == '\r')) s.remove_suffix(1);
  }
  return out;
}

double to_number(std::string_view s, const std::string& field) {
  std::string str(s);
  char* end = nullptr;
  const double v = std::strtod(str.c_str(), &end);
  if (str.empty() || end != str.c_str() + str.size() || !std::isfinite(v))
    throw InputError(field, fmt::format("'{}' is not a number", str.substr(0, 80)));
  return v;
}

int to_count(std::string_view s, const std::string& field, int lo, int hi) {
  const double v = to_number(s, field);
  if (v != std::floor(v) || v < lo || v > hi)
    throw InputError(field, fmt::format("'{}' is not an integer in {}..{}", std::string(s), lo, hi));
  return static_cast<int>(v);
}

// Days since 1970-01-01 of a civil date (H. Hinnant's days_from_civil).
long long days_from_civil(long long y, unsigned m, unsigned d) {
  y -= m <= 2;
  const long long era = (y >= 0 ? y : y - 399) / 400;
  const unsigned yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<long long>(doe) - 719468;
}

// Submit times and durations: at most ~317 years in seconds. Past that a simulation never reaches the
// job (1e308 was counted and never run) and the written trace would hold inf.
constexpr double kMaxTraceSeconds = 1e10;

double to_seconds(std::string_view s, const std::string& field) {
  const double v = to_number(s, field);
  if (v < 0 || v > kMaxTraceSeconds)
    throw InputError(field, fmt::format("'{}' must be from 0 to {:g} seconds", std::string(s), kMaxTraceSeconds));
  return v;
}

int days_in_month(int y, int m) {
  static const int days[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  const bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
  return m == 2 && leap ? 29 : days[m - 1];
}

// Reads `digits` (1 to max_digits) decimal digits at s[pos] into *out and moves pos past them; false
// when there are none or more than max_digits (no number can overflow an int here).
bool read_digits(std::string_view s, size_t& pos, size_t max_digits, int* out) {
  size_t n = 0;
  int v = 0;
  while (pos + n < s.size() && s[pos + n] >= '0' && s[pos + n] <= '9') {
    if (++n > max_digits) return false;
    v = v * 10 + (s[pos + n - 1] - '0');
  }
  if (n == 0) return false;
  pos += n;
  *out = v;
  return true;
}

bool read_char(std::string_view s, size_t& pos, char c) {
  if (pos >= s.size() || s[pos] != c) return false;
  ++pos;
  return true;
}

double parse_timestamp(std::string_view s, const std::string& field) {
  int y = 0, mo = 0, d = 0, h = 0, mi = 0, sec = 0;
  size_t pos = 0;
  const bool shape = read_digits(s, pos, 4, &y) && read_char(s, pos, '-') && read_digits(s, pos, 2, &mo) &&
                     read_char(s, pos, '-') && read_digits(s, pos, 2, &d) && read_char(s, pos, ' ') &&
                     read_digits(s, pos, 2, &h) && read_char(s, pos, ':') && read_digits(s, pos, 2, &mi) &&
                     read_char(s, pos, ':') && read_digits(s, pos, 2, &sec) && pos == s.size();
  if (!shape || y < 1970 || mo < 1 || mo > 12 || d < 1 || d > days_in_month(y, mo) || h > 23 || mi > 59 || sec > 60)
    throw InputError(field, fmt::format("'{}' is not a 'YYYY-MM-DD HH:MM:SS' timestamp (a real date, 1970 to 9999)",
                                        std::string(s.substr(0, 80))));
  return static_cast<double>(days_from_civil(y, static_cast<unsigned>(mo), static_cast<unsigned>(d)) * 86400LL +
                             h * 3600LL + mi * 60LL + sec);
}

JobKind parse_kind(std::string_view s, const std::string& field) {
  for (JobKind k : {JobKind::trace, JobKind::training, JobKind::finetune, JobKind::inference})
    if (s == to_string(k)) return k;
  throw InputError(field, fmt::format("'{}' is not a job kind (trace, training, finetune, inference)", std::string(s)));
}

void finish(std::vector<Job>& jobs) {
  std::stable_sort(jobs.begin(), jobs.end(), [](const Job& a, const Job& b) { return a.submit_s < b.submit_s; });
  const double t0 = jobs.empty() ? 0.0 : jobs.front().submit_s;
  for (size_t i = 0; i < jobs.size(); ++i) {
    jobs[i].submit_s -= t0;
    jobs[i].id = static_cast<int>(i);
  }
}

}  // namespace

std::vector<Job> parse_trace_csv(const std::string& text, const std::string& origin) {
  std::istringstream in(text);
  std::string line;
  int lineno = 0;
  std::vector<std::string_view> header;
  std::string header_line;
  while (std::getline(in, line)) {
    ++lineno;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty() || line[0] == '#') continue;
    header_line = line;
    break;
  }
  if (header_line.empty()) throw InputError(origin, "empty trace: no header line");
  header = split_csv(header_line);
  const bool philly = header.size() >= 3 && header[0] == "timestamp" && header[1] == "duration" && header[2] == "num_gpus";
  const bool native = header.size() >= 3 && header[0] == "submit_s" && header[1] == "duration_s" && header[2] == "gpus";
  if (!philly && !native)
    throw InputError(origin + ":" + std::to_string(lineno),
                     "unknown trace header '" + header_line +
                         "' (expected 'timestamp,duration,num_gpus,...' (Philly) or "
                         "'submit_s,duration_s,gpus[,group_gpus,kind,preemptible]')");
  std::vector<Job> jobs;
  while (std::getline(in, line)) {
    ++lineno;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty() || line[0] == '#') continue;
    const auto cols = split_csv(line);
    const std::string where = origin + ":" + std::to_string(lineno);
    if (cols.size() < 3) throw InputError(where, fmt::format("expected at least 3 columns, got {}", cols.size()));
    Job j;
    if (philly) {
      j.submit_s = parse_timestamp(cols[0], where + ".timestamp");
      j.duration_s = to_seconds(cols[1], where + ".duration");
      j.gpus = to_count(cols[2], where + ".num_gpus", 1, 1000000);
      j.group_gpus = j.gpus;
      j.kind = JobKind::trace;
    } else {
      j.submit_s = to_seconds(cols[0], where + ".submit_s");
      j.duration_s = to_seconds(cols[1], where + ".duration_s");
      j.gpus = to_count(cols[2], where + ".gpus", 1, 1000000);
      j.group_gpus = cols.size() > 3 && !cols[3].empty() ? to_count(cols[3], where + ".group_gpus", 1, j.gpus) : j.gpus;
      if (j.gpus % j.group_gpus != 0)
        throw InputError(where + ".group_gpus", fmt::format("{} does not divide gpus ({})", j.group_gpus, j.gpus));
      j.kind = cols.size() > 4 && !cols[4].empty() ? parse_kind(cols[4], where + ".kind") : JobKind::trace;
      j.preemptible = cols.size() > 5 && !cols[5].empty() ? to_count(cols[5], where + ".preemptible", 0, 1) == 1 : false;
    }
    const std::string dur_field = where + (philly ? ".duration" : ".duration_s");
    if (j.duration_s < 0) throw InputError(dur_field, "a duration cannot be negative");
    jobs.push_back(j);
  }
  finish(jobs);
  return jobs;
}

std::vector<Job> read_trace_file(const std::string& path) {
  return parse_trace_csv(read_input_file(path, "--trace"), path);
}

std::string write_trace_csv(const std::vector<Job>& jobs) {
  std::string out = "submit_s,duration_s,gpus,group_gpus,kind,preemptible\n";
  for (const Job& j : jobs)
    out += fmt::format("{},{},{},{},{},{}\n", j.submit_s, j.duration_s, j.gpus, j.group_gpus, to_string(j.kind),
                       j.preemptible ? 1 : 0);
  return out;
}

namespace {

// splitmix64: a tiny generator whose output is the same everywhere (std distributions are not).
struct Rng {
  uint64_t s;
  uint64_t next() {
    uint64_t z = (s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }  // [0, 1)
  double normal() {  // Box-Muller
    const double u1 = 1.0 - uniform(), u2 = uniform();
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
  }
  double lognormal(double median, double sigma) { return median * std::exp(sigma * normal()); }
  template <typename T>
  T pick(const std::vector<T>& v, const std::vector<double>& w) {
    const double total = std::accumulate(w.begin(), w.end(), 0.0);
    double r = uniform() * total;
    for (size_t i = 0; i < v.size(); ++i) {
      if (r < w[i]) return v[i];
      r -= w[i];
    }
    return v.back();
  }
};

}  // namespace

std::vector<Job> generate_llm_mix(const MixOptions& o) {
  if (o.jobs < 1 || o.jobs > 10'000'000) throw InputError("--jobs", fmt::format("{} is outside 1..10000000", o.jobs));
  if (o.cluster_gpus < 1) throw InputError("cluster", "a cluster without GPUs cannot run a job mix");
  if (!(o.offered_load > 0 && o.offered_load <= 10))
    throw InputError("--load", fmt::format("{} is outside (0, 10]", o.offered_load));
  Rng rng{o.seed * 0x2545F4914F6CDD1Dull + 1};
  std::vector<Job> jobs;
  jobs.reserve(o.jobs);
  const double hour = 3600.0;
  std::vector<int> train_sizes;
  std::vector<double> train_w;
  for (int g : {64, 128, 256, 512, 1024, 2048, 4096})
    if (g <= o.cluster_gpus) {
      train_sizes.push_back(g);
      train_w.push_back(64.0 / std::sqrt(static_cast<double>(g)));  // more small runs than large
    }
  double demand_gpu_s = 0;
  for (int i = 0; i < o.jobs; ++i) {
    Job j;
    const double r = rng.uniform();
    if (r < 0.10 && !train_sizes.empty()) {
      j.kind = JobKind::training;
      j.gpus = rng.pick(train_sizes, train_w);
      const double moe = rng.uniform();
      j.group_gpus = moe < 0.6 ? 8 : (moe < 0.8 ? 32 : 64);  // dense TP=8; MoE TP x EP = 4x8 or 4x16
      j.duration_s = std::min(rng.lognormal(24 * hour, 1.0), 14 * 24 * hour);
    } else if (r < 0.40) {
      j.kind = JobKind::finetune;
      j.gpus = rng.pick(std::vector<int>{8, 16, 32, 64}, {4, 3, 2, 1});
      j.group_gpus = 8;
      j.duration_s = std::min(rng.lognormal(4 * hour, 1.0), 3 * 24 * hour);
    } else {
      j.kind = JobKind::inference;
      j.gpus = rng.pick(std::vector<int>{1, 2, 4, 8, 16, 32}, {2, 2, 3, 4, 2, 1});
      j.group_gpus = j.gpus;  // one model replica: TP (x EP) over all its GPUs
      j.preemptible = o.preemptible_inference;
      j.duration_s = std::min(rng.lognormal(12 * hour, 1.0), 7 * 24 * hour);
    }
    if (j.gpus > o.cluster_gpus) j.gpus = j.group_gpus = std::max(1, o.cluster_gpus);
    j.duration_s = std::round(j.duration_s);
    demand_gpu_s += j.gpus * j.duration_s;
    jobs.push_back(j);
  }
  // Poisson arrivals over the span that gives the offered load.
  const double mean_gap = demand_gpu_s / (o.cluster_gpus * o.offered_load) / o.jobs;
  double t = 0;
  for (Job& j : jobs) {
    j.submit_s = std::round(t);
    t += -std::log(1.0 - rng.uniform()) * mean_gap;
  }
  finish(jobs);
  return jobs;
}

}  // namespace gpuplan::schedule
