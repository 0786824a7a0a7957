// racecheck_named_barrier: does compute-sanitizer racecheck understand a
// named barrier over part of the CTA? The exchange of
// corpus/reduction/sm90_row_max_two_wg.cake reduced to its bones: 384
// threads; warps 0-3 do nothing (as the lowered kernel's load warp and idle
// warps); warpgroup B (warps 8-11) writes slot j % 2 of a 2-slot smem
// buffer, `bar.sync 1, 256` with warpgroup A (warps 4-7), A reads it. Kind 0:
// warps 0-3 leave at once (as lowered); kind 1: they stay and join a
// CTA-wide barrier at the end (nothing else changes). Prints the sum A
// computed and whether it is the expected one. reg=1: the barrier id and
// thread count in registers (`bar.sync %0, %1`, as the lowering emits it).
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>

__global__ void exchange(float* out, int tiles, int stay, int reg, int bar_id, int bar_threads) {
  __shared__ float slot[2][128];
  const int warp = threadIdx.x / 32, t = threadIdx.x % 128;
  if (warp < 4) {
    if (stay) __syncthreads();
    return;
  }
  float acc = 0.f;
  for (int j = 0; j < tiles; ++j) {
    if (warp >= 8) slot[j % 2][t] = static_cast<float>(j * 1000 + t);
    if (reg) asm volatile("bar.sync %0, %1;" ::"r"(bar_id), "r"(bar_threads) : "memory");  // as lowered
    else asm volatile("bar.sync 1, 256;" ::: "memory");
    if (warp < 8) acc += slot[j % 2][t];
  }
  if (warp < 8) out[blockIdx.x * 128 + t] = acc;
  if (stay) __syncthreads();
}

int main(int argc, char** argv) {
  const int stay = argc > 1 ? atoi(argv[1]) : 0, reg = argc > 2 ? atoi(argv[2]) : 0, tiles = 32, blocks = 8;
  float* d;
  cudaMalloc(&d, blocks * 128 * sizeof(float));
  exchange<<<blocks, 384>>>(d, tiles, stay, reg, 1, 256);
  float h[blocks * 128];
  cudaMemcpy(h, d, sizeof(h), cudaMemcpyDeviceToHost);
  int bad = 0;
  for (int b = 0; b < blocks; ++b)
    for (int t = 0; t < 128; ++t) {
      double want = 0;
      for (int j = 0; j < tiles; ++j) want += j * 1000 + t;
      bad += h[b * 128 + t] != static_cast<float>(want);
    }
  printf("{\"stay\": %d, \"reg\": %d, \"wrong\": %d, \"error\": \"%s\"}\n", stay, reg, bad, cudaGetErrorString(cudaGetLastError()));
  return bad != 0;
}
