// A kernel that deliberately deadlocks: its consumer waits on phase 0 of an
// mbarrier (init count 1) that nobody ever arrives on -- what `cake check`
// reports as sync.deadlock. Used to test the runner's watchdog: the harness
// process must be killed and the run reported as "hang", leaving nothing
// running on the GPU.
#include <cuda_runtime.h>
#include <stdint.h>

#include "cake_abi.h"

__global__ void cake_deadlock_kernel(int* sink) {
  __shared__ __align__(8) uint64_t bar;
  const uint32_t addr = static_cast<uint32_t>(__cvta_generic_to_shared(&bar));
  if (threadIdx.x == 0) asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(addr) : "memory");
  __syncthreads();
  // wait(full, phase=0): no producer role arrives, so this never returns
  asm volatile(
      "{\n.reg .pred P1;\n"
      "WAIT_%=:\n"
      "mbarrier.try_wait.parity.shared::cta.b64 P1, [%0], 0;\n"
      "@!P1 bra WAIT_%=;\n"
      "}\n" ::"r"(addr)
      : "memory");
  if (threadIdx.x == 0) sink[blockIdx.x] = 1;
}

extern "C" int cake_abi_version(void) { return CAKE_ABI_VERSION; }

extern "C" void cake_kernel_info(CakeKernelInfo* info) {
  info->name = "deadlock";
  info->target = "sm_90a";
  info->block_m = info->block_n = info->block_k = 1;
  info->stages = 1;
  info->m_multiple = info->n_multiple = info->k_multiple = 1;
}

extern "C" int cake_gemm_launch(const CakeGemmArgs* a, void* stream) {
  cake_deadlock_kernel<<<1, 128, 0, static_cast<cudaStream_t>(stream)>>>(static_cast<int*>(a->C));
  return cudaGetLastError();
}
