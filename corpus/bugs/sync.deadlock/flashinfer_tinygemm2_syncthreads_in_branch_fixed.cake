# FIXED form of flashinfer_tinygemm2_syncthreads_in_branch.cake
# (flashinfer-ai/flashinfer PR #2996): the barrier before the reduction
# spans the compute warps only.
# expect: pass
@cake.schedule(target="sm_90a")
def flashinfer_tinygemm2_syncthreads_in_branch_fixed(lm, W: LM.tma2d, X: LM.tma2d, Y: LM.gmem):
    pool   = lm.smem(65536)
    smem_w = pool.view(offset=0,     shape=(16, 64), dtype=lm.bf16, stages=4)
    smem_x = pool.view(offset=8192,  shape=(16, 64), dtype=lm.bf16, stages=4)
    red    = pool.view(offset=16384, shape=(16, 64), dtype=lm.f32, stages=4)
    w_frag = lm.regs(shape=(16, 64), dtype=lm.f32)
    x_frag = lm.regs(shape=(16, 64), dtype=lm.f32)

    compute = lm.role(warps=[0, 1, 2, 3], group=1)
    dma_w   = lm.role(warps=[4, 5, 6, 7], group=1)
    dma_x   = lm.role(warps=[8, 9, 10, 11], group=1)
    w_full  = lm.barrier(count=4, prod=[dma_w], cons=[compute], init_count=1)
    x_full  = lm.barrier(count=4, prod=[dma_x], cons=[compute], init_count=1)
    block   = lm.named_barrier(roles=[compute])

    with dma_w:
        i = lm.instance()
        smem_w.tma_load(W, coords=(16 * i, 0), stage=i, barrier=w_full)

    with dma_x:
        i = lm.instance()
        smem_x.tma_load(X, coords=(16 * i, 0), stage=i, barrier=x_full)

    with compute:
        i = lm.instance()
        lm.wait(w_full, stage=i)
        lm.wait(x_full, stage=i)
        lm.copy(w_frag, smem_w[i])
        lm.copy(x_frag, smem_x[i])
        lm.binary(w_frag, w_frag, x_frag, op="mul")
        lm.copy(red[i], w_frag)
        lm.sync(block)
        if i == 0:
            lm.copy(w_frag, red[0])
            for j in lm.range(1, 4):
                lm.copy(x_frag, red[j])
                lm.binary(w_frag, w_frag, x_frag, op="add")
            lm.copy(Y, w_frag, coords=(0, 0))
