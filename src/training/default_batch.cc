#include "training/default_batch.h"

#include <fmt/format.h>

#include <cmath>
#include <stdexcept>
#include <vector>

#include "core/embedded_data.h"
#include "core/yaml_reader.h"
#include "core/yaml_tree.h"

namespace gpuplan {

namespace {

constexpr const char* kFile = "training/batch_schedules.yaml";

BatchLaw fit_law() {
  std::vector<double> xs, ys;
  for (const EmbeddedFile& f : embedded_data_files()) {
    if (f.path != kFile) continue;
    YamlMap top(embedded_yaml(f), kFile);
    for (YamlMap& s : top.map_list("schedules")) {
      s.str("model");
      s.str("source");
      xs.push_back(std::log(s.num_in("params_b", 1e-3, 1e5) * 1e9));
      ys.push_back(std::log(s.num_in("tokens_m", 1e-3, 1e5) * 1e6));
      s.reject_unknown_keys();
    }
    top.reject_unknown_keys();
  }
  if (xs.size() < 2) throw std::logic_error(fmt::format("{}: needs at least two schedules", kFile));
  const double n = static_cast<double>(xs.size());
  double mx = 0, my = 0;
  for (std::size_t i = 0; i < xs.size(); ++i) mx += xs[i] / n, my += ys[i] / n;
  double sxy = 0, sxx = 0;
  for (std::size_t i = 0; i < xs.size(); ++i) sxy += (xs[i] - mx) * (ys[i] - my), sxx += (xs[i] - mx) * (xs[i] - mx);
  BatchLaw law;
  law.b = sxy / sxx;
  law.a = std::exp(my - law.b * mx);
  law.schedules = static_cast<int>(xs.size());
  return law;
}

}  // namespace

const BatchLaw& default_batch_law() {
  static const BatchLaw law = fit_law();
  return law;
}

DefaultBatch default_global_batch(const ModelArch& m, int seq_len) {
  const BatchLaw& law = default_batch_law();
  const double params = std::max(1.0, total_params(m));
  DefaultBatch d;
  d.fitted_tokens = law.a * std::pow(params, law.b);
  // The nearest (in log) count of the form 2^a x 3^b, b <= 2: the round counts published runs use
  // (GPT-3's 1536, DeepSeek LLM's 2304 and 4608, Llama 3's 2048), and one that still splits over GPU
  // counts with a factor 3 or 9 in them (an NVL72 rack: 8 x 9).
  const double seqs = std::max(1.0, d.fitted_tokens / std::max(1, seq_len));
  double best = 1, best_dist = 1e300;
  for (double three : {1.0, 3.0, 9.0})
    for (int a = 0; a <= 40; ++a) {
      const double c = three * std::ldexp(1.0, a);
      const double dist = std::abs(std::log(c / seqs));
      if (dist < best_dist - 1e-12) best = c, best_dist = dist;
    }
  d.sequences = static_cast<long long>(best);
  d.tokens = static_cast<double>(d.sequences) * seq_len;
  d.basis = fmt::format("default for a {:.3g}B-parameter model: {:.3g}M tokens per step from {} published "
                        "pre-training schedules (tokens ~ params^{:.2f}), as a round sequence count",
                        params / 1e9, d.tokens / 1e6, law.schedules, law.b);
  return d;
}

}  // namespace gpuplan
