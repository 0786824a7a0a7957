// Persistent test kernels shared by the tests of the tile count and of
// the last K iteration (trip_gaps_test.cpp, trip_proof_test.cpp,
// trip_left_out_wait_test.cpp, trip_fa6_test.cpp) and of a ring index minus
// the tile index (trip_fa7_test.cpp, trip_fa10_test.cpp).
#pragma once

#include <string>

#include "attack_pair.h"
#include "test_util.h"

namespace cake::testing {

// A persistent kernel whose Q tile is reloaded per tile into one slot: the
// producer bar.sync's q_empty before every tile but the first, the consumer
// bar.arrive's it after every tile's K loop but the last's (FA3's
// QueryEmpty, corpus/attention/sm90_fa3_persistent.cake; docs/z3.md "The
// tile count inside the tile loop"; trip_gaps_test.cpp, trip_fa6_test.cpp).
inline constexpr const char* kQueryEmpty = R"(@cake.schedule(target="sm_90a")
def q_empty_handoff(lm, Q: LM.tma2d, A: LM.tma2d, M: LM.i32, K: LM.i32):
    lm.assume(M > 0)
    lm.assume(K > 0)
    acc    = lm.regs(shape=(64, 64), dtype=lm.f32)
    pool   = lm.smem(32768)
    smem_q = pool.view(offset=0,    shape=(64, 64), dtype=lm.bf16, stages=1, swizzle="128B")
    smem_a = pool.view(offset=8192, shape=(64, 64), dtype=lm.bf16, stages=2, swizzle="128B")
    producer = lm.role(warps=[0, 1, 2, 3])
    consumer = lm.role(warps=[4, 5, 6, 7])
    pipe    = lm.pipeline(stages=2)
    q_full  = lm.barrier(count=1, prod=[producer], cons=[consumer], init_count=1)
    full    = lm.barrier(prod=[producer], cons=[consumer], init_count=1, pipeline=pipe)
    empty   = lm.barrier(prod=[consumer], cons=[producer], init_count=1, pipeline=pipe)
    q_empty = lm.named_barrier(roles=[producer, consumer])
    k_tiles = lm.cdiv(K, 64)
    tiles   = lm.cdiv(M, 64)
    with producer:
        for t in lm.range(0, tiles):
            if t > 0:
                lm.sync(q_empty)
            smem_q.tma_load(Q, coords=(t * 64, 0), iter=t, barrier=q_full)
            for k in lm.range(0, k_tiles):
                it = t * k_tiles + k
                lm.wait(empty, iter=it - 2)
                smem_a.tma_load(A, coords=(0, k * 64), iter=it, barrier=full)
    with consumer:
        for t in lm.range(0, tiles):
            lm.wait(q_full, iter=t)
            for k in lm.range(0, k_tiles):
                it = t * k_tiles + k
                lm.wait(full, iter=it)
                lm.mma(acc, smem_q[t], smem_a[it], init=(k == 0))
                lm.mma_commit()
                lm.mma_wait(pending=0)
                lm.arrive(empty, iter=it)
            if t + 1 < tiles:
                lm.bar_arrive(q_empty)
)";

// kQueryEmpty with its consumer's K-step wait only where `cond` holds (a
// wait skipped where it is false; guards on the tile and K loop variables:
// sound43_test.cpp, gap43_test.cpp).
inline std::string queryEmptyWaitIf(const std::string& cond) {
  return replace(kQueryEmpty, "                lm.wait(full, iter=it)\n",
                 "                if " + cond + ":\n                    lm.wait(full, iter=it)\n");
}

