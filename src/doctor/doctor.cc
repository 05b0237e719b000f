#include "doctor/doctor.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>

#include "core/error.h"
#include "core/text.h"

namespace gpuplan::doctor {
namespace {

// The leading digits of s as a number, at most 6 of them (atoi overflows, undefined, on long runs).
int leading_int(const char* s) {
  int v = 0;
  for (int i = 0; i < 6 && std::isdigit(static_cast<unsigned char>(s[i])); ++i) v = v * 10 + (s[i] - '0');
  return v;
}

int major_of(const std::string& v) { return leading_int(v.c_str()); }

std::string cc_string(int cc) { return fmt::format("sm_{}", cc); }

// "GPU0-7" for a contiguous run of indices, else "GPU0,2,5".
std::string gpu_list(const std::vector<int>& idx) {
  if (idx.size() == 1) return fmt::format("GPU{}", idx[0]);
  bool contiguous = true;
  for (size_t i = 1; i < idx.size(); ++i) contiguous = contiguous && idx[i] == idx[i - 1] + 1;
  if (contiguous) return fmt::format("GPU{}-{}", idx.front(), idx.back());
  std::string s = "GPU";
  for (size_t i = 0; i < idx.size(); ++i) {
    if (i) s += ',';
    s += std::to_string(idx[i]);
  }
  return s;
}

// The first word that looks like a product family: letters then digits ("H100", "GB200", "L40S").
std::string family_token(const std::string& name) {
  std::string word;
  auto is_family = [](const std::string& w) {
    size_t i = 0;
    while (i < w.size() && std::isalpha(static_cast<unsigned char>(w[i]))) ++i;
    return i > 0 && i < w.size() && std::isdigit(static_cast<unsigned char>(w[i]));
  };
  for (size_t i = 0; i <= name.size(); ++i) {
    const char c = i < name.size() ? name[i] : ' ';
    if (c == ' ' || c == '-') {
      if (is_family(word) && to_lower(word) != "nvidia") return to_lower(word);
      word.clear();
    } else {
      word += c;
    }
  }
  return "";
}

void add(Report& r, Severity s, std::string subject, std::string message, std::string action = "") {
  r.findings.push_back({s, std::move(subject), std::move(message), std::move(action)});
}

void check_tool_free_gpu(Report& r, const Environment& env) {
  const auto& q = env.smi_query;
  switch (q.status) {
    case ToolStatus::missing:
    case ToolStatus::not_run:
      add(r, Severity::warning, "gpu", "no NVIDIA GPU found: nvidia-smi is not installed",
          "if this machine has an NVIDIA GPU, install the NVIDIA driver (it ships nvidia-smi)");
      return;
    case ToolStatus::timed_out:
      add(r, Severity::error, "driver", "nvidia-smi did not answer in time (a hung driver or GPU)",
          "check `dmesg` for Xid errors; reset the GPU or reboot");
      return;
    case ToolStatus::failed: {
      std::string text = q.text.substr(0, q.text.find('\n'));
      if (q.text.find("No devices were found") != std::string::npos)
        add(r, Severity::warning, "gpu", "no NVIDIA GPU found: nvidia-smi reports no devices");
      else
        add(r, Severity::warning, "driver",
            fmt::format("nvidia-smi failed (exit {}): {}", q.exit_code, text),
            "no usable NVIDIA GPU: if there is one, (re)install and load the NVIDIA driver (`lsmod | grep nvidia`)");
      return;
    }
    case ToolStatus::ok: break;
  }
}

void check_cuda_pair(Report& r, const std::string& subject, const std::string& what, const std::string& cuda,
                     const std::string& min_driver_note) {
  if (cuda.empty() || r.driver_cuda.empty()) return;
  if (major_of(cuda) > major_of(r.driver_cuda))
    add(r, Severity::error, subject,
        fmt::format("{} uses CUDA {} but driver {} supports CUDA {} at most", what, cuda, r.driver_version,
                    r.driver_cuda),
        fmt::format("upgrade the driver{} or use a CUDA {} build", min_driver_note, major_of(r.driver_cuda)));
  else if (compare_versions(cuda, r.driver_cuda) > 0)
    add(r, Severity::warning, subject,
        fmt::format("{} uses CUDA {}, newer than the driver's {} (runs under minor-version compatibility; "
                    "PTX JIT and newer features fail)",
                    what, cuda, r.driver_cuda),
        "upgrade the driver to the one released with that CUDA");
  else
    add(r, Severity::ok, subject, fmt::format("{} uses CUDA {}; the driver supports {}", what, cuda, r.driver_cuda));
}

}  // namespace

const char* to_string(ToolStatus s) {
  switch (s) {
    case ToolStatus::ok: return "ok";
    case ToolStatus::missing: return "missing";
    case ToolStatus::failed: return "failed";
    case ToolStatus::timed_out: return "timed_out";
    case ToolStatus::not_run: return "not_run";
  }
  return "?";
}

const char* to_string(Severity s) {
  switch (s) {
    case Severity::ok: return "ok";
    case Severity::warning: return "warning";
    case Severity::error: return "error";
  }
  return "?";
}

Severity Report::worst() const {
  Severity w = Severity::ok;
  for (const auto& f : findings) w = std::max(w, f.severity);
  return w;
}

const Accelerator* match_accelerator(const Catalog& catalog, const std::string& smi_name, double memory_bytes) {
  std::string name = smi_name;
  if (to_lower(name).rfind("nvidia ", 0) == 0) name = name.substr(7);
  if (const auto* a = catalog.find_accelerator(name)) return a;
  if (const auto* a = catalog.find_accelerator(smi_name)) return a;
  const std::string fam = family_token(name);
  if (fam.empty()) return nullptr;
  const std::string l = to_lower(name);
  const bool pcie = l.find("pcie") != std::string::npos;
  const bool nvl = l.find("nvl") != std::string::npos;
  const Accelerator* best = nullptr;
  double best_gap = 0;
  for (const auto& a : catalog.accelerators()) {
    const std::string key = to_lower(a.name);
    if (key != fam && key.rfind(fam + "-", 0) != 0) continue;
    const bool a_pcie = key.find("pcie") != std::string::npos, a_nvl = key.find("nvl") != std::string::npos;
    if (a_pcie != pcie || a_nvl != nvl) continue;
    // nvidia-smi reports MiB; catalog capacities are marketing GB, which match GiB closely.
    const double gap = std::abs(a.memory_bytes / 1e9 - memory_bytes / std::pow(2.0, 30));
    if (!best || gap < best_gap) best = &a, best_gap = gap;
  }
  return best;
}

Report diagnose(const Environment& env, const Catalog& catalog) {
  Report r;
  r.nvidia_smi_found = env.smi_query.status != ToolStatus::missing && env.smi_query.status != ToolStatus::not_run;

  if (env.nvcc.status == ToolStatus::ok) r.nvcc_version = parse_nvcc_version(env.nvcc.text);
  if (env.torch.status == ToolStatus::ok) {
    try {
      r.torch = parse_torch_probe(env.torch.text);
    } catch (const InputError& e) {
      add(r, Severity::warning, "pytorch", std::string("could not read the PyTorch probe: ") + e.what());
    }
  }

  if (env.smi_query.status != ToolStatus::ok) {
    check_tool_free_gpu(r, env);
  } else {
    try {
      for (const auto& g : parse_smi_query(env.smi_query.text)) r.gpus.push_back({g, "", ""});
    } catch (const InputError& e) {
      add(r, Severity::error, "nvidia-smi", std::string("unexpected output: ") + e.what(),
          "run `nvidia-smi --query-gpu=" + std::string(kSmiQueryFields) +
              " --format=csv` by hand; an old driver may lack a field (compute_cap needs 510+)");
    }
    if (r.gpus.empty() && r.findings.empty())
      add(r, Severity::warning, "gpu", "no NVIDIA GPU found: nvidia-smi reports no devices");
  }

  if (!r.gpus.empty()) {
    r.driver_version = r.gpus[0].smi.driver_version;
    r.driver_cuda = cuda_for_driver(r.driver_version);
    add(r, Severity::ok, "driver",
        fmt::format("NVIDIA driver {} (supports CUDA {} at most)", r.driver_version,
                    r.driver_cuda.empty() ? "older than 11.0" : r.driver_cuda));
  }

  // One set of checks per distinct GPU model.
  std::map<std::string, std::vector<size_t>> by_model;
  for (size_t i = 0; i < r.gpus.size(); ++i) by_model[r.gpus[i].smi.name].push_back(i);
  if (by_model.size() > 1)
    add(r, Severity::warning, "gpu", fmt::format("{} different GPU models in one machine", by_model.size()),
        "keep one job on one model: a data-parallel group runs at the pace of its slowest GPU");

  for (const auto& [model, members] : by_model) {
    std::vector<int> idx;
    for (size_t i : members) idx.push_back(r.gpus[i].smi.index);
    const std::string subject = gpu_list(idx);
    const SmiGpu& g = r.gpus[members[0]].smi;
    const Accelerator* a = match_accelerator(catalog, g.name, g.memory_bytes);
    if (!a) {
      add(r, Severity::warning, subject, fmt::format("'{}' is not in the catalog", g.name),
          "add it with --catalog DIR (an accelerators: entry with this name as an alias)");
      continue;
    }
    for (size_t i : members) r.gpus[i].catalog_name = a->name, r.gpus[i].generation = a->generation;
    const int cc = g.compute_capability ? g.compute_capability : a->compute_capability;
    add(r, Severity::ok, subject,
        fmt::format("{} x {}: catalog '{}' ({}), {}, {:.1f} GiB", idx.size(), g.name, a->name,
                    a->architecture, cc_string(cc), g.memory_bytes / std::pow(2.0, 30)));
    if (g.compute_capability && a->compute_capability && g.compute_capability != a->compute_capability)
      add(r, Severity::warning, subject,
          fmt::format("reports {} but the catalog's '{}' is {}", cc_string(g.compute_capability), a->name,
                      cc_string(a->compute_capability)),
          "check the catalog entry, or add this GPU with --catalog DIR");
    const double ratio = g.memory_bytes / std::pow(2.0, 30) / (a->memory_bytes / 1e9);
    if (a->memory_bytes > 0 && (ratio < 0.9 || ratio > 1.1))
      add(r, Severity::warning, subject,
          fmt::format("{:.1f} GiB visible, the catalog's '{}' has {:.0f} GB (a MIG slice, another SKU?)",
                      g.memory_bytes / std::pow(2.0, 30), a->name, a->memory_bytes / 1e9),
          "memory plans use the catalog figure: pass --catalog with the real capacity");
    if (!a->min_driver.empty()) {
      if (compare_versions(g.driver_version, a->min_driver) < 0)
        add(r, Severity::error, subject,
            fmt::format("driver {} is older than {}'s minimum {}", g.driver_version, cc_string(cc), a->min_driver),
            fmt::format("install driver {} or newer", a->min_driver));
      else
        add(r, Severity::ok, subject,
            fmt::format("driver {} >= {} (minimum for {})", g.driver_version, a->min_driver, cc_string(cc)));
    }
    if (!a->min_cuda.empty() && std::isdigit(static_cast<unsigned char>(a->min_cuda[0]))) {
      if (!r.driver_cuda.empty() && compare_versions(r.driver_cuda, a->min_cuda) < 0)
        add(r, Severity::error, subject,
            fmt::format("the driver supports CUDA {}, {} needs CUDA {}+", r.driver_cuda, cc_string(cc), a->min_cuda),
            "upgrade the driver");
      if (r.nvcc_version && compare_versions(*r.nvcc_version, a->min_cuda) < 0)
        add(r, Severity::warning, "nvcc",
            fmt::format("nvcc {} cannot build for {} (needs CUDA {}+)", *r.nvcc_version, cc_string(cc), a->min_cuda),
            fmt::format("install CUDA toolkit {} or newer", a->min_cuda));
    }
    // Tensor-core formats: FP8 from Ada/Hopper (sm_89), FP4 from Blackwell (sm_100).
    if (cc >= 100)
      add(r, Severity::ok, subject, "FP8 and FP4 tensor cores (sm_100+): bf16, fp8, mxfp8 and nvfp4 plans run");
    else if (cc >= 89)
      add(r, Severity::ok, subject, "FP8 tensor cores (sm_89+); no FP4 (needs sm_100+): plan with bf16 or fp8");
    else
      add(r, Severity::warning, subject, "no FP8 (needs sm_89+) and no FP4 (needs sm_100+)",
          "plan with --precision bf16");

    if (r.torch && !r.torch->cuda.empty()) {
      const auto& t = *r.torch;
      if (!a->first_pytorch.empty() && compare_versions(t.version, a->first_pytorch) < 0)
        add(r, Severity::error, "pytorch",
            fmt::format("PyTorch {} predates {} support (first release: {})", t.version, cc_string(cc),
                        a->first_pytorch),
            fmt::format("install PyTorch {} or newer", a->first_pytorch));
      const bool sass = std::find(t.arch_list.begin(), t.arch_list.end(), cc_string(cc)) != t.arch_list.end();
      bool ptx = false;
      for (const auto& arch : t.arch_list)
        if (arch.rfind("compute_", 0) == 0 && leading_int(arch.c_str() + 8) <= cc) ptx = true;
      // Same-major SASS runs on a later minor (sm_86 code on sm_89): binary compatibility.
      bool same_major = false;
      for (const auto& arch : t.arch_list)
        if (arch.rfind("sm_", 0) == 0) {
          const int v = leading_int(arch.c_str() + 3);
          if (v / 10 == cc / 10 && v <= cc && cc < 100) same_major = true;
        }
      if (sass)
        add(r, Severity::ok, "pytorch", fmt::format("PyTorch {} ships {} kernels", t.version, cc_string(cc)));
      else if (same_major || ptx)
        add(r, Severity::warning, "pytorch",
            fmt::format("PyTorch {} has no {} kernels; it runs {}", t.version, cc_string(cc),
                        same_major ? "an earlier minor's SASS" : "by JIT-compiling PTX (slow first start)"),
            "install a wheel built for this architecture");
      else
        add(r, Severity::error, "pytorch",
            fmt::format("PyTorch {} has no kernels for {} (arch list: {})", t.version, cc_string(cc),
                        fmt::join(t.arch_list, " ")),
            a->first_pytorch.empty() ? "install a wheel built for this architecture"
                                     : fmt::format("install PyTorch {}+ built with CUDA {}+", a->first_pytorch,
                                                   a->min_cuda));
    }
  }

  if (!r.gpus.empty()) {
    if (r.nvcc_version)
      check_cuda_pair(r, "nvcc", fmt::format("nvcc {}", *r.nvcc_version), *r.nvcc_version, "");
    else
      add(r, Severity::ok, "nvcc", "nvcc not found (needed only to build CUDA code, e.g. the probe)");
    if (r.torch) {
      if (r.torch->cuda.empty()) {
        add(r, Severity::warning, "pytorch", fmt::format("PyTorch {} is a CPU-only build", r.torch->version),
            "install a CUDA wheel (https://pytorch.org/get-started/locally/)");
      } else {
        check_cuda_pair(r, "pytorch", fmt::format("PyTorch {}", r.torch->version), r.torch->cuda, "");
        if (!r.torch->cuda_available)
          add(r, Severity::error, "pytorch", "torch.cuda.is_available() is False although GPUs are present",
              "check CUDA_VISIBLE_DEVICES and the driver/runtime pairing above");
      }
    } else if (env.torch.status != ToolStatus::ok) {
      add(r, Severity::ok, "pytorch",
          env.torch.status == ToolStatus::missing ? "python3 not found; PyTorch not checked"
                                                  : "PyTorch not importable; not checked");
    }
  }

  // NVLink topology.
  if (r.gpus.size() > 1) {
    if (env.smi_topo.status != ToolStatus::ok) {
      add(r, Severity::warning, "topology", "`nvidia-smi topo -m` gave nothing; NVLink not checked");
    } else {
      try {
        r.topology = parse_topo(env.smi_topo.text);
        const auto& t = *r.topology;
        std::vector<std::string> slow;
        int min_links = 1 << 20, max_links = 0;
        for (size_t i = 0; i < t.gpus.size(); ++i)
          for (size_t j = i + 1; j < t.gpus.size(); ++j) {
            const int n = t.nvlinks(i, j);
            min_links = std::min(min_links, n);
            max_links = std::max(max_links, n);
            if (!n) slow.push_back(fmt::format("{}-{} {}", t.gpus[i], t.gpus[j], t.link[i][j]));
          }
        if (t.gpus.size() != r.gpus.size())
          add(r, Severity::warning, "topology",
              fmt::format("topo -m shows {} GPUs, the query {}", t.gpus.size(), r.gpus.size()));
        if (slow.empty())
          add(r, Severity::ok, "topology",
              min_links == max_links
                  ? fmt::format("all {} GPUs pairwise over NVLink (NV{})", t.gpus.size(), min_links)
                  : fmt::format("all {} GPUs pairwise over NVLink (NV{}..NV{})", t.gpus.size(), min_links,
                                max_links));
        else
          add(r, Severity::warning, "topology",
              fmt::format("{} GPU pairs without NVLink: {}", slow.size(),
                          fmt::join(slow.begin(), slow.begin() + static_cast<long>(std::min<size_t>(slow.size(), 6)),
                                    ", ")),
              "keep tensor- and expert-parallel groups on NVLink-connected GPUs (plan tp within those)");
      } catch (const InputError& e) {
        add(r, Severity::warning, "topology", std::string("could not read `nvidia-smi topo -m`: ") + e.what());
      }
    }
  }
  return r;
}

}  // namespace gpuplan::doctor
