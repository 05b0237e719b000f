#include "catalog/catalog.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <unistd.h>

#include "core/error.h"

namespace gpuplan {
namespace {

namespace fs = std::filesystem;

// Message of the InputError `f` throws ("" when it throws none).
template <typename F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

// Values of one column of a CSV file (RFC 4180 quoting, fields may span lines).
std::vector<std::string> csv_column(const std::string& path, const std::string& column) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  const std::string text = ss.str();
  std::vector<std::vector<std::string>> rows(1);
  std::string field;
  bool quoted = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        field += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        field += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      rows.back().push_back(field);
      field.clear();
    } else if (c == '\n') {
      rows.back().push_back(field);
      field.clear();
      rows.emplace_back();
    } else if (c != '\r') {
      field += c;
    }
  }
  if (!field.empty() || !rows.back().empty()) rows.back().push_back(field);
  std::vector<std::string> out;
  if (rows.empty()) return out;
  const auto& header = rows.front();
  const auto col = static_cast<size_t>(std::find(header.begin(), header.end(), column) - header.begin());
  if (col == header.size()) return out;
  for (size_t r = 1; r < rows.size(); ++r)
    if (col < rows[r].size()) out.push_back(rows[r][col]);
  return out;
}

// A temporary directory holding the given files, removed at the end of the test.
struct TempDir {
  fs::path path;
  explicit TempDir(const std::map<std::string, std::string>& files) {
    path = fs::temp_directory_path() /
           ("gpuplan_catalog_test_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(path);
    fs::create_directories(path);
    for (const auto& [name, text] : files) std::ofstream(path / name) << text;
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
};

TEST(Catalog, BuiltinLoads) {
  const Catalog c = Catalog::builtin();
  EXPECT_GE(c.accelerators().size(), 27u);
  EXPECT_GE(c.systems().size(), 9u);
  EXPECT_GE(c.networks().size(), 14u);
  EXPECT_NO_THROW(c.check());
}

TEST(Catalog, EveryAcceleratorHasCoreFiguresAndSources) {
  const Catalog c = Catalog::builtin();
  const std::set<std::string> generations = {"ampere", "ada", "hopper", "blackwell", "blackwell_ultra",
                                             "cdna3", "cdna4", "gaudi3", "tpu"};
  for (const auto& a : c.accelerators()) {
    SCOPED_TRACE(a.name);
    EXPECT_GT(a.peak(MathFormat::bf16), 0);
    EXPECT_GT(a.memory_bytes, 0);
    EXPECT_GT(a.memory_bandwidth_bytes_per_s, 0);
    EXPECT_GT(a.scaleup_bandwidth_bytes_per_s, 0);
    EXPECT_GE(a.max_scaleup_domain, 1);
    EXPECT_TRUE(generations.count(a.generation)) << a.generation;
    EXPECT_TRUE(a.sources.count("*"));
    EXPECT_EQ(a.origin, "built-in");
    // Dense rates only: a lower precision never runs slower than BF16 on these chips.
    if (a.peak(MathFormat::fp8) > 0) {
      EXPECT_GE(a.peak(MathFormat::fp8), a.peak(MathFormat::bf16));
    }
  }
  for (const auto& s : c.systems()) {
    SCOPED_TRACE(s.name);
    EXPECT_TRUE(s.sources.count("*"));
    EXPECT_GT(s.power_w, 0);
    EXPECT_LE(s.nvlink_domain_gpus, s.gpus_per_unit());
  }
  for (const auto& n : c.networks()) EXPECT_TRUE(n.sources.count("*")) << n.name;
}

TEST(Catalog, RequiredNamesExist) {
  const Catalog c = Catalog::builtin();
  for (const char* n : {"a100-40gb", "a100-80gb", "a10", "l4", "l40s", "rtx-6000-ada", "rtx-pro-6000-server",
                        "rtx-pro-6000-ws", "h100-sxm", "h100-pcie", "h100-nvl", "h200-sxm", "h200-nvl",
                        "h800-sxm", "h20", "b200", "b300", "gb200", "gb300", "mi300x", "mi325x", "mi355x",
                        "gaudi3", "tpu-v5e", "tpu-v5p", "tpu-v6e", "tpu-7x", "a100-80gb-pcie", "a100-40gb-pcie",
                        "a800", "l40", "mi350x", "gh200-144gb"}) {
    const Accelerator* a = c.find_accelerator(n);
    ASSERT_NE(a, nullptr) << n;
    EXPECT_EQ(a->name, n);
  }
  for (const char* n : {"hgx-a100", "hgx-h100", "hgx-h200", "hgx-b200", "hgx-b300", "gb200-nvl72", "gb300-nvl72",
                        "mi300x-platform", "mi355x-platform", "hgx-a800", "mi350x-platform"})
    EXPECT_NE(c.find_system(n), nullptr) << n;
  for (const char* n : {"nvlink3", "nvlink4", "nvlink5", "ib-hdr", "ib-ndr", "ib-xdr", "eth-400g", "eth-800g",
                        "pcie4", "pcie5", "pcie6", "infinity-fabric-mi300", "infinity-fabric-mi355", "nvlink-c2c"})
    EXPECT_NE(c.find_network(n), nullptr) << n;
}

TEST(Catalog, SpotValues) {
  const Catalog c = Catalog::builtin();
  const auto& h100 = c.accelerator("h100-sxm");
  EXPECT_NEAR(h100.peak(MathFormat::bf16), 989.5e12, 1e12);
  EXPECT_NEAR(h100.peak(MathFormat::fp8), 1979e12, 1e12);
  EXPECT_DOUBLE_EQ(h100.memory_bytes, 81559.0 * 1048576);  // nvidia-smi's total (the "80 GB" part)
  EXPECT_EQ(h100.memory_basis, "driver");
  EXPECT_DOUBLE_EQ(h100.memory_bandwidth_bytes_per_s, 3.35e12);
  EXPECT_DOUBLE_EQ(h100.scaleup_bandwidth_bytes_per_s, 450e9);  // 900 GB/s bidirectional
  EXPECT_EQ(h100.compute_capability, 90);
  EXPECT_EQ(h100.peak(MathFormat::fp4), 0);

  const auto& h200 = c.accelerator("H200");
  EXPECT_DOUBLE_EQ(h200.memory_bytes, 143771.0 * 1048576);  // nvidia-smi total of the "141 GB" part
  EXPECT_EQ(h200.memory_basis, "driver");
  EXPECT_DOUBLE_EQ(h200.memory_bandwidth_bytes_per_s, 4.8e12);

  const auto& b200 = c.accelerator("b200");
  EXPECT_DOUBLE_EQ(b200.memory_bytes, 183359.0 * 1048576);  // nvidia-smi on HGX B200 ("180 GB")
  EXPECT_DOUBLE_EQ(b200.peak(MathFormat::bf16), 2250e12);
  EXPECT_DOUBLE_EQ(b200.peak(MathFormat::fp4), 9000e12);
  EXPECT_DOUBLE_EQ(b200.scaleup_bandwidth_bytes_per_s, 900e9);

  const auto& gb300 = c.accelerator("GB300");
  EXPECT_DOUBLE_EQ(gb300.memory_bytes, 284208.0 * 1048576);  // nvidia-smi on GB300 (datasheet 279 GB, blog 288 max)
  EXPECT_EQ(gb300.memory_basis, "driver");
  EXPECT_DOUBLE_EQ(gb300.peak(MathFormat::fp4), 15000e12);
  EXPECT_EQ(gb300.generation, "blackwell_ultra");

  EXPECT_DOUBLE_EQ(c.accelerator("a100-80gb").peak(MathFormat::bf16), 312e12);
  EXPECT_DOUBLE_EQ(c.accelerator("mi300x").memory_bytes, 206141652992.0);  // rocm-smi bytes = amd-smi 196592 MiB
  EXPECT_DOUBLE_EQ(c.accelerator("b300").memory_bytes, 275040.0 * 1048576);  // nvidia-smi, B300 SXM6 AC
  EXPECT_DOUBLE_EQ(c.accelerator("h800").scaleup_bandwidth_bytes_per_s, 200e9);

  const auto& nvl72 = c.system("GB200 NVL72");
  EXPECT_EQ(nvl72.gpus_per_unit(), 72);
  EXPECT_EQ(nvl72.nvlink_domain_gpus, 72);
  EXPECT_EQ(nvl72.cooling, Cooling::liquid);
  // Switched NVLink unless the board wires its GPUs to one another directly.
  EXPECT_EQ(nvl72.scaleup_topology, ScaleupTopology::switched);
  EXPECT_EQ(c.system("hgx-h100").scaleup_topology, ScaleupTopology::switched);
  EXPECT_EQ(c.system("hgx-h100-4gpu").scaleup_topology, ScaleupTopology::direct_mesh);
  EXPECT_EQ(c.system("hgx-h100-4gpu").gpus_per_node, 4);
  EXPECT_DOUBLE_EQ(c.system("DGX H100").scaleout_bandwidth_bytes_per_s_per_gpu, 50e9);
  EXPECT_DOUBLE_EQ(c.system("hgx-b300").scaleout_bandwidth_bytes_per_s_per_gpu, 100e9);

  EXPECT_DOUBLE_EQ(c.network("nvlink5").bandwidth_bytes_per_s, 900e9);
  EXPECT_EQ(c.network("ib-ndr").tier, NetworkTier::scale_out);
  EXPECT_TRUE(c.network("ib-ndr").latency_is_assumption);
}

TEST(Catalog, PeakRatesReadLikeAMapOfFormats) {
  PeakRates r;
  EXPECT_TRUE(r.empty());
  r[MathFormat::fp8] = 2e15;
  r[MathFormat::bf16] = 1e15;
  EXPECT_EQ(r.size(), 2u);
  EXPECT_EQ(r.count(MathFormat::bf16), 1u);
  EXPECT_EQ(r.count(MathFormat::fp4), 0u);
  EXPECT_DOUBLE_EQ(r.rate(MathFormat::fp8), 2e15);
  EXPECT_EQ(r.rate(MathFormat::fp4), 0);  // absent: 0, as Accelerator::peak reports a missing format

  // Iteration visits the present formats in enum order, as a std::map keyed by the format would.
  std::vector<MathFormat> order;
  for (const auto& [f, v] : r) order.push_back(f);
  EXPECT_EQ(order, (std::vector<MathFormat>{MathFormat::bf16, MathFormat::fp8}));

  PeakRates scaled;
  scaled = r;
  for (auto& [f, v] : scaled) v *= 0.5;
  EXPECT_DOUBLE_EQ(scaled.rate(MathFormat::bf16), 0.5e15);
  EXPECT_DOUBLE_EQ(r.rate(MathFormat::bf16), 1e15);
  EXPECT_FALSE(scaled == r);
  EXPECT_EQ(scaled.count(MathFormat::fp4), 0u);

  // The built-in catalog gives the same figures through Accelerator::peak and the table.
  const Catalog c = Catalog::builtin();
  for (const Accelerator& a : c.accelerators()) {
    std::size_t present = 0;
    for (MathFormat f : kAllMathFormats) {
      present += a.peak_flops.count(f);
      EXPECT_EQ(a.peak(f), a.peak_flops.count(f) ? a.peak_flops.rate(f) : 0.0) << a.name;
    }
    EXPECT_EQ(present, a.peak_flops.size()) << a.name;
  }
}

TEST(Catalog, LookupIgnoresCaseAndPunctuation) {
  const Catalog c = Catalog::builtin();
  EXPECT_EQ(c.accelerator("H100 SXM5").name, "h100-sxm");
  EXPECT_EQ(c.accelerator("h100_sxm").name, "h100-sxm");
  EXPECT_EQ(c.accelerator("A100 (Ampere)").name, "a100-80gb");
  EXPECT_EQ(c.accelerator("AMD Instinct MI300X").name, "mi300x");
  const std::string err = error_of([&] { c.accelerator("h100-smx", "--gpu"); });
  EXPECT_NE(err.find("--gpu"), std::string::npos) << err;
  EXPECT_NE(err.find("did you mean 'h100-sxm'"), std::string::npos) << err;
  EXPECT_NE(error_of([&] { c.system("hgx-h1OO"); }).find("did you mean 'hgx-h100'"), std::string::npos);
  EXPECT_EQ(c.network("NVLink-5").name, "nvlink5");
}

// Every GPU name used by the benchmark files resolves, to the entry of the same family and memory.
TEST(Catalog, BenchmarkGpuNamesResolve) {
  const Catalog c = Catalog::builtin();
  const std::string dir = std::string(GPUPLAN_SHARED_DATA_DIR) + "/benchmarks/";
  // Not a data-center accelerator; no figures in hardware.csv. Rows with it are skipped by validate.
  const std::set<std::string> not_in_catalog = {"Jetson AGX Orin 64G"};
  std::set<std::string> names;
  for (const char* f : {"training.csv", "inference.csv", "mlperf-inference-v4.1-v5.0.csv",
                        "aiconfigurator-silicon-sample-ttft-tpot.csv"}) {
    if (!fs::exists(dir + f)) GTEST_SKIP() << "shared data not found: " << dir + f;
    for (const auto& g : csv_column(dir + f, "gpu")) names.insert(g);
  }
  EXPECT_GE(names.size(), 10u);
  for (const auto& n : names) {
    if (n.empty() || not_in_catalog.count(n)) continue;
    EXPECT_NE(c.find_accelerator(n), nullptr) << "benchmark gpu name does not resolve: " << n;
  }
  // The names the data README calls out, and the family/memory mapping.
  const std::map<std::string, std::string> expected = {
      {"H100-SXM-80GB", "h100-sxm"}, {"H100", "h100-sxm"},       {"H100 SXM5", "h100-sxm"},
      {"A100-SXM-80GB", "a100-80gb"}, {"A100 (Ampere)", "a100-80gb"}, {"A100-SXM-40GB", "a100-40gb"},
      {"H200-SXM", "h200-sxm"},      {"H200", "h200-sxm"},       {"B200", "b200"},
      {"GB200", "gb200"},            {"GB300", "gb300"},         {"B300", "b300"},
      {"MI325X", "mi325x"},          {"MI300X", "mi300x"},       {"H800", "h800-sxm"},
      {"H20", "h20"},                {"H100-NVL", "h100-nvl"},   {"H100-PCIe", "h100-pcie"},
      {"GH200", "gh200"},            {"L40S", "l40s"},           {"A100", "a100-80gb"},
      // A leading vendor word, as tables and nvidia-smi write them.
      {"NVIDIA H200-SXM", "h200-sxm"}, {"nvidia B200", "b200"},  {"AMD Instinct MI300X", "mi300x"},
      {"AMD MI355X", "mi355x"},      {"Instinct MI325X", "mi325x"},
      // A memory size no alias spells: the part of that capacity (decimal GB, GiB or the rounded figure).
      {"B200-SXM-180GB", "b200"}, {"NVIDIA B200 SXM 192GB", "b200"}, {"H100 SXM5 80 GB", "h100-sxm"},
      {"GB300_288GB", "gb300"}, {"MI355X 288 GiB", "mi355x"}, {"AMD Instinct MI300X 192G", "mi300x"},
      // The names nvidia-smi and amd-smi print.
      {"NVIDIA H100 80GB HBM3", "h100-sxm"}, {"NVIDIA B300 SXM6 AC", "b300"}, {"NVIDIA GH200 480GB", "gh200"},
      {"AMD Instinct MI300X OAM", "mi300x"}, {"NVIDIA A100-SXM4-80GB", "a100-80gb"}};
  for (const auto& [typed, key] : expected) {
    const Accelerator* a = c.find_accelerator(typed);
    ASSERT_NE(a, nullptr) << typed;
    EXPECT_EQ(a->name, key) << typed;
  }
  EXPECT_EQ(c.find_accelerator("NVIDIA"), nullptr);
  EXPECT_EQ(c.find_accelerator("NVIDIA NoSuchGPU"), nullptr);
  // A memory size no alias spells never resolves to a part of another capacity.
  EXPECT_EQ(c.find_accelerator("B200-SXM-80GB"), nullptr);
  EXPECT_EQ(c.find_accelerator("A100 SXM 48GB"), nullptr);  // "A100 SXM" is the 80 GB part's alias
  EXPECT_EQ(c.find_accelerator("H100 141GB"), nullptr);
  ASSERT_NE(c.find_system("NVIDIA DGX H100"), nullptr);
  EXPECT_EQ(c.find_system("NVIDIA DGX H100")->name, c.find_system("DGX H100")->name);
}

// The PCIe, export and memory variants validation tables name resolve to their own entries, and the
// names that resolved before keep their entries.
TEST(Catalog, VariantNamesResolveToTheirOwnEntries) {
  const Catalog c = Catalog::builtin();
  const std::map<std::string, std::string> expected = {
      {"A100-PCIe-80GB", "a100-80gb-pcie"},       {"A100 80GB PCIe", "a100-80gb-pcie"},
      {"NVIDIA A100 80GB PCIe", "a100-80gb-pcie"}, {"A100 PCIe", "a100-80gb-pcie"},
      {"A100-PCIe-40GB", "a100-40gb-pcie"},       {"NVIDIA A100-PCIE-40GB", "a100-40gb-pcie"},
      {"A800", "a800"},                           {"NVIDIA A800-SXM4-80GB", "a800"},
      {"L40", "l40"},                             {"NVIDIA L40", "l40"},
      {"MI350X", "mi350x"},                       {"AMD Instinct MI350X", "mi350x"},
      {"GH200 144GB", "gh200-144gb"},             {"NVIDIA GH200 144G HBM3e", "gh200-144gb"},
      {"RTX PRO 6000 Blackwell", "rtx-pro-6000-server"}, {"RTX PRO 6000", "rtx-pro-6000-server"},
      {"RTX PRO 6000 Blackwell Workstation", "rtx-pro-6000-ws"},
      {"A100", "a100-80gb"},                      {"A100-SXM-80GB", "a100-80gb"},
      {"L40S", "l40s"},                           {"GH200", "gh200"},
      {"NVIDIA GH200 480GB", "gh200"},            {"MI355X", "mi355x"}};
  for (const auto& [typed, key] : expected) {
    const Accelerator* a = c.find_accelerator(typed);
    ASSERT_NE(a, nullptr) << typed;
    EXPECT_EQ(a->name, key) << typed;
  }
  // A capacity the variant does not have never resolves to it.
  EXPECT_EQ(c.find_accelerator("A100-PCIe-48GB"), nullptr);
  EXPECT_EQ(c.find_accelerator("L40 24GB"), nullptr);
  EXPECT_EQ(c.system("mi350x-platform").accelerator, "mi350x");
  EXPECT_EQ(c.system("DGX A800").accelerator, "a800");
  // The A800 is the A100 80GB SXM4 with its NVLink cut to 400 GB/s bidirectional.
  EXPECT_DOUBLE_EQ(c.accelerator("a800").scaleup_bandwidth_bytes_per_s, 200e9);
  EXPECT_DOUBLE_EQ(c.accelerator("a800").peak(MathFormat::bf16), c.accelerator("a100-80gb").peak(MathFormat::bf16));
  EXPECT_DOUBLE_EQ(c.accelerator("gh200-144gb").memory_bytes, 146831.0 * 1048576);
}

// One convention for capacity: memory_mib (the driver's binary total) or memory_gb (datasheet, decimal),
// exactly one of them.
TEST(Catalog, MemoryIsGivenOnceInOneOfTwoMarkedUnits) {
  auto doc = [](const std::string& memory) {
    return "accelerators:\n  - name: x1\n    vendor: V\n    generation: hopper\n    peak_tflops: {bf16: 100}\n" +
           memory + "    memory_bandwidth_tb_per_s: 1\n    scaleup_bandwidth_gb_per_s: 10\n";
  };
  Catalog c = Catalog::builtin();
  c.merge_yaml(doc("    memory_mib: 81559\n"), "t.yaml");
  EXPECT_DOUBLE_EQ(c.accelerator("x1").memory_bytes, 81559.0 * 1048576);
  EXPECT_EQ(c.accelerator("x1").memory_basis, "driver");
  c.merge_yaml(doc("    memory_gb: 80\n"), "t.yaml");
  EXPECT_DOUBLE_EQ(c.accelerator("x1").memory_bytes, 80e9);
  EXPECT_EQ(c.accelerator("x1").memory_basis, "datasheet");
  const std::string both = error_of([&] { c.merge_yaml(doc("    memory_mib: 81559\n    memory_gb: 80\n"), "t.yaml"); });
  EXPECT_NE(both.find("memory_mib"), std::string::npos) << both;
  EXPECT_NE(both.find("not both"), std::string::npos) << both;
  const std::string none = error_of([&] { c.merge_yaml(doc(""), "t.yaml"); });
  EXPECT_NE(none.find("memory_gb"), std::string::npos) << none;
}

TEST(Catalog, OverlayReplacesEntryAndRecordsOrigin) {
  TempDir dir(std::map<std::string, std::string>{{"mine.yaml", R"(
accelerators:
  - name: h100-sxm
    vendor: NVIDIA
    generation: hopper
    peak_tflops: {bf16: 900}
    memory_gb: 96
    memory_bandwidth_tb_per_s: 3.9
    scaleup_bandwidth_gb_per_s: 450
    sources: {"*": my lab}
  - name: my-chip
    aliases: [My Chip X]
    vendor: Acme
    generation: hopper
    peak_tflops: {bf16: 100, fp8: 200}
    memory_gb: 32
    memory_bandwidth_tb_per_s: 1
    scaleup_bandwidth_gb_per_s: 50
networks:
  - name: my-net
    tier: scale_out
    bandwidth_gb_per_s: 25
    latency_us: 3
systems:
  - name: my-box
    accelerator: My Chip X
    gpus_per_node: 4
    nvlink_domain_gpus: 4
    scaleup_network: pcie5
    scaleout_network: my-net
    scaleout_gb_per_s_per_gpu: 25
    power_kw: 3
    cooling: air
)"}});
  const Catalog c = Catalog::load({dir.path.string()});
  const size_t builtin_count = Catalog::builtin().accelerators().size();
  EXPECT_EQ(c.accelerators().size(), builtin_count + 1);
  const auto& h = c.accelerator("h100-sxm");
  EXPECT_DOUBLE_EQ(h.memory_bytes, 96e9);
  EXPECT_EQ(h.origin, (dir.path / "mine.yaml").string());
  EXPECT_EQ(c.accelerator("my chip x").name, "my-chip");
  EXPECT_EQ(c.system("my-box").accelerator, "My Chip X");
  EXPECT_EQ(c.accelerator("b200").origin, "built-in");
  // The built-in catalog itself is untouched.
  EXPECT_DOUBLE_EQ(Catalog::builtin().accelerator("h100-sxm").memory_bytes, 81559.0 * 1048576);
}

TEST(Catalog, MissingOverlayDirNamesOption) {
  const std::string err = error_of([] { Catalog::load({"/no/such/dir/gpuplan"}); });
  EXPECT_NE(err.find("--catalog"), std::string::npos) << err;
  EXPECT_NE(err.find("/no/such/dir/gpuplan"), std::string::npos) << err;
}

TEST(Catalog, UnknownKeyNamesPathAndSuggests) {
  Catalog c = Catalog::builtin();
  const std::string err = error_of([&] {
    c.merge_yaml(R"(
accelerators:
  - name: x
    vendor: V
    generation: hopper
    peak_tflops: {bf16: 1}
    memory_gb: 1
    memory_bandwith_tb_per_s: 1
    scaleup_bandwidth_gb_per_s: 1
)", "user.yaml");
  });
  // The required key is missing (its misspelling is reported once the required ones are read).
  EXPECT_NE(err.find("user.yaml: accelerators[0].memory_bandwidth_tb_per_s"), std::string::npos) << err;

  const std::string err2 = error_of([&] {
    c.merge_yaml(R"(
networks:
  - name: n
    tier: scale_out
    bandwidth_gb_per_s: 1
    latency_us: 1
    latncy_is_assumption: false
)", "user.yaml");
  });
  EXPECT_NE(err2.find("user.yaml: networks[0].latncy_is_assumption"), std::string::npos) << err2;
  EXPECT_NE(err2.find("did you mean 'latency_is_assumption'"), std::string::npos) << err2;

  const std::string err3 = error_of([&] { c.merge_yaml("acelerators: []\n", "user.yaml"); });
  EXPECT_NE(err3.find("user.yaml.acelerators"), std::string::npos) << err3;
  EXPECT_NE(err3.find("did you mean 'accelerators'"), std::string::npos) << err3;

  const std::string err4 = error_of([&] {
    c.merge_yaml(R"(
accelerators:
  - name: x
    vendor: V
    generation: hopper
    peak_tflops: {bf16: 1, fp9: 2}
    memory_gb: 1
    memory_bandwidth_tb_per_s: 1
    scaleup_bandwidth_gb_per_s: 1
)", "user.yaml");
  });
  EXPECT_NE(err4.find("accelerators[0].peak_tflops.fp9"), std::string::npos) << err4;
}

TEST(Catalog, MalformedYamlIsInputError) {
  Catalog c;
  const std::string err = error_of([&] { c.merge_yaml("accelerators:\n  - name: [unclosed\n", "bad.yaml"); });
  EXPECT_NE(err.find("bad.yaml"), std::string::npos) << err;
  EXPECT_NE(err.find("malformed YAML"), std::string::npos) << err;
  EXPECT_NE(error_of([&] { c.merge_yaml("accelerators: 3\n", "bad.yaml"); }).find("expected a list"),
            std::string::npos);
}

TEST(Catalog, OutOfRangeFiguresRejected) {
  const std::string base = R"(
accelerators:
  - name: x
    vendor: V
    generation: hopper
    peak_tflops: {bf16: BF}
    memory_gb: MEM
    memory_bandwidth_tb_per_s: 1
    scaleup_bandwidth_gb_per_s: 1
)";
  auto doc = [&](const std::string& bf, const std::string& mem) {
    std::string s = base;
    s.replace(s.find("BF"), 2, bf);
    s.replace(s.find("MEM"), 3, mem);
    return s;
  };
  Catalog c;
  std::string err = error_of([&] { c.merge_yaml(doc("1", "-80"), "neg.yaml"); });
  EXPECT_NE(err.find("neg.yaml: accelerators[0].memory_gb"), std::string::npos) << err;
  EXPECT_NE(error_of([&] { c.merge_yaml(doc("1", "0"), "zero.yaml"); }).find("greater than 0"), std::string::npos);
  EXPECT_NE(error_of([&] { c.merge_yaml(doc("-5", "80"), "f.yaml"); }).find("peak_tflops.bf16"), std::string::npos);
  EXPECT_NE(error_of([&] { c.merge_yaml(doc("lots", "80"), "f.yaml"); }).find("expected a number"),
            std::string::npos);
  EXPECT_EQ(error_of([&] { c.merge_yaml(doc("1", "80"), "ok.yaml"); }), "");
  // A failed merge leaves nothing behind; the good one added exactly one entry.
  EXPECT_EQ(c.accelerators().size(), 1u);
}

TEST(Catalog, RequiredFieldsAndEnums) {
  Catalog c;
  EXPECT_NE(error_of([&] { c.merge_yaml("accelerators:\n  - name: x\n    vendor: V\n", "f.yaml"); }).find("is required"),
            std::string::npos);
  const std::string sys = R"(
systems:
  - name: s
    accelerator: h100-sxm
    gpus_per_node: 8
    nvlink_domain_gpus: 8
    scaleup_network: nvlink4
    scaleout_network: ib-ndr
    scaleout_gb_per_s_per_gpu: 50
    power_kw: 10
    cooling: water
)";
  EXPECT_NE(error_of([&] { c.merge_yaml(sys, "f.yaml"); }).find("must be air or liquid"), std::string::npos);
  std::string mesh = sys;
  mesh.replace(mesh.find("cooling: water"), 14, "cooling: air\n    scaleup_topology: ring");
  const std::string mesh_error = error_of([&] { c.merge_yaml(mesh, "f.yaml"); });
  EXPECT_NE(mesh_error.find("scaleup_topology"), std::string::npos) << mesh_error;
  EXPECT_NE(mesh_error.find("switched or direct_mesh"), std::string::npos) << mesh_error;
  EXPECT_NE(error_of([&] { c.merge_yaml("networks:\n  - name: n\n    tier: scale_sideways\n", "f.yaml"); })
                .find("scale_up or scale_out"),
            std::string::npos);
  const std::string dup = "networks:\n  - {name: n, tier: scale_up, bandwidth_gb_per_s: 1, latency_us: 1}\n"
                          "  - {name: N, tier: scale_up, bandwidth_gb_per_s: 1, latency_us: 1}\n";
  EXPECT_NE(error_of([&] { c.merge_yaml(dup, "f.yaml"); }).find("defined twice"), std::string::npos);
  EXPECT_NE(error_of([&] {
              c.merge_yaml("networks:\n  - {name: n, tier: scale_up, bandwidth_gb_per_s: 1, latency_us: 1, "
                           "sources: {bandwith_gb_per_s: x}}\n",
                           "f.yaml");
            }).find("did you mean 'bandwidth_gb_per_s'"),
            std::string::npos);
}

TEST(Catalog, SystemReferencesChecked) {
  Catalog c = Catalog::builtin();
  c.merge_yaml(R"(
systems:
  - name: bad-box
    accelerator: h100-smx
    gpus_per_node: 8
    nvlink_domain_gpus: 8
    scaleup_network: nvlink4
    scaleout_network: ib-ndr
    scaleout_gb_per_s_per_gpu: 50
    power_kw: 10
    cooling: air
)", "u.yaml");
  std::string err = error_of([&] { c.check(); });
  EXPECT_NE(err.find("bad-box"), std::string::npos) << err;
  EXPECT_NE(err.find("accelerator"), std::string::npos) << err;
  EXPECT_NE(err.find("did you mean 'h100-sxm'"), std::string::npos) << err;

  Catalog d = Catalog::builtin();
  d.merge_yaml(R"(
systems:
  - name: bad-net
    accelerator: h100-sxm
    gpus_per_node: 8
    nvlink_domain_gpus: 8
    scaleup_network: ib-ndr
    scaleout_network: ib-ndr
    scaleout_gb_per_s_per_gpu: 50
    power_kw: 10
    cooling: air
)", "u.yaml");
  EXPECT_NE(error_of([&] { d.check(); }).find("scale-out network"), std::string::npos);

  Catalog e = Catalog::builtin();
  e.merge_yaml("networks:\n  - {name: fast, aliases: [NDR], tier: scale_out, bandwidth_gb_per_s: 1, latency_us: 1}\n",
               "u.yaml");
  EXPECT_NE(error_of([&] { e.check(); }).find("also names network 'ib-ndr'"), std::string::npos);
}

TEST(Catalog, EfficiencyFallsBack) {
  Catalog c;
  // No efficiency entries at all: a default-constructed set.
  EXPECT_DOUBLE_EQ(c.efficiency("hopper").gemm_max, Efficiency{}.gemm_max);
  c.merge_yaml("efficiencies:\n  - {generation: default, gemm_max: 0.5}\n  - {generation: hopper, gemm_max: 0.7}\n",
               "e.yaml");
  EXPECT_DOUBLE_EQ(c.efficiency("hopper").gemm_max, 0.7);
  EXPECT_DOUBLE_EQ(c.efficiency("ampere").gemm_max, 0.5);
  Efficiency e;
  e.generation = "ampere";
  e.gemm_max = 0.6;
  c.set_efficiency(e);
  EXPECT_DOUBLE_EQ(c.efficiency("ampere").gemm_max, 0.6);
  EXPECT_EQ(c.efficiencies().size(), 3u);
  // Every built-in generation gets some efficiency entry (or the static default).
  const Catalog b = Catalog::builtin();
  for (const auto& a : b.accelerators()) EXPECT_GT(b.efficiency(a.generation).gemm_max, 0) << a.name;
}

TEST(Catalog, EmptyDocumentAddsNothing) {
  Catalog c;
  c.merge_yaml("", "empty.yaml");
  c.merge_yaml("# only a comment\n", "empty.yaml");
  EXPECT_TRUE(c.accelerators().empty());
}

}  // namespace
}  // namespace gpuplan

