# Reduced from corpus/gemm/sm100_deepgemm_sf_every_4_kblocks_persistent.cake
# (helper fp49, session 49): a persistent producer whose K loop loads an
# extra TMA box into the stage on even k-blocks only (k % 2 == 0, the
# k-block index restarting per tile), with the full barrier armed by hand
# for the bytes issued. Correct. Session 49: `cake check` exited 0,
# *checked*; `--require-proof` exited 2 (the residue case lm.cdiv(K, 64)
# % 2 == 1 ran out of the budget: the data an earlier tile left in the odd
# stages blocked the ring shift). Since helper persist50 (session 50) it is
# *proved* (docs/z3.md "Data tags that no read finds fresh"); the DeepGEMM
# file is not yet, at the default budget (docs/known-limits.md "Per-tile
# residues of k in a persistent kernel").
# expect: pass
@cake.schedule(target="sm_100a")
def min_guarded_load(lm, A: LM.tma2d, S: LM.tma2d, K: LM.i32, n_tiles: LM.i32):
    lm.assume(K > 0)
    lm.assume(n_tiles >= 0)
    pool   = lm.smem(65536 + 2048)
    smem_a = pool.view(offset=0,     shape=(128, 64), dtype=lm.bf16, stages=4, swizzle="128B")
    smem_s = pool.view(offset=65536, shape=(1, 128),  dtype=lm.i32,  stages=4)
    acc    = lm.tmem(cols=0, width=128, shape=(128, 128), dtype=lm.f32)

    load = lm.role(warps=[0])
    mma  = lm.role(warps=[1])

    pipe  = lm.pipeline(stages=4)
    full  = lm.barrier(prod=[load], cons=[mma], init_count=1, pipeline=pipe)
    empty = lm.barrier(prod=[mma], cons=[load], init_count=1, pipeline=pipe)

    k_tiles = lm.cdiv(K, 64)

    with load:
        for t in lm.range(0, n_tiles):
            for k in lm.range(0, k_tiles):
                it = t * k_tiles + k
                lm.wait(empty, iter=it - 4)
                smem_a.tma_load(A, coords=(t * 128, k * 64), iter=it, barrier=full)
                if k % 2 == 0:
                    smem_s.tma_load(S, coords=(k, t * 128), iter=it, barrier=full)
                    lm.expect_tx(full, 16896, iter=it)
                else:
                    lm.expect_tx(full, 16384, iter=it)
        for s in lm.range(0, 4):
            lm.wait(empty, iter=n_tiles * k_tiles + s - 4)

    with mma:
        for t in lm.range(0, n_tiles):
            for k in lm.range(0, k_tiles):
                it = t * k_tiles + k
                lm.wait(full, iter=it)
                lm.mma(acc, smem_a[it], smem_a[it], init=(k == 0))
                lm.mma_commit(barrier=empty, iter=it)
