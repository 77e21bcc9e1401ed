// Probe (not project code): CUTLASS 2.x sm80 tensor-op GEMMs (mma.sync m16n8k16, cp.async,
// ldmatrix) for BF16 A, B row-major, f32 C, timed on the H200 against cuBLAS BF16
// (cublasGemmEx, CUBLAS_COMPUTE_32F, f32 output) in the same process. CUDA events, 5 warm-up
// launches, median of 20 launches, uniform(-1, 1) inputs; each CUTLASS result compared with
// cuBLAS's (max |diff| over all cells).
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <algorithm>
#include <dlfcn.h>
#include <cstring>
#include <cmath>
#include <cuda_runtime.h>
#include "cutlass/cutlass.h"
#include "cutlass/gemm/device/gemm.h"
#include "cutlass/bfloat16.h"

#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("CUDA %s at %d\n", cudaGetErrorString(e), __LINE__); exit(1);} } while (0)

using BF = cutlass::bfloat16_t;
using RM = cutlass::layout::RowMajor;

template <int TM, int TN, int TK, int WM, int WN, int WK, int S>
using G = cutlass::gemm::device::Gemm<BF, RM, BF, RM, float, RM, float,
    cutlass::arch::OpClassTensorOp, cutlass::arch::Sm80,
    cutlass::gemm::GemmShape<TM, TN, TK>, cutlass::gemm::GemmShape<WM, WN, WK>,
    cutlass::gemm::GemmShape<16, 8, 16>,
    cutlass::epilogue::thread::LinearCombination<float, 4, float, float>,
    cutlass::gemm::threadblock::GemmIdentityThreadblockSwizzle<8>, S, 8, 8>;

static float median(std::vector<float> v) { std::sort(v.begin(), v.end()); return v[v.size() / 2]; }

typedef int (*create_t)(void**);
typedef int (*gemmex_t)(void*, int, int, int, int, int, const void*, const void*, int, int,
                        const void*, int, int, const void*, void*, int, int, int, int);

struct Ctx { int n; BF *a, *b; float *c, *ref; cudaEvent_t e0, e1; };

template <class F> float time_it(Ctx& x, F f) {
  for (int i = 0; i < 5; i++) f();
  CK(cudaDeviceSynchronize());
  std::vector<float> ms;
  for (int i = 0; i < 20; i++) {
    CK(cudaEventRecord(x.e0)); f(); CK(cudaEventRecord(x.e1)); CK(cudaEventSynchronize(x.e1));
    float t; CK(cudaEventElapsedTime(&t, x.e0, x.e1)); ms.push_back(t);
  }
  return median(ms);
}

