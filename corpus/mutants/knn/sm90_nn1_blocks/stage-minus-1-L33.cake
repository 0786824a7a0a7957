# mutant: stage-minus-1
# original: corpus/knn/sm90_nn1_blocks.cake
# line: 33: smem_q.tma_load(Q, coords=(q0, c * 64), stage=c, barrier=q_full)
# change: stage: `c` -> `(c + 1) % 2`
# label: benign: no violation under exhaustive exploration with Ndb in {1, 144, 272, 400, 528, 1040}; block_idx 0 of grid_dim 1; 1052 states (explicit-state simulator (encoder/simulator.h))
# expect: pass
# Hopper 1-nearest-neighbour search: 128 queries per CTA (two consumer
# warpgroups, 64 each) stay resident in smem (D = 128: two 128x64 chunks,
# one-shot barrier slots), database blocks of 128 vectors stream through a
# 4-slot ring (two D-chunks per block: it = 2*b + c).  Per block, each
# warpgroup computes ||x||^2 - 2 q.x with wgmma and writes the block's
# minimum and argmin to a partial buffer (a later pass merges the
# partials), so no cross-block select is needed.
# (the original's expectation: see the label above)
@cake.schedule(target="sm_90a")
def nn1_blocks(lm, Q: LM.tma2d, Xdb: LM.tma2d, XN: LM.gmem, PV: LM.gmem, PI: LM.gmem,
               Ndb: LM.i32):
    lm.assume(Ndb > 0)
    pool   = lm.smem(98304)
    smem_q = pool.view(offset=0,     shape=(128, 64), dtype=lm.bf16, stages=2, swizzle="128B")
    smem_x = pool.view(offset=32768, shape=(128, 64), dtype=lm.bf16, stages=4, swizzle="128B")
    s      = lm.regs(shape=(64, 128), dtype=lm.f32)
    xn     = lm.regs(shape=(1, 128), dtype=lm.f32)
    mv     = lm.regs(shape=(64, 1), dtype=lm.f32)
    mi     = lm.regs(shape=(64, 1), dtype=lm.i32)

    producer  = lm.role(warps=[0, 1, 2, 3], regs=40)
    consumers = lm.role(warps=[4, 5, 6, 7, 8, 9, 10, 11], group=4, regs=232)
    q_full = lm.barrier(count=2, prod=[producer], cons=[consumers], init_count=1)
    pipe   = lm.pipeline(stages=4)
    full   = lm.barrier(prod=[producer], cons=[consumers], init_count=1, pipeline=pipe)
    empty  = lm.barrier(prod=[consumers], cons=[producer], init_count=2, pipeline=pipe)

    n_blocks = lm.cdiv(Ndb, 128)
    q0 = lm.block_idx(0) * 128

    with producer:
        for c in lm.range(0, 2):
            smem_q.tma_load(Q, coords=(q0, c * 64), stage=(c + 1) % 2, barrier=q_full)
        for b in lm.range(0, n_blocks):
            for c in lm.range(0, 2):
                it = 2 * b + c
                lm.wait(empty, iter=it - 4)
                smem_x.tma_load(Xdb, coords=(b * 128, c * 64), iter=it, barrier=full)

    with consumers:
        m0 = 64 * lm.instance()
        for c in lm.range(0, 2):
            lm.wait(q_full, stage=c)
        for b in lm.range(0, n_blocks):
            for c in lm.range(0, 2):
                it = 2 * b + c
                lm.wait(full, iter=it)
                lm.mma(s, smem_q[c][m0:m0 + 64, :], smem_x[it], init=(c == 0))
                lm.mma_commit()
                lm.mma_wait(pending=0)
                lm.arrive(empty, iter=it)
            lm.copy(xn, XN, coords=(0, b * 128))
            lm.binary(s, s, -2.0, op="mul")
            lm.binary(s, s, xn, op="add")
            lm.reduce(mv, s, op="min", axis=1)
            lm.reduce(mi, s, op="argmin", axis=1)
            lm.copy(PV, mv, coords=(q0 + m0, b))
            lm.copy(PI, mi, coords=(q0 + m0, b))
