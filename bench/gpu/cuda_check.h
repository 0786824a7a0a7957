// CK(x): a CUDA runtime call that must succeed; otherwise one JSON line
// ({"result": "cuda_error", "detail": ...}) and exit 3. For the standalone
// device drivers under bench/gpu/ (generic_check.cu, row_max_stress.cu).
#pragma once
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>

#define CK(x)                                                                                       \
  do {                                                                                              \
    cudaError_t e_ = (x);                                                                           \
    if (e_ != cudaSuccess) {                                                                        \
      printf("{\"result\": \"cuda_error\", \"detail\": \"%s: %s\"}\n", #x, cudaGetErrorString(e_)); \
      exit(3);                                                                                      \
    }                                                                                               \
  } while (0)