// kQueryEmpty's one-slot Q hand-off as a two-slot Q ring behind mbarriers,
// handed back after every tile's K loop but the last two's (the loader of
// tile t waits for tile t - 2's release; the tile count read to depth 2:
// trip_fa8_test.cpp, trip_fa13_test.cpp edits it further).
inline const std::string kQueryRingRelease = "            if t + 2 < tiles:\n                lm.arrive(q_empty, iter=t)\n";
inline std::string queryRing() {
  return pairs::edited(kQueryEmpty, {
      {"def q_empty_handoff(", "def q_ring_release("},
      {"stages=1, swizzle", "stages=2, swizzle"},  // (smem_q's)
      {"offset=8192,", "offset=16384,"},
      {"    q_full  = lm.barrier(count=1, prod=[producer], cons=[consumer], init_count=1)\n",
       "    q_full  = lm.barrier(prod=[producer], cons=[consumer], init_count=1, pipeline=pipe)\n"},
      {"    q_empty = lm.named_barrier(roles=[producer, consumer])\n",
       "    q_empty = lm.barrier(prod=[consumer], cons=[producer], init_count=1, pipeline=pipe)\n"},
      {"            if t > 0:\n                lm.sync(q_empty)\n", "            lm.wait(q_empty, iter=t - 2)\n"},
      {"            if t + 1 < tiles:\n                lm.bar_arrive(q_empty)\n", kQueryRingRelease},
  });
}

// queryRing() whose consumer waits for its tile's Q in the tile's first K
// iteration (`if k == 0:`, a first K iteration of its own) instead of
// before its K loop (trip_fa13_test.cpp, trip_fa14_test.cpp).
inline const std::string kQRingFirstWaitLine = "                if k == 0:\n                    lm.wait(q_full, iter=t)\n";
inline std::string qRingFirstWait() {
  return pairs::edited(queryRing(), {
      {"def q_ring_release(", "def q_ring_first_wait("},
      {"            lm.wait(q_full, iter=t)\n", ""},
      {"                lm.wait(full, iter=it)\n", kQRingFirstWaitLine + "                lm.wait(full, iter=it)\n"},
  });
}

// kRingEnd whose consumer keeps one wgmma group in flight in every K
// iteration but its tile's last, and releases the slot before (docs/z3.md
// "The last K iteration"; trip_proof_test.cpp, trip_left_out_wait_test.cpp,
// trip_fa6_test.cpp).
inline std::string ringEndLastIteration() {
  return replace(
      kRingEnd,
      "                lm.mma_wait(pending=1)\n                if k > 0:\n                    lm.arrive(empty, iter=it "
      "- 1)\n            lm.mma_wait(pending=0)\n            lm.arrive(empty, iter=t * k_tiles + k_tiles - 1)\n",
      "                if k + 1 < k_tiles:\n                    lm.mma_wait(pending=1)\n                else:\n           "
      "         lm.mma_wait(pending=0)\n                if it > 0:\n                    lm.arrive(empty, iter=it - "
      "1)\n");
}

