# FIXED form of rocsolver_potf2_simple_diag_read_vs_sqrt_store.cake
# (ROCm/rocm-libraries PR #10909, ROCm/ROCm issue #6623): potf2_simple's
# loop over kcol with the __syncthreads() between every thread's read of the
# diagonal `akk = real(A[kk])` and thread 0's store `A[kk] = sqrt(akk)`, as
# in the stored develop kernel (roclapack_potf2_specialized_kernels.hpp,
# both the lower and the upper branch carry it).  The model is the broken
# file's (4 one-wave instances, an 8 x 8 matrix, the diagonal of column k in
# diag[k]) with that one barrier added.
# expect: pass
@cake.schedule(target="sm_80")
def rocsolver_potf2_simple_diag_read_vs_sqrt_store_fixed(lm, A: LM.gmem, L: LM.gmem):
    pool = lm.smem(512)
    col  = pool.view(offset=0,   shape=(8, 1), dtype=lm.f32, stages=8)
    diag = pool.view(offset=256, shape=(1, 1), dtype=lm.f32, stages=8)
    c    = lm.regs(shape=(8, 1), dtype=lm.f32)
    d    = lm.regs(shape=(1, 1), dtype=lm.f32)
    akk  = lm.regs(shape=(1, 1), dtype=lm.f32)
    lkk  = lm.regs(shape=(1, 1), dtype=lm.f32)
    v    = lm.regs(shape=(2, 1), dtype=lm.f32)
    vi   = lm.regs(shape=(8, 1), dtype=lm.f32)
    vj   = lm.regs(shape=(1, 1), dtype=lm.f32)
    aj   = lm.regs(shape=(8, 1), dtype=lm.f32)
    ajj  = lm.regs(shape=(1, 1), dtype=lm.f32)

    waves = lm.role(warps=[0, 1, 2, 3], group=1)
    block = lm.named_barrier(roles=[waves])

    with waves:
        w = lm.instance()
        for j in lm.range(w, 8, 4):                       # Ash = packed A
            lm.copy(c, A, coords=(0, j))
            lm.copy(col[j], c)
            lm.copy(d, A, coords=(j, j))
            lm.copy(diag[j], d)
        lm.sync(block)
        for k in lm.range(0, 8):
            lm.copy(akk, diag[k])                         # akk = real(A[kk])
            lm.sync(block)                                # the fix (PR #10909)
            lm.unary(lkk, akk, op="sqrt")
            if w == 0:
                lm.copy(diag[k], lkk)                     # tid 0: A[kk] = lkk
            lm.sync(block)
            lm.copy(v, col[k][2 * w:2 * w + 2, :])        # (2) vl21 = va21 / l11
            lm.binary(v, v, lkk, op="div")
            lm.copy(col[k][2 * w:2 * w + 2, :], v)
            lm.sync(block)
            lm.copy(vi, col[k])                           # (3a) A22 -= vl21 vl21'
            for j in lm.range(k + 1 + w, 8, 4):
                lm.copy(vj, col[k][j:j + 1, :])
                lm.copy(aj, col[j])
                lm.binary(vi, vi, vj, op="mul")
                lm.binary(aj, aj, vi, op="sub")
                lm.copy(col[j], aj)
                lm.copy(ajj, diag[j])
                lm.binary(vj, vj, vj, op="mul")
                lm.binary(ajj, ajj, vj, op="sub")
                lm.copy(diag[j], ajj)
            lm.sync(block)
        for j in lm.range(w, 8, 4):                       # A = Ash
            lm.copy(c, col[j])
            lm.copy(L, c, coords=(0, j))
            lm.copy(d, diag[j])
            lm.copy(L, d, coords=(j, j))
