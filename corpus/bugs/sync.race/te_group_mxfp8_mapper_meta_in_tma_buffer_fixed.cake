# FIXED: te_group_mxfp8_mapper_meta_in_tma_buffer.cake as
# NVIDIA/TransformerEngine PR #3483 fixes it: the mapper metadata is kept
# in dedicated static shared memory, outside the bytes the input TMA loads
# write, so the first load cannot overwrite it while a warp still reads it.
# (Static __shared__ storage is modelled as 128 more bytes of the pool.)
# expect: pass
@cake.schedule(target="sm_100a")
def te_group_mxfp8_mapper_meta_static(lm, In: LM.tma2d, Out: LM.gmem, n_blocks: LM.i32):
    lm.assume(n_blocks >= 1)
    pool   = lm.smem(32896)
    in_buf = pool.view(offset=0, shape=(64, 128), dtype=lm.bf16, stages=2)
    meta   = pool.view(offset=32768, shape=(1, 32), dtype=lm.i32, stages=1)   # dedicated (static) smem
    m_w    = lm.regs(shape=(1, 32), dtype=lm.i32)
    m_r    = lm.regs(shape=(1, 32), dtype=lm.i32)
    x      = lm.regs(shape=(16, 128), dtype=lm.bf16)
    q      = lm.regs(shape=(16, 128), dtype=lm.e4m3)

    warps = lm.role(warps=[0, 1, 2, 3], group=1)
    full  = lm.barrier(count=2, prod=[warps], cons=[warps], init_count=1)
    bar   = lm.named_barrier(roles=[warps])

    row0 = lm.block_idx(0) * n_blocks * 64

    with warps:
        w = lm.instance()
        if w == 0:
            lm.fill(m_w, 0)
            lm.copy(meta[0], m_w)                  # the direct mapper's per-expert metadata
        lm.sync(bar)
        lm.copy(m_r, meta[0])                      # every warp reads it
        if w == 0:
            in_buf.tma_load(In, coords=(row0, 0), iter=0, barrier=full)
        for s in lm.range(0, n_blocks):
            lm.wait(full, iter=s)
            lm.copy(x, in_buf[s][16 * w:16 * w + 16, :])
            lm.fence_proxy()
            lm.copy(q, x)
            lm.copy(Out, q, coords=(row0 + 64 * s + 16 * w, 0))
            lm.sync(bar)
            if w == 0:
                if s + 1 < n_blocks:
                    in_buf.tma_load(In, coords=(row0 + 64 * (s + 1), 0), iter=s + 1, barrier=full)