// FA4's correction shape (docs/z3.md "A ring index minus the tile index"):
// load, MMA, softmax and correction; the MMA waits for the correction's
// rescale at `iter=g - t - 1` (its count lags the ring index by one per
// tile) and, in a tile's first K iteration, for the tile before's O at
// `iter=t - 1` (trip_fa7_test.cpp, trip_fa10_test.cpp).
inline const std::string kRingMinusTile = R"CAKE(
@cake.schedule(target="sm_100a")
def p_ring_minus_tile(lm, Vt: LM.tma3d, O: LM.tma3d, seqlen_k: LM.i32, T: LM.i32):
    lm.assume(seqlen_k > 0)
    lm.assume(T > 0)
    pool    = lm.smem(99328)
    smem_vt = pool.view(offset=0,     shape=(64, 128),  dtype=lm.bf16, stages=2)
    smem_p  = pool.view(offset=32768, shape=(128, 128), dtype=lm.bf16, stages=1)
    smem_o  = pool.view(offset=65536, shape=(128, 64),  dtype=lm.bf16, stages=1, swizzle="128B")
    smem_sc = pool.view(offset=98304, shape=(128, 1), dtype=lm.f32, stages=2)
    tmem_o  = lm.tmem(cols=0, width=64, shape=(128, 64), dtype=lm.f32)
    s = lm.regs(shape=(128, 128), dtype=lm.f32)
    o = lm.regs(shape=(128, 64), dtype=lm.f32)
    sc = lm.regs(shape=(128, 1), dtype=lm.f32)
    scale = lm.regs(shape=(128, 1), dtype=lm.f32)

    soft = lm.role(warps=[0, 1, 2, 3])
    corr = lm.role(warps=[4, 5, 6, 7])
    mma  = lm.role(warps=[8])
    load = lm.role(warps=[9])

    two     = lm.pipeline(stages=2)
    v_full  = lm.barrier(prod=[load], cons=[mma], init_count=1, pipeline=two)
    v_empty = lm.barrier(prod=[mma], cons=[load], init_count=1, pipeline=two)
    sc_full  = lm.barrier(prod=[soft], cons=[corr], init_count=1, pipeline=two)
    sc_empty = lm.barrier(prod=[corr], cons=[soft], init_count=1, pipeline=two)
    p_full  = lm.barrier(count=1, prod=[soft], cons=[mma], init_count=1)
    p_empty = lm.barrier(count=1, prod=[mma], cons=[soft], init_count=1)
    o_done  = lm.barrier(count=1, prod=[mma], cons=[corr], init_count=1)
    o_ready = lm.barrier(count=1, prod=[corr], cons=[mma], init_count=1)
    o_full  = lm.barrier(count=1, prod=[mma], cons=[corr], init_count=1)
    o_empty = lm.barrier(count=1, prod=[corr], cons=[mma], init_count=1)

    n_blocks = lm.cdiv(seqlen_k, 128)

    with load:
        for t in lm.range(0, T):
            for j in lm.range(0, n_blocks):
                g = t * n_blocks + j
                lm.wait(v_empty, iter=g - 2)
                smem_vt.tma_load(Vt, coords=(0, 0, j * 128), iter=g, barrier=v_full)

    with mma:
        for t in lm.range(0, T):
            for j in lm.range(0, n_blocks):
                g = t * n_blocks + j
                lm.wait(v_full, iter=g)
                lm.wait(p_full, iter=g)
                if j == 0:
                    lm.wait(o_empty, iter=t - 1)
                else:
                    lm.wait(o_ready, iter=g - t - 1)
                lm.mma(tmem_o, smem_p[0], smem_vt[g], init=(j == 0))
                lm.mma_commit(barrier=v_empty, iter=g)
                lm.mma_commit(barrier=p_empty, iter=g)
                lm.mma_commit(barrier=o_done, iter=g)
            lm.mma_commit(barrier=o_full, iter=t)

    with soft:
        for t in lm.range(0, T):
            for j in lm.range(0, n_blocks):
                g = t * n_blocks + j
                lm.fill(s, 1.0)
                lm.fill(sc, 1.0)
                lm.wait(sc_empty, iter=g - 2)
                lm.copy(smem_sc[g], sc)
                lm.arrive(sc_full, iter=g)
                lm.wait(p_empty, iter=g - 1)
                lm.copy(smem_p[0], s)
                lm.fence_proxy()
                lm.arrive(p_full, iter=g)

    with corr:
        for t in lm.range(0, T):
            q0 = (lm.block_idx(0) + t * lm.grid_dim(0)) * 128
            for j in lm.range(0, n_blocks):
                g = t * n_blocks + j
                lm.wait(sc_full, iter=g)
                lm.copy(scale, smem_sc[g])
                lm.arrive(sc_empty, iter=g)
                if j > 0:
                    lm.wait(o_done, iter=g - 1)
                    lm.tmem_load(o, tmem_o)
                    lm.tmem_load_wait()
                    lm.binary(o, o, scale, op="mul")
                    lm.tmem_store(tmem_o, o)
                    lm.tmem_store_wait()
                    lm.arrive(o_ready, iter=g - t - 1)
            lm.wait(o_full, iter=t)
            lm.tmem_load(o, tmem_o)
            lm.tmem_load_wait()
            lm.arrive(o_empty, iter=t)
            lm.tma_store_wait(pending=0)
            lm.copy(smem_o[0], o)
            lm.fence_proxy()
            smem_o.tma_store(O, coords=(0, q0, 0), stage=0)
            lm.tma_store_commit()
        lm.tma_store_wait(pending=0)
)CAKE";

