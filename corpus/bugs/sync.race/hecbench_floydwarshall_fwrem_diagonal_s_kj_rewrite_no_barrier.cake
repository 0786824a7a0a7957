# BUG (sync.race): ORNL/HeCBench issue #261 ("Shared memory race conditions
# in `floydwarshall2-cuda` at (`FWrem_64` kernel)", 2026-06-17, closed; the
# kernel text is src/floydwarshall2-cuda/main.cu, ECL-APSP, at f6a9935b).
# FWrem_64 (1,024 threads, a 64 x 64 tile; warp w owns rows warp_a = w and
# warp_b = w + 32) stages row block k of the pivot rows in s_kj, syncs,
# and relaxes its tile against every row of s_kj:
#     for (int k = 0; k < tile; k++) { sk_a = s_kj[idx2_a]; ...  // line 382
#       idx2_a += tile; ... }
#     if ((y == z) && (y == x + 1) && (x != subm1)) {  // the next diagonal
#       for (int k = 0; k < tile; k++) {
#         if (warp_a == k) s_kj[idx2_a] = ij_aa; ...    // line 408
#         __syncthreads();  ...
# The diagonal block rewrites s_kj row k (k = 0 first) while slower warps
# are still in the relaxation loop reading the rows of s_kj: no barrier
# between the two loops (compute-sanitizer racecheck: "Race reported
# between Read access ... main.cu:382 and Write access ... main.cu:408").
# Modelled: 2 warps of the kernel's 32 (warp w owns rows w and w + 2 of a
# 4-row s_kj; 64 columns, lane_a and lane_b), one-warp instances of one
# role, __syncthreads() a named barrier over them; the block's diagonal
# test from blockIdx.x = y * subm1 + z (`y == x + 1 and z == y` is
# `b // subm1 == x and b % subm1 == x` before the kernel's skip of row x);
# the min-plus updates as register ops.  Left out: the __shfl_sync of the
# pivot column (registers of one warp) and the per-element `!= orig`
# tests of the AdjMat write-back.
# Fix: hecbench_floydwarshall_fwrem_diagonal_s_kj_rewrite_no_barrier_fixed.cake
# (the fixed kernel text is not in the stored corpora: the fixed form has
# a __syncthreads() before the diagonal loop's first write of s_kj).
# expect: sync.race
@cake.schedule(target="sm_80")
def hecbench_fwrem_64(lm, AdjMat: LM.gmem, Krows: LM.gmem, Kcols: LM.gmem, x: LM.i32, subm1: LM.i32):
    lm.assume(subm1 >= 1)
    lm.assume(x >= 0)
    lm.assume(x <= subm1)
    pool = lm.smem(1152)
    s_kj = pool.view(offset=0,    shape=(4, 64), dtype=lm.i32)  # s_kj[tile * tile]: row k, column j
    s_ik = pool.view(offset=1024, shape=(4, 8),  dtype=lm.i32)  # s_ik: row i, column k
    kj  = lm.regs(shape=(2, 64), dtype=lm.i32)
    ik  = lm.regs(shape=(2, 4),  dtype=lm.i32)
    skr = lm.regs(shape=(1, 64), dtype=lm.i32)
    ikc = lm.regs(shape=(1, 1),  dtype=lm.i32)
    ij  = lm.regs(shape=(2, 64), dtype=lm.i32)                  # ij_aa/ab (row w), ij_ba/bb (row w + 2)

    warps = lm.role(warps=[0, 1], group=1)                      # 32 warps in the kernel, 2 here
    block = lm.named_barrier(roles=[warps])

    with warps:
        w = lm.instance()                                       # warp_a = w, warp_b = w + 2
        b = lm.block_idx(0)
        lm.copy(kj[0:1, :], Krows, coords=(w, 0))               # s_kj rows warp_a, warp_b
        lm.copy(kj[1:2, :], Krows, coords=(w + 2, 0))
        lm.copy(s_kj[0][w:w + 1, :], kj[0:1, :])
        lm.copy(s_kj[0][w + 2:w + 3, :], kj[1:2, :])
        lm.copy(ik, Kcols, coords=(w, 0))                       # s_ik rows warp_a, warp_b
        lm.copy(s_ik[0][w:w + 1, 0:4], ik[0:1, :])
        lm.copy(s_ik[0][w + 2:w + 3, 0:4], ik[1:2, :])
        lm.copy(ij, AdjMat, coords=(2 * w, 0))
        lm.sync(block)
        for k in lm.range(0, 4):                                # for (k < tile): all rows of s_kj
            lm.copy(skr, s_kj[0][k:k + 1, :])  # expect-error: sync.race
            lm.copy(ikc, s_ik[0][k:k + 1, w:w + 1])
            lm.binary(ij, ij, skr, op="min")
        if b // subm1 == x and b % subm1 == x and x != subm1:   # the diagonal in next iteration
            for k in lm.range(0, 4):
                if k % 2 == w:                                  # warp_a == k or warp_b == k
                    lm.copy(s_kj[0][k:k + 1, :], ij[k // 2:k // 2 + 1, :])  # expect-error: sync.race
                lm.sync(block)
                lm.copy(skr, s_kj[0][k:k + 1, :])               # sk_a, sk_b
                lm.binary(ij, ij, skr, op="min")
                if k % 2 == w:
                    lm.copy(Krows, ij[k // 2:k // 2 + 1, :], coords=(k, 0))
                lm.copy(s_ik[0][k:k + 1, w:w + 1], ij[0:1, 0:1])    # lane == k: s_ik[k][warp]
                lm.copy(s_ik[0][k:k + 1, w + 2:w + 3], ij[1:2, 0:1])
            lm.sync(block)
            lm.copy(ik[0:1, :], s_ik[0][w:w + 1, 0:4])          # kcols = s_ik rows of this warp
            lm.copy(Kcols, ik[0:1, :], coords=(w, 4))
        lm.copy(AdjMat, ij, coords=(2 * w, 64))
