# FIXED form of hecbench_floydwarshall_fwrem_diagonal_s_kj_rewrite_no_barrier.cake
# (ORNL/HeCBench issue #261): a __syncthreads() between the relaxation
# loop's reads of s_kj and the diagonal loop's first write of it.  Proved
# since helper hunt46b (session 46): the guard's remainder by the parameter
# subm1 had the proof's guard enumeration use its budget up (docs/z3.md
# "Guards on a remainder by a parameter").
# lower: unsupported (a fragment sliced by row: the rows warp_a and warp_b of ij; the lowering slices whole row cycles of a warp)
# expect: pass
@cake.schedule(target="sm_80")
def hecbench_fwrem_64_fixed(lm, AdjMat: LM.gmem, Krows: LM.gmem, Kcols: LM.gmem, x: LM.i32, subm1: LM.i32):
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
            lm.copy(skr, s_kj[0][k:k + 1, :])
            lm.copy(ikc, s_ik[0][k:k + 1, w:w + 1])
            lm.binary(ij, ij, skr, op="min")
        if b // subm1 == x and b % subm1 == x and x != subm1:   # the diagonal in next iteration
            lm.sync(block)                                      # the fix: every warp done with s_kj
            for k in lm.range(0, 4):
                if k % 2 == w:                                  # warp_a == k or warp_b == k
                    lm.copy(s_kj[0][k:k + 1, :], ij[k // 2:k // 2 + 1, :])
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
