# FIXED: pytorch_multi_margin_backward_target_write_no_barrier.cake as
# pytorch/pytorch PR #158994 fixes it (issue #158921): a __syncthreads()
# after thread 0 stores gradInput_k[target_k], so the thread that owns
# column target_k scales thread 0's sum.
# expect: pass
@cake.schedule(target="sm_80")
def multi_margin_backward_synced(lm, GI: LM.gmem, GO: LM.gmem):
    pool = lm.smem(512)
    buf  = pool.view(offset=0, shape=(1, 32), dtype=lm.f32, stages=4)
    g    = lm.regs(shape=(1, 32), dtype=lm.f32)
    part = lm.regs(shape=(1, 32), dtype=lm.f32)
    tot  = lm.regs(shape=(1, 1), dtype=lm.f32)
    go   = lm.regs(shape=(1, 1), dtype=lm.f32)

    block = lm.role(warps=[0, 1, 2, 3], group=1)
    bar   = lm.named_barrier(roles=[block])

    with block:
        w = lm.instance()
        k = lm.block_idx(0)
        lm.fill(g, 0.0)
        lm.copy(GI, g, coords=(k, 32 * w))                 # gradInput_k[i] = h
        lm.copy(buf[w], g)                                 # buffer[threadIdx.x] -= h
        lm.sync(bar)
        if w == 0:
            lm.fill(tot, 0.0)
            for s in lm.range(0, 4):
                lm.copy(part, buf[s])
                lm.reduce(go, part, op="sum", axis=1)
                lm.binary(tot, tot, go, op="add")
            lm.copy(GI, tot, coords=(k, 37))           # gradInput_k[target_k] = ...
        lm.sync(bar)                                       # the fix
        lm.copy(go, GO, coords=(0, 0))
        lm.copy(g, GI, coords=(k, 32 * w))                 # gradInput_k[i] *= *gradOutput_k
        lm.binary(g, g, go, op="mul")
        lm.copy(GI, g, coords=(k, 32 * w))
