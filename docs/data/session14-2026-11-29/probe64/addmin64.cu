// Probe (session 14): f64 add-min update sequences and their throughput on sm_90.
//   cmp:  t = a + b; c = t < c ? t : c          (DADD, DSETP, 2 FSEL: today's kernels)
//   sub:  t = a + b; d = t - c; c = d < 0 ? t : c (2 DADD, ISETP on d's high word, 2 SEL)
//   mix:  half the chains cmp, half sub
//   u64:  t = a + b; c = (u64)t < (u64)c ? t : c  (values >= +0 only: integer compare)
//   mixu: half cmp, half u64
// 16 chains per thread, each update reads another chain's previous value; CUDA events.
#include <cstdio>
#include <cuda_runtime.h>
#define CH 16
__device__ __forceinline__ double up_cmp(double c, double a, double b) {
  double r; asm("{ .reg .f64 t; .reg .pred p; add.rn.f64 t, %1, %2; setp.lt.f64 p, t, %3; selp.f64 %0, t, %3, p; }" : "=d"(r) : "d"(a), "d"(b), "d"(c)); return r;
}
__device__ __forceinline__ double up_sub(double c, double a, double b) {
  double r; asm("{ .reg .f64 t, d; .reg .b32 lo, hi; .reg .pred p; add.rn.f64 t, %1, %2; sub.rn.f64 d, t, %3; mov.b64 {lo, hi}, d; setp.lt.s32 p, hi, 0; selp.f64 %0, t, %3, p; }" : "=d"(r) : "d"(a), "d"(b), "d"(c)); return r;
}
__device__ __forceinline__ double up_u64(double c, double a, double b) {
  double r; asm("{ .reg .f64 t; .reg .b64 tb, cb; .reg .pred p; add.rn.f64 t, %1, %2; mov.b64 tb, t; mov.b64 cb, %3; setp.lt.u64 p, tb, cb; selp.f64 %0, t, %3, p; }" : "=d"(r) : "d"(a), "d"(b), "d"(c)); return r;
}
template <int MODE>  // 0 cmp, 1 sub, 2 mix(cmp/sub), 3 u64, 4 mix(cmp/u64)
__device__ __forceinline__ double up(int i, double c, double a, double b) {
  if (MODE == 0) return up_cmp(c, a, b);
  if (MODE == 1) return up_sub(c, a, b);
  if (MODE == 3) return up_u64(c, a, b);
  if (MODE == 2) return (i & 1) ? up_sub(c, a, b) : up_cmp(c, a, b);
  return (i & 1) ? up_u64(c, a, b) : up_cmp(c, a, b);
}
template <int MODE>
__global__ void k(double* out, double w, int iters) {
  int t = blockIdx.x * blockDim.x + threadIdx.x; double x[CH], y[CH];
#pragma unroll
  for (int i = 0; i < CH; i++) x[i] = (double)(((unsigned)t * 2654435761u + i * 40503u) >> 12);
  for (int n = 0; n < iters; n++) {
#pragma unroll
    for (int i = 0; i < CH; i++) y[i] = up<MODE>(i, x[i], x[(i + 1) % CH], w);
#pragma unroll
    for (int i = 0; i < CH; i++) x[i] = up<MODE>(i, y[i], y[(i + 5) % CH], w);
  }
  double s = 1e300;
#pragma unroll
  for (int i = 0; i < CH; i++) s = x[i] < s ? x[i] : s;
  if (s == w) *out = s;
}
template <int MODE>
void run(const char* name, double* d) {
  int sms; cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  int bps; cudaOccupancyMaxActiveBlocksPerMultiprocessor(&bps, k<MODE>, 256, 0);
  int grid = sms * bps, iters = 4000;
  cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
  k<MODE><<<grid, 256>>>(d, 1.0, 100); cudaDeviceSynchronize();
  float ms[9];
  for (int r = 0; r < 9; r++) {
    cudaEventRecord(a); k<MODE><<<grid, 256>>>(d, 1.0, iters); cudaEventRecord(b); cudaEventSynchronize(b);
    cudaEventElapsedTime(&ms[r], a, b);
  }
  for (int i = 0; i < 9; i++) for (int j = i + 1; j < 9; j++) if (ms[j] < ms[i]) { float t = ms[i]; ms[i] = ms[j]; ms[j] = t; }
  double ops = (double)grid * 256 * iters * 2 * CH;
  int clk; cudaDeviceGetAttribute(&clk, cudaDevAttrClockRate, 0);
  printf("%-6s blocks/SM %d  median %.3f ms (min %.3f max %.3f, 9 launches)  %.4e add-min/s  %.2f per SM per clock at %d MHz  err=%s\n",
         name, bps, ms[4], ms[0], ms[8], ops / (ms[4] * 1e-3), ops / (ms[4] * 1e-3) / sms / (clk * 1e3), clk / 1000,
         cudaGetErrorString(cudaGetLastError()));
}
int main() {
  double* d; cudaMalloc(&d, 8);
  for (int round = 0; round < 3; round++) {
    printf("round %d\n", round);
    run<0>("cmp", d); run<1>("sub", d); run<2>("mix", d); run<3>("u64", d); run<4>("mixu", d);
  }
  return 0;
}
