// lowering: ir::Schedule -> one self-contained CUDA C++ file with inline PTX.
//
// The output is deterministic (same schedule, same options -> same bytes)
// and readable: the kernel, its variables and comments use the schedule's
// names (sanitised into C++ identifiers) for roles, views, barriers,
// fragments and loop variables, and every barrier address, phase bit,
// expect_tx byte count, descriptor, tensor-map box, warp predicate and
// register layout is computed from the declarations. Nothing from the input
// text is spliced into code: names are checked identifiers, numbers are
// computed, source lines appear only inside sanitised `//` comments.
//
// Targets: sm_90a (TMA, mbarrier, wgmma, setmaxnreg), sm_80 (cp.async,
// ldmatrix + mma.sync), sm_100a (tcgen05.mma into TMEM, tcgen05.ld/st,
// tcgen05.alloc; compile-only here: no sm_100a device is available).
//
// Every kernel has the generic signature (one `const __grid_constant__
// CUtensorMap` per (LM.tmaNd parameter, view) pair, a typed pointer plus
// extents per tensor read or written element-wise, i32/f32 scalars) and the
// file exports the generic launcher `cake_launch` (abi/cake_abi.h);
// a schedule whose parameters fit the GEMM problem also exports
// `cake_gemm_launch`, which `cake run` uses. docs/gpu.md describes what each
// op lowers to.
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "ir/diagnostic.h"
#include "ir/schedule.h"

namespace cake::lowering {

// How the runtime problem binds to the schedule's parameters.
//  Auto: the GEMM ABI when the parameters fit it (below) and a grid can be
//        derived, else only the generic launcher. What `cake lower` uses.
//  Gemm: C[M,N] = A[M,K] . B[N,K]^T. The schedule's tensor parameters, in
//        order, are A [M, K], B [N, K] and C [M, N] (rank 2, bf16, extents
//        outermost first, the last dimension contiguous); its i32
//        parameters named M, N and K (if any) receive the sizes. A schedule
//        that does not fit is `lower.binding`. What `cake run` uses.
//  None: only the generic launcher `cake_launch`.
enum class Problem { Auto, Gemm, None };

struct LowerOptions {
  ir::Target target = ir::Target::Unspecified;  // override; else the schedule's
  Problem problem = Problem::Auto;
  bool comments = true;                          // explanatory comments in the output
  // Non-empty: everything but the #includes goes into `namespace NAME { }`
  // and the host functions are ordinary C++ functions of that namespace
  // (no extern "C" exports), so several lowered schedules can be
  // concatenated into one translation unit. Must be a C++ identifier.
  std::string namespace_name;
  // Values for LM.i32 parameters that shapes depend on (pool sizes, view
  // offsets and shapes, fragment shapes): the kernel is specialised for
  // them (they become constants) and the launcher refuses other values
  // (cudaErrorInvalidValue). A schedule whose shapes depend on a parameter
  // that is not given here is `lower.unsupported`, naming the parameter.
  std::map<std::string, int64_t> specialize;
};

struct LaunchInfo {
  int threads = 0;           // block size
  int smem_bytes = 0;        // dynamic shared memory requested
  std::string grid;          // the grid, as the host code computes it (for reports)
  bool persistent = false;   // grid = number of SMs (the schedule uses lm.grid_dim)
  int cluster[3] = {1, 1, 1};
};

struct LowerResult {
  bool ok = false;
  std::string source;                  // the .cu file (empty when !ok)
  std::string kernel_name;             // __global__ function name
  ir::Target target = ir::Target::Unspecified;
  Problem problem = Problem::None;     // the ABI emitted: Gemm (cake_gemm_launch too) or None
  LaunchInfo launch;
  std::vector<ir::Finding> findings;   // lower.* errors (and notes)
  // nvcc -gencode flags for the target (compile with -std=c++17).
  std::vector<std::string> arch_flags;
};

LowerResult lowerToCuda(const ir::Schedule& schedule, const LowerOptions& opts = {});

// The lowering's rules (lower.*), for `cake explain`.
std::span<const ir::RuleInfo> loweringRules();

}  // namespace cake::lowering
