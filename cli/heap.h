// How a short-lived `cake` process (and a benchmark of what it costs) sets
// up its heap for Z3. Header-only: cli/main.cpp and bench/bench_util.h, and
// encoder/z3_solver.cpp for every other program that asks Z3 (the tests).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>

#if defined(__GLIBC__)
#include <malloc.h>
#include <sys/mman.h>
#endif

namespace cake::cli {

// Each Z3 context (the layout checks and the Z3 engine make several) frees
// its memory on exit; glibc hands it back to the kernel and the next context
// faults it in again, ~65 ms of system time the first few times in a process
// (docs/benchmarks.md "Difference-logic solver"). A short-lived command keeps
// freed memory instead: trim only above 256 MiB, and serve blocks below
// 64 MiB from the heap (still inside the address-space cap).
//
// The first context still faults in what Z3 writes when it makes one (two
// tables of 8.5 MB), about 4,500 faults of 4 KiB, 40-60 ms of CPU per process
// on this machine. Where the kernel gives transparent huge pages on request
// (/sys/kernel/mm/transparent_hugepage/enabled "madvise" or "always"), the
// first 48 MiB of the heap are advised as huge pages (a block taken from the
// heap, advised, and freed back into it; nothing of it is touched), so that
// memory comes in 2 MiB faults: `cake check --engine z3` on
// sm90_ws_4stage 0.52-0.54 -> 0.34-0.49 s CPU (docs/benchmarks.md "Where the CPU of
// cake check --engine z3 goes"). Only where the advice is taken; otherwise
// nothing changes.
inline void keepFreedMemoryInTheHeap() {
#if defined(__GLIBC__)
  mallopt(M_TRIM_THRESHOLD, 256 << 20);
  mallopt(M_MMAP_THRESHOLD, 64 << 20);
#if defined(MADV_HUGEPAGE)
  constexpr size_t kBlock = size_t{48} << 20, kHuge = size_t{2} << 20;
  void* p = std::malloc(kBlock);  // below the mmap threshold: from the heap
  if (!p) return;
  const uintptr_t from = (reinterpret_cast<uintptr_t>(p) + kHuge - 1) & ~(kHuge - 1);
  const uintptr_t to = (reinterpret_cast<uintptr_t>(p) + kBlock) & ~(kHuge - 1);
  if (to > from) madvise(reinterpret_cast<void*>(from), to - from, MADV_HUGEPAGE);
  std::free(p);  // stays in the heap: below the trim threshold
#endif
#endif
}

}  // namespace cake::cli
