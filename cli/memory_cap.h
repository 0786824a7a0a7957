// The process's own memory cap (`cake --memory-limit MIB`, cli/main.cpp).
#pragma once

namespace cake::cli {

inline constexpr unsigned kDefaultMemoryLimitMiB = 4096;
// Caps this process's address space (soft limit) at `mib` MiB; 0: no cap.
bool capMemory(unsigned mib);
// Keeps memory that Z3 contexts free for the next one (glibc only).
void keepFreedMemory();
// Lifts the cap again before starting child processes that need more
// address space than the checks (nvcc, the CUDA harness).
void liftMemoryCap();

}  // namespace cake::cli
