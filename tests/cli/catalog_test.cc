#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <unistd.h>

#include "run_cli.h"

namespace {

namespace fs = std::filesystem;


TEST(CatalogCli, ListAllTables) {
  auto r = run_gpuplan("catalog list");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(has(r.out, "Accelerators")) << r.out;
  EXPECT_TRUE(has(r.out, "Systems"));
  EXPECT_TRUE(has(r.out, "Networks"));
  EXPECT_TRUE(has(r.out, "h100-sxm"));
  EXPECT_TRUE(has(r.out, "989.5"));  // H100 dense BF16 TFLOP/s
  EXPECT_TRUE(has(r.out, "gb200-nvl72"));
  EXPECT_TRUE(has(r.out, "ib-ndr"));
}

TEST(CatalogCli, ListOneKind) {
  auto r = run_gpuplan("catalog list networks");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(has(r.out, "nvlink5"));
  EXPECT_FALSE(has(r.out, "h100-sxm"));
  auto bad = run_gpuplan("catalog list acelerators");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_TRUE(has(bad.err, "did you mean 'accelerators'")) << bad.err;
}

TEST(CatalogCli, ListJson) {
  auto r = run_gpuplan("catalog list accelerators --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = r.json();
  EXPECT_EQ(j["schema"], "gpuplan.catalog/v1");
  ASSERT_TRUE(j["accelerators"].is_array());
  EXPECT_GE(j["accelerators"].size(), 27u);
  EXPECT_FALSE(j.contains("systems"));
  bool found = false;
  for (const auto& a : j["accelerators"]) {
    if (a["name"] == "h200-sxm") {
      found = true;
      EXPECT_DOUBLE_EQ(a["memory_bytes"].get<double>(), 143771.0 * 1048576);
      EXPECT_DOUBLE_EQ(a["peak_flops_per_s"]["bf16"].get<double>(), 989.5e12);
      EXPECT_EQ(a["origin"], "built-in");
    }
  }
  EXPECT_TRUE(found);
  auto all = run_gpuplan("catalog --json list").json();
  EXPECT_TRUE(all["systems"].is_array());
  EXPECT_TRUE(all["networks"].is_array());
}

TEST(CatalogCli, ShowAcceleratorText) {
  auto r = run_gpuplan("catalog show \"H100 SXM5\"");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(has(r.out, "accelerator h100-sxm")) << r.out;
  EXPECT_TRUE(has(r.out, "origin: built-in"));
  EXPECT_TRUE(has(r.out, "989.5 TFLOP/s"));
  EXPECT_TRUE(has(r.out, "81559 MiB (79.6 GiB = 85.5 GB)")) << r.out;  // the driver's total, both units
  EXPECT_TRUE(has(r.out, "3.35 TB/s"));
  EXPECT_TRUE(has(r.out, "450 GB/s per direction"));
  EXPECT_TRUE(has(r.out, "h100-datasheet"));  // the source is printed
}

TEST(CatalogCli, ShowSystemAndNetwork) {
  auto s = run_gpuplan("catalog show \"DGX H100\"");
  ASSERT_EQ(s.exit_code, 0) << s.err;
  EXPECT_TRUE(has(s.out, "system hgx-h100")) << s.out;
  EXPECT_TRUE(has(s.out, "10.2 kW"));
  auto c = run_gpuplan("catalog show gb200-nvl72");
  ASSERT_EQ(c.exit_code, 0) << c.err;
  EXPECT_TRUE(has(c.out, "claims"));
  EXPECT_TRUE(has(c.out, "72 (18 nodes x 4 GPUs)")) << c.out;
  auto n = run_gpuplan("catalog show ib-ndr");
  ASSERT_EQ(n.exit_code, 0) << n.err;
  EXPECT_TRUE(has(n.out, "50 GB/s"));
  EXPECT_TRUE(has(n.out, "assumption"));
}

TEST(CatalogCli, ShowJson) {
  auto r = run_gpuplan("catalog show gb300 --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = r.json();
  EXPECT_EQ(j["schema"], "gpuplan.catalog/v1");
  EXPECT_EQ(j["kind"], "accelerator");
  EXPECT_EQ(j["entry"]["name"], "gb300");
  EXPECT_DOUBLE_EQ(j["entry"]["memory_bytes"].get<double>(), 284208.0 * 1048576);  // driver-reported MiB
  EXPECT_TRUE(j["entry"]["sources"].contains("*"));
  auto s = run_gpuplan("catalog show hgx-b200 --json").json();
  EXPECT_EQ(s["kind"], "system");
  EXPECT_EQ(s["entry"]["accelerator"], "b200");
}

TEST(CatalogCli, BadNameExits2WithSuggestion) {
  auto r = run_gpuplan("catalog show h100-smx");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(has(r.err, "did you mean 'h100-sxm'")) << r.err;
  auto missing = run_gpuplan("catalog show");
  EXPECT_EQ(missing.exit_code, 2);
  auto sub = run_gpuplan("catalog shwo h100");
  EXPECT_EQ(sub.exit_code, 2);
  EXPECT_TRUE(has(sub.err, "did you mean 'show'")) << sub.err;
}

TEST(CatalogCli, Help) {
  auto r = run_gpuplan("catalog --help");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_TRUE(has(r.out, "list"));
  EXPECT_TRUE(has(r.out, "show"));
  EXPECT_TRUE(has(r.out, "--catalog"));
}

TEST(CatalogCli, OverlayDirectory) {
  const fs::path dir = fs::temp_directory_path() / ("gpuplan_cli_catalog_overlay_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::ofstream(dir / "lab.yaml") << R"(
accelerators:
  - name: h100-sxm
    display_name: H100 SXM (lab-measured)
    vendor: NVIDIA
    generation: hopper
    peak_tflops: {bf16: 900}
    memory_gb: 80
    memory_bandwidth_tb_per_s: 3.0
    scaleup_bandwidth_gb_per_s: 450
    sources: {"*": our lab}
  - name: lab-chip
    vendor: Lab
    generation: hopper
    peak_tflops: {bf16: 123}
    memory_gb: 16
    memory_bandwidth_tb_per_s: 1
    scaleup_bandwidth_gb_per_s: 10
)";
  auto r = run_gpuplan("catalog show h100-sxm --catalog " + dir.string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(has(r.out, "900 TFLOP/s")) << r.out;
  EXPECT_TRUE(has(r.out, (dir / "lab.yaml").string()));
  auto l = run_gpuplan("catalog list accelerators --catalog " + dir.string());
  EXPECT_TRUE(has(l.out, "lab-chip"));

  std::ofstream(dir / "lab.yaml") << "accelerators:\n  - name: x\n    memroy_gb: 1\n";
  auto bad = run_gpuplan("catalog list --catalog " + dir.string());
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_TRUE(has(bad.err, "lab.yaml")) << bad.err;
  fs::remove_all(dir);

  auto none = run_gpuplan("catalog list --catalog /no/such/gpuplan/dir");
  EXPECT_EQ(none.exit_code, 2);
  EXPECT_TRUE(has(none.err, "--catalog")) << none.err;
}

}  // namespace
