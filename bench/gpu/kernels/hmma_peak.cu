// Tensor-core throughput of the sm_80 instruction mma.sync.m16n8k16 (bf16 in,
// f32 accumulate) on the machine it runs on, beside wgmma's documented peak.
// Question it answers (issue 13): is the sm_80 path's ~0.41x cuBLAS on the
// H200 a lowering problem or the ceiling of mma.sync on Hopper's tensor cores?
// Each warp keeps kChains independent accumulators so the loop is throughput-
// bound, not latency-bound; operands stay in registers (no memory traffic).
// Build: nvcc -O3 -gencode=arch=compute_90a,code=sm_90a hmma_peak.cu -o hmma_peak
#include <cstdio>
#include <cuda_runtime.h>

constexpr int kChains = 8;
constexpr int kIters = 4096;

__global__ void hmmaLoop(float* sink, unsigned seed) {
  unsigned a[4], b[2];
  for (int i = 0; i < 4; ++i) a[i] = seed * (threadIdx.x + i + 1);
  for (int i = 0; i < 2; ++i) b[i] = seed ^ (threadIdx.x + 7 * i);
  float acc[kChains][4] = {};
  for (int it = 0; it < kIters; ++it) {
#pragma unroll
    for (int c = 0; c < kChains; ++c) {
      asm volatile(
          "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "
          "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
          : "+f"(acc[c][0]), "+f"(acc[c][1]), "+f"(acc[c][2]), "+f"(acc[c][3])
          : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
    }
  }
  float s = 0;
  for (int c = 0; c < kChains; ++c) s += acc[c][0] + acc[c][1] + acc[c][2] + acc[c][3];
  if (s == 1234.5f) sink[threadIdx.x] = s;  // keeps the loop alive
}

int main() {
  int sms = 0;
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  float* sink;
  cudaMalloc(&sink, 1024 * sizeof(float));
  cudaEvent_t t0, t1;
  cudaEventCreate(&t0);
  cudaEventCreate(&t1);
  printf("{\"sms\": %d, \"runs\": [", sms);
  const int warpsPerSm[] = {4, 8, 16};
  for (int w = 0; w < 3; ++w) {
    // 4 blocks per SM, each with a quarter of the SM's warps (one per sub-partition's share).
    int blocks = sms * 4;
    int perBlock = warpsPerSm[w] / 4 * 32;
    hmmaLoop<<<blocks, perBlock>>>(sink, 3u);  // warm-up
    cudaEventRecord(t0);
    hmmaLoop<<<blocks, perBlock>>>(sink, 5u);
    cudaEventRecord(t1);
    cudaEventSynchronize(t1);
    float ms = 0;
    cudaEventElapsedTime(&ms, t0, t1);
    double flops = 2.0 * 16 * 8 * 16 * kChains * double(kIters) * (blocks * perBlock / 32);
    printf("%s{\"warps_per_sm\": %d, \"ms\": %.4f, \"tflops\": %.1f}", w ? ", " : "",
           warpsPerSm[w], ms, flops / (ms * 1e-3) / 1e12);
  }
  cudaError_t err = cudaGetLastError();
  printf("], \"error\": \"%s\"}\n", cudaGetErrorString(err));
  return err == cudaSuccess ? 0 : 1;
}