namespace gpuplan {
namespace {

// The host side of a node, sourced: DRAM per node (the 8-GPU server, or the NVL72 compute tray of two
// Grace CPUs) and the bandwidth the node's GPUs share to it.
TEST(Catalog, SystemsCarryTheirHostSide) {
  const Catalog c = Catalog::builtin();
  EXPECT_DOUBLE_EQ(c.system("hgx-h100").host_memory_bytes, 2e12);  // DGX H100: 2 TB
  EXPECT_DOUBLE_EQ(c.system("hgx-h100").host_memory_bytes_per_gpu(), 250e9);
  EXPECT_DOUBLE_EQ(c.system("gb200-nvl72").host_memory_bytes, 960e9);  // 2 Grace x 480 GB per tray
  EXPECT_DOUBLE_EQ(c.system("gb200-nvl72").host_memory_bytes_per_gpu(), 240e9);
  EXPECT_DOUBLE_EQ(c.system("gb300-nvl72").host_memory_bytes_per_gpu(), 240e9);
  for (const System& s : c.systems()) {
    EXPECT_GT(s.host_memory_bytes, 0) << s.name;
    EXPECT_GT(s.host_memory_bandwidth_bytes_per_s, 0) << s.name;
    EXPECT_TRUE(s.sources.count("host_memory_gb")) << s.name;
    EXPECT_TRUE(s.sources.count("host_memory_bandwidth_gb_per_s")) << s.name;
  }
}

TEST(Catalog, H800AndH20SystemsExist) {
  const Catalog c = Catalog::builtin();
  const System& h800 = c.system("hgx-h800");
  EXPECT_EQ(h800.accelerator, "h800-sxm");
  EXPECT_EQ(h800.gpus_per_unit(), 8);
  EXPECT_EQ(c.system("DGX H800").name, "hgx-h800");
  const System& h20 = c.system("hgx-h20");
  EXPECT_EQ(h20.accelerator, "h20");
  EXPECT_EQ(h20.nvlink_domain_gpus, 8);
  EXPECT_GT(c.accelerator("h800-sxm").host_link_bytes_per_s, 0);
}

TEST(Catalog, UnknownSystemNameListsTheSystems) {
  const Catalog c = Catalog::builtin();
  try {
    c.system("hgx-h900", "--system");
    FAIL() << "expected an error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("hgx-h100"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace gpuplan
