// The declarations of the small TLX-style persistent GEMMs of
// skipped_tiles46_test.cpp and peeled_first47_test.cpp: a producer, an MMA
// role and an epilogue over a 1-slot A/B ring and one TMEM buffer, with
// implicit per-slot phases (TLX's running counters).
#pragma once

#include <string>

namespace cake::testing::tlx {

inline const std::string kHead = R"(
    pool   = lm.smem(32768)
    smem_a = pool.view(offset=0,     shape=(128, 64), dtype=lm.bf16, stages=1, swizzle="128B")
    smem_b = pool.view(offset=16384, shape=(128, 64), dtype=lm.bf16, stages=1, swizzle="128B")
    acc    = lm.tmem(cols=0, width=128, shape=(128, 128), dtype=lm.f32)
    res    = lm.regs(shape=(128, 128), dtype=lm.f32)
    producer = lm.role(warps=[0])
    mma      = lm.role(warps=[1])
    epi      = lm.role(warps=[4, 5, 6, 7])
    full       = lm.barrier(count=1, prod=[producer], cons=[mma], init_count=1)
    empty      = lm.barrier(count=1, prod=[mma], cons=[producer], init_count=1)
    tmem_full  = lm.barrier(count=1, prod=[mma], cons=[epi], init_count=1)
    tmem_empty = lm.barrier(count=1, prod=[epi], cons=[mma], init_count=1)
    k_tiles = lm.cdiv(K, 64)
)";

}  // namespace cake::testing::tlx