// A persistent sm_100 kernel: the loader fills a two-slot Q ring and a
// two-slot K ring, the MMA warp accumulates each tile's blocks into TMEM
// (committing o_done per block), and an epilogue warpgroup paces the MMA
// per block (o_ready), waits for its tile's last block at the tile's ring
// end, reads O and hands the tile's Q slot back to the loader on every
// tile but the last two (tests/encoder/trip_fa12_test.cpp,
// trip_last_commits_test.cpp).
inline const std::string kTileEndKernel = R"CAKE(
@cake.schedule(target="sm_100a")
def ring_end_last_tiles(lm, Q: LM.tma3d, K: LM.tma3d, seqlen_k: LM.i32, T: LM.i32):
    lm.assume(seqlen_k > 0)
    lm.assume(T > 0)
    pool   = lm.smem(65536)
    smem_q = pool.view(offset=0,     shape=(128, 64), dtype=lm.bf16, stages=2, swizzle="128B")
    smem_k = pool.view(offset=32768, shape=(128, 64), dtype=lm.bf16, stages=2, swizzle="128B")
    tmem_o = lm.tmem(cols=0, width=128, shape=(128, 128), dtype=lm.f32)
    o = lm.regs(shape=(128, 128), dtype=lm.f32)
    r = lm.regs(shape=(128, 1), dtype=lm.f32)

    epi  = lm.role(warps=[0, 1, 2, 3])
    mma  = lm.role(warps=[4])
    load = lm.role(warps=[5])

    two     = lm.pipeline(stages=2)
    q_full  = lm.barrier(prod=[load], cons=[mma], init_count=1, pipeline=two)
    q_empty = lm.barrier(prod=[epi], cons=[load], init_count=1, pipeline=two)
    k_full  = lm.barrier(prod=[load], cons=[mma], init_count=1, pipeline=two)
    k_empty = lm.barrier(prod=[mma], cons=[load], init_count=1, pipeline=two)
    o_done  = lm.barrier(count=1, prod=[mma], cons=[epi], init_count=1)
    o_ready = lm.barrier(count=1, prod=[epi], cons=[mma], init_count=1)

    n_blocks = lm.cdiv(seqlen_k, 128)

    with load:
        for t in lm.range(0, T):
            lm.wait(q_empty, iter=t - 2)
            smem_q.tma_load(Q, coords=(0, t * 128, 0), iter=t, barrier=q_full)
            for j in lm.range(0, n_blocks):
                g = t * n_blocks + j
                lm.wait(k_empty, iter=g - 2)
                smem_k.tma_load(K, coords=(0, j * 128, 0), iter=g, barrier=k_full)

    with mma:
        for t in lm.range(0, T):
            lm.wait(q_full, iter=t)
            for j in lm.range(0, n_blocks):
                g = t * n_blocks + j
                lm.wait(k_full, iter=g)
                lm.wait(o_ready, iter=g - 1)
                lm.mma(tmem_o, smem_q[t], smem_k[g], init=(j == 0))
                lm.mma_commit(barrier=k_empty, iter=g)
                lm.mma_commit(barrier=o_done, iter=g)

    with epi:
        for t in lm.range(0, T):
            for j in lm.range(0, n_blocks):
                g = t * n_blocks + j
                lm.fill(r, 0.0)
                if g > 0:
                    lm.wait(o_done, iter=g - 1)
                    lm.arrive(o_ready, iter=g - 1)
            lm.wait(o_done, iter=t * n_blocks + n_blocks - 1)
            if t + 2 < T:
                lm.arrive(q_empty, iter=t)
            lm.tmem_load(o, tmem_o)
            lm.tmem_load_wait()
)CAKE";

}  // namespace cake::testing
