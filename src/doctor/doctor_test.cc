#include "doctor/doctor.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "core/error.h"
#include "doctor/recorded.h"

namespace gpuplan::doctor {
namespace {

const std::string kFixtures = std::string(GPUPLAN_SOURCE_DIR) + "/src/doctor/fixtures/";

const Catalog& catalog() {
  static const Catalog c = Catalog::builtin();
  return c;
}

Report diagnose_fixture(const std::string& name) { return diagnose(load_recorded(kFixtures + name), catalog()); }

// The findings of a severity whose subject or message contains text.
size_t count(const Report& r, Severity s, const std::string& text) {
  return static_cast<size_t>(std::count_if(r.findings.begin(), r.findings.end(), [&](const Finding& f) {
    return f.severity == s && (f.message.find(text) != std::string::npos || f.subject == text);
  }));
}

std::string dump(const Report& r) {
  std::string s;
  for (const auto& f : r.findings) s += std::string(to_string(f.severity)) + " " + f.subject + ": " + f.message + "\n";
  return s;
}

TEST(SmiQuery, ParsesH100Rows) {
  const auto env = load_recorded(kFixtures + "hgx-h100");
  const auto gpus = parse_smi_query(env.smi_query.text);
  ASSERT_EQ(gpus.size(), 8u);
  EXPECT_EQ(gpus[7].index, 7);
  EXPECT_EQ(gpus[0].name, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(gpus[0].driver_version, "535.161.08");
  EXPECT_EQ(gpus[0].compute_capability, 90);
  EXPECT_DOUBLE_EQ(gpus[0].memory_bytes, 81559.0 * 1024 * 1024);
  EXPECT_DOUBLE_EQ(gpus[0].power_limit_w, 700.0);
}

TEST(SmiQuery, NoDevicesAndNotAvailable) {
  EXPECT_TRUE(parse_smi_query("No devices were found\n").empty());
  EXPECT_TRUE(parse_smi_query("").empty());
  const auto g = parse_smi_query(
      "index, name, uuid, pci.bus_id, driver_version, memory.total [MiB], compute_cap, power.limit [W]\n"
      "0, NVIDIA A100-SXM4-80GB, GPU-x, 00000000:07:00.0, 470.57.02, 81251 MiB, [N/A], [N/A]\n");
  ASSERT_EQ(g.size(), 1u);
  EXPECT_EQ(g[0].compute_capability, 0);
  EXPECT_EQ(g[0].power_limit_w, 0);
}

TEST(SmiQuery, RejectsOtherColumns) {
  EXPECT_THROW(parse_smi_query("name, memory.total [MiB]\nNVIDIA H100, 81559 MiB\n"), InputError);
  EXPECT_THROW(parse_smi_query("Field \"compute_cap\" is not a valid field to query.\n"), InputError);
}

TEST(Topo, ParsesGpuBlock) {
  const auto t = parse_topo(load_recorded(kFixtures + "gb200-tray").smi_topo.text);
  ASSERT_EQ(t.gpus.size(), 4u);
  EXPECT_EQ(t.link[0][0], "X");
  EXPECT_EQ(t.nvlinks(0, 3), 18);
  EXPECT_EQ(t.nvlinks(0, 0), 0);
  const auto pcie = parse_topo("\tGPU0\tGPU1\tCPU Affinity\nGPU0\t X \tSYS\t0-7\nGPU1\tSYS\t X \t0-7\n");
  EXPECT_EQ(pcie.nvlinks(0, 1), 0);
  EXPECT_THROW(parse_topo("nothing here"), InputError);
}

TEST(Versions, CompareAndDriverCuda) {
  EXPECT_GT(compare_versions("550.54.15", "525.60.13"), 0);
  EXPECT_EQ(compare_versions("2.7.0+cu128", "2.7"), 0);
  EXPECT_LT(compare_versions("2.5.1+cu124", "2.7.0"), 0);
  EXPECT_EQ(cuda_for_driver("550.54.15"), "12.4");
  EXPECT_EQ(cuda_for_driver("550.54.13"), "12.3");
  EXPECT_EQ(cuda_for_driver("570.124.06"), "12.8");
  EXPECT_EQ(cuda_for_driver("580.65.06"), "13.0");
  EXPECT_EQ(cuda_for_driver("440.33"), "");
  EXPECT_EQ(parse_nvcc_version("Cuda compilation tools, release 12.4, V12.4.131\n"), "12.4");
  EXPECT_FALSE(parse_nvcc_version("bash: nvcc: command not found").has_value());
}

TEST(Match, NvidiaSmiNamesToCatalog) {
  auto key = [](const char* name, double mib) {
    const auto* a = match_accelerator(catalog(), name, mib * 1024 * 1024);
    return a ? a->name : std::string("(none)");
  };
  EXPECT_EQ(key("NVIDIA H100 80GB HBM3", 81559), "h100-sxm");
  EXPECT_EQ(key("NVIDIA H100 PCIe", 81559), "h100-pcie");
  EXPECT_EQ(key("NVIDIA H100 NVL", 95830), "h100-nvl");
  EXPECT_EQ(key("NVIDIA H200", 143771), "h200-sxm");
  EXPECT_EQ(key("NVIDIA H200 NVL", 143771), "h200-nvl");
  EXPECT_EQ(key("NVIDIA B200", 183359), "b200");
  EXPECT_EQ(key("NVIDIA GB200", 189471), "gb200");
  EXPECT_EQ(key("NVIDIA A100-SXM4-80GB", 81920), "a100-80gb");
  EXPECT_EQ(key("NVIDIA A100-SXM4-40GB", 40960), "a100-40gb");
  EXPECT_EQ(key("NVIDIA L40S", 46068), "l40s");
  EXPECT_EQ(key("NVIDIA L40", 46068), "l40");
  EXPECT_EQ(key("NVIDIA A100 80GB PCIe", 81920), "a100-80gb-pcie");
  EXPECT_EQ(key("NVIDIA A100-PCIE-40GB", 40960), "a100-40gb-pcie");
  EXPECT_EQ(key("NVIDIA A800-SXM4-80GB", 81920), "a800");
  EXPECT_EQ(key("NVIDIA GH200 480GB", 97871), "gh200");
  EXPECT_EQ(key("NVIDIA GH200 144G HBM3e", 146831), "gh200-144gb");
  EXPECT_EQ(key("Tesla V100-SXM2-32GB", 32768), "(none)");
}

TEST(Diagnose, H100AllCompatible) {
  const auto r = diagnose_fixture("hgx-h100");
  EXPECT_EQ(r.worst(), Severity::ok) << dump(r);
  ASSERT_EQ(r.gpus.size(), 8u);
  EXPECT_EQ(r.gpus[3].catalog_name, "h100-sxm");
  EXPECT_EQ(r.gpus[3].generation, "hopper");
  EXPECT_EQ(r.driver_cuda, "12.2");
  EXPECT_EQ(count(r, Severity::ok, "all 8 GPUs pairwise over NVLink (NV18)"), 1u) << dump(r);
  EXPECT_EQ(count(r, Severity::ok, "FP8 tensor cores (sm_89+); no FP4"), 1u) << dump(r);
  EXPECT_EQ(count(r, Severity::ok, "ships sm_90 kernels"), 1u) << dump(r);
}

TEST(Diagnose, H200TorchNewerThanDriverIsAWarning) {
  const auto r = diagnose_fixture("hgx-h200");
  EXPECT_EQ(r.worst(), Severity::warning) << dump(r);
  EXPECT_EQ(r.gpus[0].catalog_name, "h200-sxm");
  EXPECT_EQ(count(r, Severity::warning, "uses CUDA 12.6, newer than the driver's 12.4"), 1u) << dump(r);
}

// Captured on a real one-GPU H200 machine (the topology carries nvidia-smi's ANSI underline codes).
TEST(Diagnose, CapturedH200IsAllOk) {
  const auto r = diagnose_fixture("h200-captured");
  EXPECT_EQ(r.worst(), Severity::ok) << dump(r);
  ASSERT_EQ(r.gpus.size(), 1u);
  EXPECT_EQ(r.gpus[0].catalog_name, "h200-sxm");
  EXPECT_EQ(r.driver_cuda, "13.0");
  EXPECT_EQ(count(r, Severity::ok, "ships sm_90 kernels"), 1u) << dump(r);
  EXPECT_EQ(r.findings.size(), 7u) << dump(r);
}

TEST(Diagnose, B200WithOldPyTorchIsAnError) {
  const auto r = diagnose_fixture("hgx-b200");
  EXPECT_EQ(r.worst(), Severity::error) << dump(r);
  EXPECT_EQ(r.gpus[0].catalog_name, "b200");
  EXPECT_EQ(count(r, Severity::error, "PyTorch 2.5.1+cu124 predates sm_100 support (first release: 2.7.0)"), 1u)
      << dump(r);
  EXPECT_EQ(count(r, Severity::error, "has no kernels for sm_100"), 1u) << dump(r);
  EXPECT_EQ(count(r, Severity::ok, "FP8 and FP4 tensor cores"), 1u) << dump(r);
  EXPECT_EQ(count(r, Severity::ok, "nvcc not found"), 1u) << dump(r);
}

TEST(Diagnose, GB200NvccAheadOfDriverIsAnError) {
  const auto r = diagnose_fixture("gb200-tray");
  ASSERT_EQ(r.gpus.size(), 4u);
  EXPECT_EQ(r.gpus[0].catalog_name, "gb200");
  EXPECT_EQ(count(r, Severity::error, "nvcc 13.0 uses CUDA 13.0 but driver 570.133.20 supports CUDA 12.8 at most"),
            1u) << dump(r);
  EXPECT_EQ(count(r, Severity::ok, "all 4 GPUs pairwise over NVLink (NV18)"), 1u) << dump(r);
  EXPECT_EQ(count(r, Severity::ok, "ships sm_100 kernels"), 1u) << dump(r);
}

TEST(Diagnose, NoGpuIsNotAnError) {
  for (const char* name : {"no-gpu", "no-devices"}) {
    const auto r = diagnose_fixture(name);
    EXPECT_TRUE(r.gpus.empty());
    EXPECT_EQ(r.worst(), Severity::warning) << name << "\n" << dump(r);
    EXPECT_EQ(r.findings.size(), 1u) << dump(r);
  }
  const auto none = diagnose(Environment{}, catalog());  // nothing installed at all
  EXPECT_EQ(count(none, Severity::warning, "nvidia-smi is not installed"), 1u) << dump(none);
}

TEST(Diagnose, HungDriverAndOldDriverAndMissingTopo) {
  Environment hung;
  hung.smi_query.status = ToolStatus::timed_out;
  EXPECT_EQ(diagnose(hung, catalog()).worst(), Severity::error);

  auto env = load_recorded(kFixtures + "hgx-h100");
  const std::string old = "index, name, uuid, pci.bus_id, driver_version, memory.total [MiB], compute_cap, "
                          "power.limit [W]\n0, NVIDIA H100 80GB HBM3, GPU-a, 00000000:18:00.0, 510.47.03, "
                          "81559 MiB, 9.0, 700.00 W\n1, NVIDIA H100 PCIe, GPU-b, 00000000:2A:00.0, 510.47.03, "
                          "40960 MiB, 9.0, 350.00 W\n";
  env.smi_query.text = old;
  env.smi_topo.status = ToolStatus::missing;
  const auto r = diagnose(env, catalog());
  EXPECT_EQ(count(r, Severity::error, "driver 510.47.03 is older than sm_90's minimum 520.61.05"), 2u) << dump(r);
  EXPECT_EQ(count(r, Severity::warning, "2 different GPU models in one machine"), 1u) << dump(r);
  EXPECT_EQ(count(r, Severity::warning, "(a MIG slice, another SKU?)"), 1u) << dump(r);
  EXPECT_EQ(count(r, Severity::warning, "NVLink not checked"), 1u) << dump(r);
  EXPECT_EQ(count(r, Severity::error, "uses CUDA 12.1 but driver 510.47.03 supports CUDA 11.6 at most"), 1u)
      << dump(r);
}

TEST(Diagnose, PcieTopologyWarns) {
  auto env = load_recorded(kFixtures + "hgx-h100");
  env.smi_topo.text = "\tGPU0\tGPU1\tGPU2\tGPU3\tGPU4\tGPU5\tGPU6\tGPU7\n";
  for (int i = 0; i < 8; ++i) {
    env.smi_topo.text += "GPU" + std::to_string(i);
    for (int j = 0; j < 8; ++j) env.smi_topo.text += i == j ? "\tX" : ((i < 4) == (j < 4) ? "\tNV12" : "\tSYS");
    env.smi_topo.text += "\n";
  }
  const auto r = diagnose(env, catalog());
  EXPECT_EQ(count(r, Severity::warning, "16 GPU pairs without NVLink"), 1u) << dump(r);
}

TEST(Diagnose, GarbledOutputsBecomeFindings) {
  auto env = load_recorded(kFixtures + "hgx-h100");
  env.torch.text = "Traceback (most recent call last):\nModuleNotFoundError: No module named 'torch'\n";
  env.smi_topo.text = "garbage";
  const auto r = diagnose(env, catalog());
  EXPECT_EQ(count(r, Severity::warning, "could not read the PyTorch probe"), 1u) << dump(r);
  EXPECT_EQ(count(r, Severity::warning, "could not read `nvidia-smi topo -m`"), 1u) << dump(r);
  env.smi_query.text = "something else entirely\n1,2\n";
  EXPECT_EQ(diagnose(env, catalog()).worst(), Severity::error);
}

}  // namespace
}  // namespace gpuplan::doctor

namespace gpuplan::doctor {
namespace {

// The torch probe's JSON line: a field of the wrong type is left unset, never an exception other than
// InputError (fuzz finding: {"version": true} threw nlohmann's type_error).
TEST(TorchProbe, MistypedFieldsAreIgnored) {
  const TorchInfo ok = parse_torch_probe(R"({"version": "2.5.1", "cuda": "12.4", "cuda_available": true})");
  EXPECT_EQ(ok.version, "2.5.1");
  EXPECT_TRUE(ok.cuda_available);
  const TorchInfo odd = parse_torch_probe(R"({"version": true, "cuda": 12, "cuda_available": "yes", "arch_list": 3})");
  EXPECT_EQ(odd.version, "");
  EXPECT_FALSE(odd.cuda_available);
  EXPECT_TRUE(odd.arch_list.empty());
  EXPECT_THROW(parse_torch_probe("no json here"), InputError);
}

}  // namespace
}  // namespace gpuplan::doctor
