# BUG (sync.deadlock): FlashInfer's tinygemm2 kernel (csrc/tinygemm2.cu), as
# fixed by flashinfer-ai/flashinfer PR #2996 ("fix: tinygemm2 hang issue due
# to barrier sync").  384 threads: warps 0-3 compute, warps 4-7 issue the
# weight TMA loads and warps 8-11 the activation TMA loads (one elected
# lane each).  After the MMAs the compute warps stage their partial sums in
# shared memory and call __syncthreads() before warp 0 reduces them, but
# __syncthreads() counts every thread of the block and the DMA warps never
# reach it: the block hung intermittently on H100 (synccheck: barrier
# error).  The fix synchronizes only the compute warps.
# Written as an outside author translates __syncthreads(): a named barrier
# over every role of the block (IR.md lm.named_barrier; the thread count
# is derived from the roles), of which only the compute warps call sync.
# Modelled (sm_90a): two DMA roles of four one-warp instances each (each
# warp loads its quarter of the weight / activation tile), four one-warp
# compute instances (each forms the product of its 16 rows in registers
# and stores it to its slot of the reduction buffer); instance 0 then
# reads the four partials, adds them and stores the output.
# Fix: flashinfer_tinygemm2_syncthreads_in_branch_fixed.cake.
# expect: sync.deadlock
@cake.schedule(target="sm_90a")
def flashinfer_tinygemm2_syncthreads_in_branch(lm, W: LM.tma2d, X: LM.tma2d, Y: LM.gmem):
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
    block   = lm.named_barrier(roles=[compute, dma_w, dma_x])

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
        lm.sync(block)   # expect-error: sync.deadlock
        if i == 0:
            lm.copy(w_frag, red[0])
            for j in lm.range(1, 4):
                lm.copy(x_frag, red[j])
                lm.binary(w_frag, w_frag, x_frag, op="add")
            lm.copy(Y, w_frag, coords=(0, 0))
