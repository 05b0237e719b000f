// The CUDA probe (probe.h). Every timing: warm-ups, then CUDA events around each repetition, median.
// Inputs are fresh uniform random values (never zero) written by a kernel before each shape.
#include <cublasLt.h>
#include <cuda_bf16.h>
#include <cuda_fp8.h>
#include <cuda_runtime.h>
#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <ostream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "probe/probe.h"

namespace gpuplan::probe {
namespace {

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}
void check(cublasStatus_t s, const char* what) {
  if (s != CUBLAS_STATUS_SUCCESS)
    throw std::runtime_error(std::string(what) + ": cuBLASLt status " + std::to_string(static_cast<int>(s)));
}

// Uniform in [-1, -1/64] u [1/64, 1]: random, never zero, representable in FP8 E4M3 without flushing.
template <typename T>
__global__ void fill_random(T* p, size_t n, unsigned long long seed) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
    unsigned long long z = seed + (i + 1) * 0x9E3779B97F4A7C15ull;  // splitmix64
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    const float u = float(z >> 40) * (1.0f / 16777216.0f);
    const float mag = 1.0f / 64 + u * (1.0f - 1.0f / 64);
    p[i] = T((z & 1) ? mag : -mag);
  }
}

// Reads n 16-byte words; the xor keeps every load live.
__global__ void read_only(const uint4* p, size_t n, unsigned* sink) {
  unsigned acc = 0;
#pragma unroll 4
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
    const uint4 v = p[i];
    acc ^= v.x ^ v.y ^ v.z ^ v.w;
  }
  if (acc == 0x9E3779B9u) *sink = acc;
}

template <typename F>
double median_time_s(F&& launch, int warmup, int reps, cudaStream_t s) {
  for (int i = 0; i < warmup; ++i) launch();
  std::vector<cudaEvent_t> ev(2 * reps);
  for (auto& e : ev) check(cudaEventCreate(&e), "cudaEventCreate");
  for (int i = 0; i < reps; ++i) {
    check(cudaEventRecord(ev[2 * i], s), "cudaEventRecord");
    launch();
    check(cudaEventRecord(ev[2 * i + 1], s), "cudaEventRecord");
  }
  check(cudaEventSynchronize(ev.back()), "cudaEventSynchronize");
  check(cudaGetLastError(), "kernel launch");
  std::vector<double> t(reps);
  for (int i = 0; i < reps; ++i) {
    float ms = 0;
    check(cudaEventElapsedTime(&ms, ev[2 * i], ev[2 * i + 1]), "cudaEventElapsedTime");
    t[i] = ms * 1e-3;
  }
  for (auto& e : ev) cudaEventDestroy(e);
  std::sort(t.begin(), t.end());
  return reps % 2 ? t[reps / 2] : 0.5 * (t[reps / 2 - 1] + t[reps / 2]);
}

// NVML, opened at run time so the build needs no NVML headers or library.
struct Nvml {
  using Device = void*;
  void* lib = nullptr;
  int (*init)() = nullptr;
  int (*shutdown)() = nullptr;
  int (*by_pci)(const char*, Device*) = nullptr;
  int (*energy_mj)(Device, unsigned long long*) = nullptr;
  int (*power_mw)(Device, unsigned*) = nullptr;
  Device dev = nullptr;

  explicit Nvml(const std::string& pci_bus_id) {
    lib = dlopen("libnvidia-ml.so.1", RTLD_NOW);
    if (!lib) return;
    init = reinterpret_cast<int (*)()>(dlsym(lib, "nvmlInit_v2"));
    shutdown = reinterpret_cast<int (*)()>(dlsym(lib, "nvmlShutdown"));
    by_pci = reinterpret_cast<int (*)(const char*, Device*)>(dlsym(lib, "nvmlDeviceGetHandleByPciBusId_v2"));
    energy_mj = reinterpret_cast<int (*)(Device, unsigned long long*)>(dlsym(lib, "nvmlDeviceGetTotalEnergyConsumption"));
    power_mw = reinterpret_cast<int (*)(Device, unsigned*)>(dlsym(lib, "nvmlDeviceGetPowerUsage"));
    if (!init || !by_pci || !power_mw || init() != 0 || by_pci(pci_bus_id.c_str(), &dev) != 0) dev = nullptr;
  }
  ~Nvml() {
    if (dev && shutdown) shutdown();
    if (lib) dlclose(lib);
  }
  bool ok() const { return dev != nullptr; }
};

