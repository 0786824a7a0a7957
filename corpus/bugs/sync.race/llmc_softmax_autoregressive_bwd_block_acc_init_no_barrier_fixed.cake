# FIXED form of llmc_softmax_autoregressive_bwd_block_acc_init_no_barrier.cake
# (karpathy/llm.c PR #847): a block.sync() between the zeroing of
# block_acc by warp 0 and the per-warp stores of the partial sums.  Same
# model as the broken file.
# expect: pass
@cake.schedule(target="sm_80")
def llmc_softmax_autoregressive_bwd_block_acc_init_no_barrier_fixed(lm, Att: LM.gmem, DAtt: LM.gmem,
                                                              DPreAtt: LM.gmem):
    pool  = lm.smem(256)
    acc   = pool.view(offset=0, shape=(1, 32), dtype=lm.f32)       # block_acc[32]
    zero  = lm.regs(shape=(1, 32), dtype=lm.f32)
    att   = lm.regs(shape=(1, 32), dtype=lm.f32)
    datt  = lm.regs(shape=(1, 32), dtype=lm.f32)
    prod  = lm.regs(shape=(1, 32), dtype=lm.f32)
    part  = lm.regs(shape=(1, 1), dtype=lm.f32)
    allw  = lm.regs(shape=(1, 32), dtype=lm.f32)
    total = lm.regs(shape=(1, 1), dtype=lm.f32)

    block = lm.role(warps=[0, 1, 2, 3], group=1)
    bar   = lm.named_barrier(roles=[block])

    with block:
        w = lm.instance()                               # warp.meta_group_rank()
        t = lm.block_idx(0)
        if w == 0:
            lm.fill(zero, 0.0)
            lm.copy(acc[0], zero)                       # A: block_acc[lane] = 0
        lm.sync(bar)                                    # the fix
        lm.copy(att, Att, coords=(t, 32 * w))
        lm.copy(datt, DAtt, coords=(t, 32 * w))
        lm.binary(prod, att, datt, op="mul")
        lm.reduce(part, prod, op="sum", axis=1)         # cg::reduce(warp, local_sum)
        lm.copy(acc[0][0:1, w:w + 1], part)             # B: block_acc[warp] = ...
        lm.sync(bar)                                    # block.sync()
        lm.copy(allw, acc[0])                           # C: block_acc[lane]
        lm.reduce(total, allw, op="sum", axis=1)
        lm.copy(DPreAtt, total, coords=(t, w))
