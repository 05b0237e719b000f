// gpuplan probe [--quick] [--out calibration.yaml] [--device N]
// Measures what this GPU really delivers (cuBLASLt GEMM BF16/FP8 over square and skinny shapes, HBM copy
// and read bandwidth, NVML power), prints it against the datasheet, and writes a calibration file: a
// catalog overlay with an `efficiencies:` entry for the GPU's generation (`--catalog DIR` loads it).
// The measuring part is CUDA (src/probe/), built only when CMake found nvcc (cmake/probe.cmake).
#include <dlfcn.h>
#include <fmt/format.h>
#include <unistd.h>

#include <charconv>
#include <cmath>
#include <ctime>
#include <fstream>
#include <iostream>

#include "cli/commands.h"
#include "cli/common.h"
#include "core/error.h"
#include "doctor/calibration.h"
#include "doctor/doctor.h"
#ifdef GPUPLAN_HAVE_PROBE
#include "probe/probe.h"
#endif

namespace gpuplan::cli {
namespace {

using nlohmann::json;

#ifdef GPUPLAN_HAVE_PROBE
// Loads the probe module from beside the executable and runs it; false with error set on failure.
bool run_probe_module(const probe::Options& opts, doctor::ProbeMeasurements& m, std::string& error) {
  char exe[4096];
  const ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  std::string dir = n > 0 ? std::string(exe, static_cast<size_t>(n)) : std::string(".");
  dir = dir.substr(0, dir.find_last_of('/'));
  const std::string path = dir + "/libgpuplan_probe.so";  // cmake/probe.cmake puts it there
  void* lib = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    error = "cannot load the CUDA probe module " + path + ": " + dlerror();
    return false;
  }
  const auto fn = reinterpret_cast<probe::ModuleRunFn>(dlsym(lib, probe::kModuleRunSymbol));
  if (!fn) {
    error = path + " has no " + probe::kModuleRunSymbol;
    return false;
  }
  return fn(&opts, &m, &std::cerr, &error) == 0;  // the module stays loaded: CUDA tears down at exit
}
#endif


[[maybe_unused]] std::string figure(double v, const std::string& unit) {
  if (unit == "FLOP/s") return fmt::format("{:.1f} TFLOP/s", v / 1e12);
  if (unit == "B/s") return fmt::format("{:.2f} TB/s", v / 1e12);
  return fmt::format("{:.0f} {}", v, unit);
}

// A CUDA device index: a whole number from 0 (checked before the conversion, so the message says what is wrong).
CLI::Validator device_index() {
  return CLI::Validator(
      [](std::string& s) -> std::string {
        long long v = 0;
        const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
        if (ec == std::errc::invalid_argument || p != s.data() + s.size())
          return "not a whole number: give a device index 0 or more, got '" + s + "'";
        if (ec == std::errc::result_out_of_range || v < 0 || v > 1'000'000)
          return "must be a device index 0 or more (at most 1000000), got " + s;
        return {};
      },
      "", "DEVICE_INDEX");
}

}  // namespace

