// The two forms of docs/z3.md "Two steps toward the TLX split-K proof"
// (helper tlx46, session 46): a persistent GEMM whose tiles walk from the
// block index by a constant step (kBlockStep) and a split-K walk whose empty
// splits every role skips (kSplitK). Shared by skipped_tiles46_test.cpp,
// sound47_test.cpp, peeled_first47_test.cpp (kHead) and
// bench/attacks/sound47_mutants.py.
#pragma once

#include <string>

namespace skipped_tiles_kernels {

// The roles and barriers both forms share: a 1-slot A/B ring and one TMEM
// buffer with implicit per-slot phases (TLX's running counters).
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

// The MMA role's tile: one TMEM buffer taken, `count` K iterations over
// the 1-slot ring, the buffer handed to the epilogue; each line indented by
// `indent` spaces.
inline std::string mmaTile(int indent, const std::string& count) {
  const std::string pad(static_cast<size_t>(indent), ' ');
  return pad + "lm.wait(tmem_empty, stage=0)\n" + pad + "for kk in lm.range(0, " + count + "):\n" + pad +
         "    lm.wait(full, stage=0)\n" + pad + "    lm.mma(acc, smem_a[0], smem_b[0], init=(kk == 0))\n" + pad +
         "    lm.mma_commit(barrier=empty, stage=0)\n" + pad + "lm.mma_commit(barrier=tmem_full, stage=0)\n";
}

// A persistent GEMM whose CTA walks tiles from its block index by the
// constant 4.
inline const std::string kBlockStep =
    R"(@cake.schedule(target="sm_100a")
def tiles_from_block_by_constant_step(lm, A: LM.tma2d, B: LM.tma2d, W: LM.gmem, M: LM.i32, N: LM.i32, K: LM.i32):
    lm.assume(M > 0)
    lm.assume(N > 0)
    lm.assume(K > 0)
)" + kHead + R"(    tiles_m   = lm.cdiv(M, 128)
    num_tiles = tiles_m * lm.cdiv(N, 128)
    with producer:
        for tile in lm.range(lm.block_idx(0), num_tiles, 4):
            for kk in lm.range(0, k_tiles):
                lm.wait(empty, stage=0)
                smem_a.tma_load(A, coords=((tile % tiles_m) * 128, kk * 64), stage=0, barrier=full)
                smem_b.tma_load(B, coords=((tile // tiles_m) * 128, kk * 64), stage=0, barrier=full)
    with mma:
        lm.arrive(empty, stage=0)
        for tile in lm.range(lm.block_idx(0), num_tiles, 4):
)" + mmaTile(12, "k_tiles") + R"(    with epi:
        lm.arrive(tmem_empty, stage=0)
        for tile in lm.range(lm.block_idx(0), num_tiles, 4):
            lm.wait(tmem_full, stage=0)
            lm.tmem_load(res, acc)
            lm.tmem_load_wait()
            lm.arrive(tmem_empty, stage=0)
            lm.copy(W, res, coords=((tile % tiles_m) * 128, (tile // tiles_m) * 128))
)";

// A split-K walk over S splits of kp K tiles each; a split past the K
// tiles is empty, and every role skips it (`k1 > k0`).
inline const std::string kSplitK =
    R"(@cake.schedule(target="sm_100a")
def split_k_tiles_skipped_in_every_role(lm, A: LM.tma2d, B: LM.tma2d, W: LM.gmem, K: LM.i32, S: LM.i32):
    lm.assume(K > 0)
    lm.assume(S >= 1)
)" + kHead + R"(    kp = lm.cdiv(k_tiles, S)
    with producer:
        for split in lm.range(0, S):
            k0 = split * kp
            k1 = min(k0 + kp, k_tiles)
            if k1 > k0:
                for kk in lm.range(0, k1 - k0):
                    lm.wait(empty, stage=0)
                    smem_a.tma_load(A, coords=(0, (k0 + kk) * 64), stage=0, barrier=full)
                    smem_b.tma_load(B, coords=(0, (k0 + kk) * 64), stage=0, barrier=full)
    with mma:
        lm.arrive(empty, stage=0)
        for split in lm.range(0, S):
            k0 = split * kp
            k1 = min(k0 + kp, k_tiles)
            if k1 > k0:
)" + mmaTile(16, "k1 - k0") + R"(    with epi:
        lm.arrive(tmem_empty, stage=0)
        for split in lm.range(0, S):
            k0 = split * kp
            if min(k0 + kp, k_tiles) > k0:
                lm.wait(tmem_full, stage=0)
                lm.tmem_load(res, acc)
                lm.tmem_load_wait()
                lm.arrive(tmem_empty, stage=0)
                lm.copy(W, res, coords=(split * 128, 0))
)";

}  // namespace skipped_tiles_kernels