static float maxdiff(Ctx& x) {
  size_t nn = (size_t)x.n * x.n; std::vector<float> h(nn), r(nn);
  CK(cudaMemcpy(h.data(), x.c, nn * 4, cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(r.data(), x.ref, nn * 4, cudaMemcpyDeviceToHost));
  float m = 0; for (size_t i = 0; i < nn; i++) m = std::max(m, std::fabs(h[i] - r[i]));
  return m;
}

static const char* only = getenv("PROBE_ONLY");  // one config, one launch (for ncu)
template <class Gemm> void run(Ctx& x, const char* name, float cublas_ms) {
  int n = x.n;
  if (only && strcmp(only, name)) return;
  typename Gemm::Arguments args({n, n, n}, {x.a, n}, {x.b, n}, {x.c, n}, {x.c, n}, {1.0f, 0.0f});
  Gemm g;
  if (g.can_implement(args) != cutlass::Status::kSuccess) { printf("%s: cannot implement\n", name); return; }
  if (g.initialize(args) != cutlass::Status::kSuccess) { printf("%s: init failed (smem?)\n", name); return; }
  CK(cudaMemset(x.c, 0, (size_t)n * n * 4));
  if (only) { g(); CK(cudaDeviceSynchronize()); printf("%s: one launch\n", name); return; }
  float ms = time_it(x, [&] { g(); });
  CK(cudaGetLastError());
  double tf = 2.0 * n * n * (double)n / (ms * 1e-3) / 1e12;
  printf("n=%d %-34s %.4f ms %7.1f TFLOP/s %5.1f %% of cuBLAS BF16  maxdiff %.3g\n", n, name, ms, tf,
         100.0 * cublas_ms / ms, maxdiff(x));
}

__global__ void fill(BF* p, size_t n, unsigned seed) {
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (i < n) { unsigned h = (unsigned)(i * 2654435761u) ^ seed; h ^= h >> 13; h *= 0x5bd1e995u; h ^= h >> 15;
    p[i] = BF((h & 0xffff) / 32768.0f - 1.0f); }
}

int main(int argc, char** argv) {
  void* lib = dlopen("libcublas.so", RTLD_NOW); if (!lib) lib = dlopen("libcublas.so.13", RTLD_NOW);
  if (!lib) { printf("no cublas\n"); return 1; }
  create_t create = (create_t)dlsym(lib, "cublasCreate_v2");
  gemmex_t gemmex = (gemmex_t)dlsym(lib, "cublasGemmEx");
  void* h; create(&h);
  cudaDeviceProp p; CK(cudaGetDeviceProperties(&p, 0)); printf("device %s\n", p.name);
  for (int ai = 1; ai < argc; ai++) {
    Ctx x; x.n = atoi(argv[ai]); size_t nn = (size_t)x.n * x.n;
    CK(cudaMalloc(&x.a, nn * 2)); CK(cudaMalloc(&x.b, nn * 2)); CK(cudaMalloc(&x.c, nn * 4)); CK(cudaMalloc(&x.ref, nn * 4));
    fill<<<(nn + 255) / 256, 256>>>(x.a, nn, 1); fill<<<(nn + 255) / 256, 256>>>(x.b, nn, 2);
    CK(cudaEventCreate(&x.e0)); CK(cudaEventCreate(&x.e1));
    float one = 1, zero = 0; int n = x.n;
    // Row-major C = A B is column-major C^T = B^T A^T: cuBLAS with the operands swapped.
    auto cub = [&] { gemmex(h, 0, 0, n, n, n, &one, x.b, 14, n, x.a, 14, n, &zero, x.ref, 0, n, 68, -1); };
    float cms = only ? 1.0f : time_it(x, cub);
    printf("n=%d cuBLAS BF16 %.4f ms %.1f TFLOP/s\n", n, cms, 2.0 * n * n * (double)n / (cms * 1e-3) / 1e12);
    run<G<128, 256, 32, 64, 64, 32, 3>>(x, "128x256x32_w64x64_s3", cms);
    run<G<128, 256, 32, 64, 64, 32, 4>>(x, "128x256x32_w64x64_s4", cms);
    run<G<128, 256, 64, 64, 64, 64, 3>>(x, "128x256x64_w64x64_s3", cms);
    run<G<128, 256, 64, 64, 64, 64, 4>>(x, "128x256x64_w64x64_s4", cms);
    run<G<256, 128, 32, 64, 64, 32, 3>>(x, "256x128x32_w64x64_s3", cms);
    run<G<256, 128, 64, 64, 64, 64, 3>>(x, "256x128x64_w64x64_s3", cms);
    run<G<128, 128, 32, 64, 64, 32, 4>>(x, "128x128x32_w64x64_s4", cms);
    run<G<128, 128, 64, 64, 64, 64, 3>>(x, "128x128x64_w64x64_s3", cms);
    run<G<128, 128, 64, 64, 64, 64, 4>>(x, "128x128x64_w64x64_s4", cms);
    run<G<128, 128, 64, 64, 32, 64, 4>>(x, "128x128x64_w64x32_s4", cms);
    run<G<256, 128, 64, 64, 64, 64, 4>>(x, "256x128x64_w64x64_s4", cms);
    if (!only) printf("n=%d cuBLAS BF16 again %.4f ms\n", n, time_it(x, cub));
    cudaFree(x.a); cudaFree(x.b); cudaFree(x.c); cudaFree(x.ref);
  }
  return 0;
}
