# FIXED form of llamacpp_fattn_mma_meta_combine_syncthreads_in_branch.cake
# (ggml-org/llama.cpp PR #27870): the __syncthreads() between reading the
# group's meta and writing the combined meta back is taken out of the
# threadIdx.y % np == 0 branch, so every warp of the block reaches it; the
# compute and the write-back stay with the group leaders.  Same model as
# the broken file.
# expect: pass
@cake.schedule(target="sm_80")
def llamacpp_fattn_mma_meta_combine_syncthreads_in_branch_fixed(lm, KQ: LM.gmem, VKQ: LM.gmem, Dst: LM.gmem):
    pool = lm.smem(1024)
    meta = pool.view(offset=0,   shape=(1, 32), dtype=lm.f32, stages=4)   # tile_Q padding
    vkqs = pool.view(offset=512, shape=(1, 32), dtype=lm.f32, stages=4)   # VKQ combine buffer
    cmr  = lm.regs(shape=(1, 32), dtype=lm.f32)
    m1   = lm.regs(shape=(1, 32), dtype=lm.f32)
    acc  = lm.regs(shape=(1, 32), dtype=lm.f32)
    oth  = lm.regs(shape=(1, 32), dtype=lm.f32)

    block = lm.role(warps=[0, 1, 2, 3], group=1)
    bar   = lm.named_barrier(roles=[block])

    with block:
        w = lm.instance()                               # threadIdx.y
        lm.copy(cmr, KQ, coords=(0, 32 * w))            # KQ max / rowsum of this warp
        lm.copy(acc, VKQ, coords=(0, 32 * w))           # its VKQ accumulator
        lm.copy(meta[w], cmr)
        lm.sync(bar)
        if w % 2 == 0:                                  # threadIdx.y % np == 0
            lm.copy(m1, meta[w + 1])
            lm.binary(cmr, cmr, m1, op="max")           # KQ_cmn, KQ_cms, KQ_crs
        lm.sync(bar)                                    # the fix: every warp
        if w % 2 == 0:
            lm.copy(meta[w], cmr)                       # combined meta, both warps
            lm.copy(meta[w + 1], cmr)
        lm.sync(bar)                                    # if (np > 1)
        lm.copy(m1, meta[w])                            # this warp's scale
        lm.binary(acc, acc, m1, op="mul")
        lm.copy(vkqs[w], acc)
        lm.sync(bar)
        if w % 2 == 0:
            lm.copy(oth, vkqs[w + 1])
            lm.binary(acc, acc, oth, op="add")
            lm.copy(Dst, acc, coords=(0, 16 * w))
