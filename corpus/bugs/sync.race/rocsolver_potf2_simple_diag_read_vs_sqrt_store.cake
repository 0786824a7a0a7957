# Real bug: ROCm/rocm-libraries PR #10909 (reported as ROCm/ROCm issue
# #6623: rocsolver_dpotrf_strided_batched returns non-Cholesky factors with
# info = 0 on gfx1201, ROCm 7.2.4), in the device function potf2_simple of
# projects/rocsolver/library/src/specialized/
# roclapack_potf2_specialized_kernels.hpp: one workgroup (dim3(BS2, BS2) =
# 1024 threads) factors a small matrix held packed-lower in LDS (Ash).  For
# each column kcol every thread reads the diagonal, `akk = real(A[kk])`, and
# thread 0 then overwrites it, `A[kk] = sqrt(akk)`, with the first
# __syncthreads() only AFTER that store.  A wave that reaches the read late
# observes sqrt(akk), so its lkk is sqrt(sqrt(akk)) and it divides its slice
# of column kcol by the wrong scalar in step (2): the result is not a
# Cholesky factor and info stays 0.  The fix (the barrier #10909 backports to
# the 7.2 branch; the stored develop kernel carries it with the PR's
# comment, "Every thread in the block reads A[kk] just above, and thread 0
# overwrites it just below") puts a __syncthreads() between the read and the
# store; the fixed form is rocsolver_potf2_simple_diag_read_vs_sqrt_store_fixed.cake.
# Written in CAKE IR as an sm_80 schedule: each wave is a one-warp instance
# (group=1) and __syncthreads() a named barrier over the role.  Modelled with
# 4 waves and an 8 x 8 matrix: the diagonal of column k is diag[k], the rest
# of the column col[k] (row r at row r, rows above the diagonal unused);
# step (2) scales rows [2w, 2w + 2) in wave w (the rows its threads own when
# n is larger than a wave, as in the report), step (3a)'s rank-1 update of
# column j runs in wave (j - k - 1) % 4 (threadIdx.y strides the columns),
# each wave reading column k (vl21) once per k rather than once per j.
# Left out: the !isok early exit (whose break diverges once the race makes
# akk non-uniform), the copy of the packed matrix from and back to global
# memory except as one load and one store per column, the conj().
# expect: sync.race
# may-also: data.stale-read
@cake.schedule(target="sm_80")
def rocsolver_potf2_simple_diag_read_vs_sqrt_store(lm, A: LM.gmem, L: LM.gmem):
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
            lm.copy(akk, diag[k])                         # akk = real(A[kk])  # expect-error: sync.race
            lm.unary(lkk, akk, op="sqrt")
            if w == 0:
                lm.copy(diag[k], lkk)                     # tid 0: A[kk] = lkk  # expect-error: sync.race
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
