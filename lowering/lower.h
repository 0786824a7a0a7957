// lowering: ir::Schedule -> one self-contained CUDA C++ file with inline PTX.
//
// The output is deterministic (same schedule, same options -> same bytes)
// and readable: the kernel, its variables and comments use the schedule's
// names for roles, views, barriers and loop variables, and every barrier
// address, phase bit, expect_tx byte count, descriptor, tensor-map box and
// warp predicate is computed from the declarations.
//
// The file exports the cake kernel ABI (runner/harness/cake_abi.h), so the
// runner can build it with `nvcc -shared` and load it into its harness.
// docs/gpu.md describes what each op lowers to.
#pragma once

#include <string>
#include <vector>

#include "ir/diagnostic.h"
#include "ir/schedule.h"

namespace cake::lowering {

// How the runtime problem binds to the schedule's parameters.
//  Gemm: C[M,N] = A[M,K] . B[N,K]^T. The schedule's tensor parameters, in
//  order, are A [M, K], B [N, K] and C [M, N] (extents outermost first, the
//  last dimension contiguous); its i32 parameters named M, N and K (if any)
//  receive the sizes. Other i32/f32 parameters are not supported.
enum class Problem { Gemm };

struct LowerOptions {
  ir::Target target = ir::Target::Unspecified;  // override; else the schedule's
  Problem problem = Problem::Gemm;
  bool comments = true;                          // explanatory comments in the output
};

struct LaunchInfo {
  int threads = 0;           // block size
  int smem_bytes = 0;        // dynamic shared memory requested
  std::string grid;          // the grid, as the host code computes it (for reports)
  bool persistent = false;   // grid = number of SMs (the schedule uses lm.grid_dim)
};

struct LowerResult {
  bool ok = false;
  std::string source;                  // the .cu file (empty when !ok)
  std::string kernel_name;             // __global__ function name
  ir::Target target = ir::Target::Unspecified;
  LaunchInfo launch;
  std::vector<ir::Finding> findings;   // lower.* errors (and notes)
};

LowerResult lowerToCuda(const ir::Schedule& schedule, const LowerOptions& opts = {});

// The lowering's rules (lower.*), for `cake explain`.
std::span<const ir::RuleInfo> loweringRules();

}  // namespace cake::lowering
