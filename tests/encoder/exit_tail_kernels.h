// The producer tails of docs/z3.md "A part after the tile loop that reads the
// tile count" (helper tail46, session 46): a persistent kernel whose load warp
// waits after its tile loop for the last release of a per-tile K tile
// (`iter=n_tiles - 1`) or of its 2-slot ring (`iter=n_tiles * k_tiles - 1`).
// Shared by trip_exit_count_test.cpp, sound47_test.cpp and
// bench/attacks/sound47_mutants.py.
#pragma once

#include <string>

namespace exit_tail_kernels {

// A persistent kernel: the load warp fills a per-tile K tile (k_full /
// k_empty by tile), the compute warps a ring of A tiles (by ring index
// t * steps + j), and the MMA warp releases the K tile after each tile's
// K loop; the load warp's tail waits for the last release.
inline const std::string kTail = "        lm.wait(k_empty, iter=n_tiles - 1)\n";
inline const std::string kProducerTail = R"(@cake.schedule(target="sm_100a")
def producer_tail(lm, K: LM.tma2d, n_tiles: LM.i32, steps: LM.i32):
    lm.assume(steps >= 1)
    pool   = lm.smem(32768)
    smem_k = pool.view(offset=0,     shape=(64, 64), dtype=lm.bf16, swizzle="128B")
    smem_a = pool.view(offset=16384, shape=(128, 64), dtype=lm.bf16, swizzle="128B")
    acc    = lm.tmem(cols=64, width=64, shape=(128, 64), dtype=lm.f32)
    a_r    = lm.regs(shape=(128, 64), dtype=lm.bf16)
    compute = lm.role(warps=[0, 1, 2, 3])
    mma     = lm.role(warps=[4])
    load    = lm.role(warps=[5])
    k_full  = lm.barrier(count=1, prod=[load], cons=[mma], init_count=1)
    k_empty = lm.barrier(count=1, prod=[mma], cons=[load], init_count=1)
    a_full  = lm.barrier(count=1, prod=[compute], cons=[mma], init_count=1)
    a_empty = lm.barrier(count=1, prod=[mma], cons=[compute], init_count=1)
    with load:
        for t in lm.range(0, n_tiles):
            lm.wait(k_empty, iter=t - 1)
            smem_k.tma_load(K, coords=(0, 64 * t), iter=t, barrier=k_full)
)" + kTail + R"(    with mma:
        for t in lm.range(0, n_tiles):
            lm.wait(k_full, iter=t)
            for j in lm.range(0, steps):
                e = t * steps + j
                lm.wait(a_full, iter=e)
                lm.mma(acc, smem_a[e], smem_k[t], init=True)
                lm.mma_commit(barrier=a_empty, iter=e)
            lm.mma_commit(barrier=k_empty, iter=t)
    with compute:
        for t in lm.range(0, n_tiles):
            for j in lm.range(0, steps):
                e = t * steps + j
                lm.fill(a_r, 0.5)
                lm.wait(a_empty, iter=e - 1)
                lm.copy(smem_a[e], a_r)
                lm.fence_proxy()
                lm.arrive(a_full, iter=e)
)";

// A producer's tail on the ring: the load warp waits for the MMA's last two
// releases of its 2-slot ring after its tile loop (`iter=n_tiles * k_tiles
// - 2` and `- 1`, the ring end E_A * E_B).
inline const std::string kRingTail1 = "        lm.wait(empty, iter=n_tiles * k_tiles - 1)\n";
inline const std::string kRingTail2 = "        lm.wait(empty, iter=n_tiles * k_tiles - 2)\n";
inline const std::string kRingProducerTail = R"(@cake.schedule(target="sm_100a")
def ring_producer_tail(lm, A: LM.tma2d, n_tiles: LM.i32, k_tiles: LM.i32):
    lm.assume(k_tiles >= 1)
    pool   = lm.smem(65536)
    smem_a = pool.view(offset=0, shape=(128, 64), dtype=lm.bf16, stages=2, swizzle="128B")
    acc    = lm.tmem(cols=0, width=128, shape=(128, 128), dtype=lm.f32)
    mma  = lm.role(warps=[4])
    load = lm.role(warps=[5])
    pipe  = lm.pipeline(stages=2)
    full  = lm.barrier(prod=[load], cons=[mma], init_count=1, pipeline=pipe)
    empty = lm.barrier(prod=[mma], cons=[load], init_count=1, pipeline=pipe)
    with load:
        for t in lm.range(0, n_tiles):
            for k in lm.range(0, k_tiles):
                it = t * k_tiles + k
                lm.wait(empty, iter=it - 2)
                smem_a.tma_load(A, coords=(0, 64 * k), iter=it, barrier=full)
)" + kRingTail2 + kRingTail1 + R"(    with mma:
        for t in lm.range(0, n_tiles):
            for k in lm.range(0, k_tiles):
                it = t * k_tiles + k
                lm.wait(full, iter=it)
                lm.mma(acc, smem_a[it], smem_a[it], init=True)
                lm.mma_commit(barrier=empty, iter=it)
)";

}  // namespace exit_tail_kernels