int cmd_probe(int argc, char** argv) {
  CLI::App app{"Measure this GPU (GEMM BF16/FP8, HBM bandwidth, power) and write a calibration file"};
  CommonOptions common;
  add_common_options(app, common);
  bool quick = false;
  std::string out_path;
  int device = 0;
  app.add_flag("--quick", quick, "Fewer shapes and repetitions (about 20 s)");
  app.add_option("--out", out_path, "Write the calibration (catalog YAML with an efficiencies: entry) here");
  app.add_option("--device", device, "CUDA device index")->check(device_index());
  if (int rc = parse_args(app, argc, argv); rc >= 0) return rc;
#ifndef GPUPLAN_HAVE_PROBE
  std::cerr << "error: this build of gpuplan has no CUDA probe (CMake did not find nvcc, or "
               "GPUPLAN_BUILD_PROBE=OFF).\nRebuild on a machine with the CUDA toolkit: cmake -DGPUPLAN_BUILD_PROBE=ON "
               "... (see docs/doctor-probe.md); `gpuplan doctor` works without it.\n";
  (void)quick, (void)device;
  return kExitFailure;
#else
  return run_guarded([&] {
    const Catalog catalog = load_catalog(common);
    doctor::ProbeMeasurements m;
    if (std::string error; !run_probe_module({quick, device}, m, error)) {
      std::cerr << "error: probe failed: " << error << "\n";
      return kExitFailure;
    }
    const Accelerator* acc = doctor::match_accelerator(catalog, m.device_name, m.memory_bytes);
    if (!acc) {
      std::cerr << "error: '" << m.device_name << "' is not in the catalog; add it with --catalog DIR to compare "
                << "against its datasheet and calibrate\n";
      return kExitFailure;
    }
    const auto cal = doctor::fit_calibration(m, *acc, catalog.efficiency(acc->generation), today_utc());
    if (!out_path.empty()) {
      check_output_file(out_path, "--out", std::vector<std::string>(argv + 1, argv + argc));
      std::ofstream f(out_path);
      if (!f) throw InputError("--out", "cannot write '" + out_path + "'");
      f << doctor::calibration_yaml(cal, m, *acc);
    }
    if (common.json) {
      json rows = json::array();
      for (const auto& c : cal.comparisons)
        rows.push_back({{"figure", c.figure}, {"measured", c.measured}, {"datasheet", c.datasheet},
                        {"unit", c.unit}, {"fraction", c.datasheet > 0 ? c.measured / c.datasheet : 0.0}});
      const auto& e = cal.efficiency;
      print_json("probe", {{"device", m.device_name},
                           {"compute_capability", m.compute_capability},
                           {"catalog_name", acc->name},
                           {"generation", acc->generation},
                           {"comparisons", rows},
                           {"joules_per_flop", cal.joules_per_flop ? json(*cal.joules_per_flop) : json(nullptr)},
                           {"efficiency",
                            {{"gemm_max", e.gemm_max},
                             {"gemm_half_dim", e.gemm_half_dim},
                             {"gemm_fp8_scale", e.gemm_fp8_scale},
                             {"hbm_eff", e.hbm_eff}}},
                           {"notes", m.notes},
                           {"out", out_path}});
      return kExitOk;
    }
    std::cout << fmt::format("{} (catalog '{}', sm_{}): measured against datasheet\n\n", m.device_name, acc->name,
                             m.compute_capability);
    std::cout << fmt::format("{:<30} {:>16} {:>16} {:>7}\n", "figure", "measured", "datasheet", "%");
    for (const auto& c : cal.comparisons)
      std::cout << fmt::format("{:<30} {:>16} {:>16} {:>6.1f}%\n", c.figure, figure(c.measured, c.unit),
                               figure(c.datasheet, c.unit), c.datasheet > 0 ? 100 * c.measured / c.datasheet : 0.0);
    if (cal.joules_per_flop) std::cout << fmt::format("\nBF16 energy: {:.3g} pJ/FLOP\n", *cal.joules_per_flop * 1e12);
    const auto& e = cal.efficiency;
    const auto& base = catalog.efficiency(acc->generation);
    std::cout << fmt::format(
        "\nefficiency '{}': gemm_max {:.3f} (fitted {:.3f}), gemm_half_dim {:.0f} ({:.0f}), gemm_fp8_scale {:.3f} "
        "({:.3f}), hbm_eff {:.3f} ({:.3f})\n",
        e.generation, e.gemm_max, base.gemm_max, e.gemm_half_dim, base.gemm_half_dim, e.gemm_fp8_scale,
        base.gemm_fp8_scale, e.hbm_eff, base.hbm_eff);
    for (const auto& n : m.notes) std::cout << "note: " << n << "\n";
    if (!out_path.empty())
      std::cout << "wrote " << out_path << " (use: gpuplan train --catalog <its directory> ...)\n";
    return kExitOk;
  });
#endif
}

}  // namespace gpuplan::cli