struct Shape {
  long m, n, k;
};

class LtGemm {
 public:
  LtGemm(cudaStream_t s) : stream_(s) {
    check(cublasLtCreate(&handle_), "cublasLtCreate");
    check(cudaMalloc(&workspace_, kWorkspaceBytes), "cudaMalloc workspace");
  }
  ~LtGemm() {
    release();
    cudaFree(workspace_);
    cublasLtDestroy(handle_);
  }
  // Prepares D = op(A) * B with A stored k x m (transposed, the layout FP8 requires), B k x n, D m x n,
  // column-major, FP32 accumulation, BF16 output. False when cuBLASLt has no algorithm for it.
  bool prepare(bool fp8, const Shape& s, const void* a, const void* b, void* d) {
    release();
    a_ = a, b_ = b, d_ = d;
    const cudaDataType_t in = fp8 ? CUDA_R_8F_E4M3 : CUDA_R_16BF;
    check(cublasLtMatmulDescCreate(&op_, CUBLAS_COMPUTE_32F, CUDA_R_32F), "cublasLtMatmulDescCreate");
    const cublasOperation_t ta = CUBLAS_OP_T, tb = CUBLAS_OP_N;
    check(cublasLtMatmulDescSetAttribute(op_, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta), "TRANSA");
    check(cublasLtMatmulDescSetAttribute(op_, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb), "TRANSB");
    check(cublasLtMatrixLayoutCreate(&la_, in, s.k, s.m, s.k), "layout A");
    check(cublasLtMatrixLayoutCreate(&lb_, in, s.k, s.n, s.k), "layout B");
    check(cublasLtMatrixLayoutCreate(&ld_, CUDA_R_16BF, s.m, s.n, s.m), "layout D");
    check(cublasLtMatmulPreferenceCreate(&pref_), "preference");
    const uint64_t ws = kWorkspaceBytes;
    check(cublasLtMatmulPreferenceSetAttribute(pref_, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof ws),
          "workspace preference");
    int found = 0;
    const cublasStatus_t st =
        cublasLtMatmulAlgoGetHeuristic(handle_, op_, la_, lb_, ld_, ld_, pref_, 1, &algo_, &found);
    return st == CUBLAS_STATUS_SUCCESS && found > 0;
  }
  void launch() {
    const float alpha = 1.0f, beta = 0.0f;
    check(cublasLtMatmul(handle_, op_, &alpha, a_, la_, b_, lb_, &beta, d_, ld_, d_, ld_, &algo_.algo, workspace_,
                         kWorkspaceBytes, stream_),
          "cublasLtMatmul");
  }
  void release() {
    if (pref_) cublasLtMatmulPreferenceDestroy(pref_);
    if (la_) cublasLtMatrixLayoutDestroy(la_);
    if (lb_) cublasLtMatrixLayoutDestroy(lb_);
    if (ld_) cublasLtMatrixLayoutDestroy(ld_);
    if (op_) cublasLtMatmulDescDestroy(op_);
    pref_ = nullptr, la_ = lb_ = ld_ = nullptr, op_ = nullptr;
  }

 private:
  static constexpr size_t kWorkspaceBytes = size_t(64) << 20;
  cudaStream_t stream_;
  cublasLtHandle_t handle_ = nullptr;
  void* workspace_ = nullptr;
  cublasLtMatmulDesc_t op_ = nullptr;
  cublasLtMatrixLayout_t la_ = nullptr, lb_ = nullptr, ld_ = nullptr;
  cublasLtMatmulPreference_t pref_ = nullptr;
  cublasLtMatmulHeuristicResult_t algo_{};
  const void *a_ = nullptr, *b_ = nullptr;
  void* d_ = nullptr;
};

template <typename T>
void fill(void* p, size_t n, unsigned long long seed, int sms, cudaStream_t s) {
  fill_random<T><<<sms * 8, 256, 0, s>>>(static_cast<T*>(p), n, seed);
  check(cudaGetLastError(), "fill_random");
}

}  // namespace

doctor::ProbeMeasurements run(const Options& opts, std::ostream& log) {
  int count = 0;
  const cudaError_t ce = cudaGetDeviceCount(&count);
  if (ce != cudaSuccess || count == 0)
    throw std::runtime_error(std::string("no CUDA device: ") +
                             (ce != cudaSuccess ? cudaGetErrorString(ce) : "cudaGetDeviceCount returned 0"));
  if (opts.device < 0 || opts.device >= count)
    throw std::runtime_error("--device " + std::to_string(opts.device) + ": this machine has " +
                             std::to_string(count) + " CUDA device(s)");
  check(cudaSetDevice(opts.device), "cudaSetDevice");
  cudaDeviceProp prop{};
  check(cudaGetDeviceProperties(&prop, opts.device), "cudaGetDeviceProperties");
  doctor::ProbeMeasurements m;
  m.device_name = prop.name;
  m.compute_capability = prop.major * 10 + prop.minor;
  m.memory_bytes = double(prop.totalGlobalMem);
  const int sms = prop.multiProcessorCount;
  log << "probe: " << prop.name << " (sm_" << m.compute_capability << ", " << sms << " SMs, "
      << prop.totalGlobalMem / (1 << 20) << " MiB)\n";

  cudaStream_t stream;
  check(cudaStreamCreate(&stream), "cudaStreamCreate");
  const int warmup = opts.quick ? 5 : 10, reps = opts.quick ? 20 : 50;

  // GEMMs: square, then the skinny shapes of real layers (few tokens against a wide weight; a narrow
  // output projection).
  std::vector<Shape> shapes = {{1024, 1024, 1024}, {2048, 2048, 2048}, {4096, 4096, 4096}, {8192, 8192, 8192},
                               {128, 8192, 8192},  {512, 8192, 8192},   {8192, 1024, 8192}, {8192, 28672, 8192}};
  if (!opts.quick) {
    shapes.insert(shapes.end(), {{256, 256, 256}, {512, 512, 512}, {16384, 16384, 16384}, {64, 8192, 8192},
                                 {256, 8192, 8192}, {2048, 8192, 8192}, {8192, 8192, 28672}, {16384, 4096, 4096}});
  }
  size_t a_elems = 0, b_elems = 0, d_elems = 0;
  for (const auto& s : shapes) {
    a_elems = std::max(a_elems, size_t(s.m * s.k));
    b_elems = std::max(b_elems, size_t(s.k * s.n));
    d_elems = std::max(d_elems, size_t(s.m * s.n));
  }
  void *a = nullptr, *b = nullptr, *d = nullptr;
  check(cudaMalloc(&a, a_elems * 2), "cudaMalloc A");
  check(cudaMalloc(&b, b_elems * 2), "cudaMalloc B");
  check(cudaMalloc(&d, d_elems * 2), "cudaMalloc D");
  {
    LtGemm gemm(stream);
    unsigned long long seed = 0x5eed;
    const bool has_fp8 = m.compute_capability >= 89;
    for (const bool fp8 : {false, true}) {
      if (fp8 && !has_fp8) {
        m.notes.push_back("fp8 GEMM skipped: needs sm_89+");
        continue;
      }
      for (const auto& s : shapes) {
        if (fp8) {
          fill<__nv_fp8_e4m3>(a, size_t(s.m * s.k), ++seed, sms, stream);
          fill<__nv_fp8_e4m3>(b, size_t(s.k * s.n), ++seed, sms, stream);
        } else {
          fill<__nv_bfloat16>(a, size_t(s.m * s.k), ++seed, sms, stream);
          fill<__nv_bfloat16>(b, size_t(s.k * s.n), ++seed, sms, stream);
        }
        const std::string name = std::string(fp8 ? "fp8" : "bf16") + " " + std::to_string(s.m) + "x" +
                                 std::to_string(s.n) + "x" + std::to_string(s.k);
        if (!gemm.prepare(fp8, s, a, b, d)) {
          m.notes.push_back(name + ": cuBLASLt found no algorithm");
          continue;
        }
        const double t = median_time_s([&] { gemm.launch(); }, warmup, reps, stream);
        m.gemms.push_back({fp8 ? "fp8" : "bf16", s.m, s.n, s.k, t});
        log << "  gemm " << name << ": " << m.gemms.back().flops_per_s() / 1e12 << " TFLOP/s\n";
      }
    }

    // Power during back-to-back BF16 8192^3 GEMMs (NVML samples while the queue drains).
    char bus[32] = {};
    check(cudaDeviceGetPCIBusId(bus, sizeof bus, opts.device), "cudaDeviceGetPCIBusId");
    Nvml nvml(bus);
    if (!nvml.ok()) {
      m.notes.push_back("power not measured: NVML (libnvidia-ml.so.1) unavailable");
    } else {
      const Shape s{8192, 8192, 8192};
      fill<__nv_bfloat16>(a, size_t(s.m * s.k), ++seed, sms, stream);
      fill<__nv_bfloat16>(b, size_t(s.k * s.n), ++seed, sms, stream);
      if (gemm.prepare(false, s, a, b, d)) {
        for (int i = 0; i < 20; ++i) gemm.launch();  // warm up the clocks and the power reading
        check(cudaStreamSynchronize(stream), "warm-up");
        const int n = opts.quick ? 1500 : 4000;     // about 2 s (quick) or 6 s at ~800 TFLOP/s
        unsigned long long e0 = 0, e1 = 0;
        const bool energy = nvml.energy_mj && nvml.energy_mj(nvml.dev, &e0) == 0;
        const auto t0 = std::chrono::steady_clock::now();
        for (int i = 0; i < n; ++i) gemm.launch();
        double sum_w = 0;
        int samples = 0;
        while (cudaStreamQuery(stream) == cudaErrorNotReady) {
          unsigned mw = 0;
          if (nvml.power_mw(nvml.dev, &mw) == 0) sum_w += mw / 1000.0, ++samples;
          std::this_thread::sleep_for(std::chrono::milliseconds(50));
        }
        check(cudaStreamSynchronize(stream), "power run");
        const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        if (energy && nvml.energy_mj(nvml.dev, &e1) == 0 && e1 > e0 && wall > 0.2)
          m.gemm_power_w = (e1 - e0) / 1000.0 / wall;
        else if (samples > 0)
          m.gemm_power_w = sum_w / samples;
        if (m.gemm_power_w) log << "  power during bf16 8192^3 GEMMs: " << *m.gemm_power_w << " W\n";
      }
    }
    gemm.release();
  }
  cudaFree(a);
  cudaFree(b);
  cudaFree(d);

  // HBM: a buffer far larger than L2 (50-126 MB on these chips).
  size_t free_b = 0, total_b = 0;
  check(cudaMemGetInfo(&free_b, &total_b), "cudaMemGetInfo");
  size_t bytes = std::min<size_t>(size_t(opts.quick ? 1 : 4) << 30, free_b / 4) & ~size_t(4095);
  void *src = nullptr, *dst = nullptr;
  unsigned* sink = nullptr;
  check(cudaMalloc(&src, bytes), "cudaMalloc src");
  check(cudaMalloc(&dst, bytes), "cudaMalloc dst");
  check(cudaMalloc(&sink, sizeof(unsigned)), "cudaMalloc sink");
  fill<__nv_bfloat16>(src, bytes / 2, 0xabcdef, sms, stream);
  const double copy_s = median_time_s(
      [&] { check(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, stream), "cudaMemcpyAsync"); }, warmup,
      reps, stream);
  m.copy_bytes_per_s = 2.0 * double(bytes) / copy_s;
  const double read_s = median_time_s(
      [&] { read_only<<<sms * 8, 512, 0, stream>>>(static_cast<const uint4*>(src), bytes / 16, sink); }, warmup,
      reps, stream);
  m.read_bytes_per_s = double(bytes) / read_s;
  log << "  hbm copy (read+write): " << m.copy_bytes_per_s / 1e12 << " TB/s, read-only: "
      << m.read_bytes_per_s / 1e12 << " TB/s\n";
  cudaFree(src);
  cudaFree(dst);
  cudaFree(sink);
  cudaStreamDestroy(stream);
  return m;
}

}  // namespace gpuplan::probe

extern "C" __attribute__((visibility("default"))) int gpuplan_probe_run(const gpuplan::probe::Options* opts,
                                                                        gpuplan::doctor::ProbeMeasurements* out,
                                                                        std::ostream* log, std::string* error) {
  try {
    *out = gpuplan::probe::run(*opts, *log);
    return 0;
  } catch (const std::exception& e) {
    *error = e.what();
    return 1;
  }
}
