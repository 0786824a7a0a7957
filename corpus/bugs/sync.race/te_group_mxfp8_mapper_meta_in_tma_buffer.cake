# BUG (sync.race): NVIDIA/TransformerEngine PR #3483 ("[Common] Fix Grouped
# MXFP8 work mapping and TMA synchronization", addresses issue #3474: an
# illegal memory access in grouped MXFP8 quantize on GB200), bug 3 of the
# PR: "the direct mapper stored per-expert metadata in dynamic shared
# memory that was also used as the destination of asynchronous TMA loads.
# A TMA load could therefore overwrite the metadata before every warp had
# consumed it, resulting in corrupted tensor metadata and invalid
# global-memory addresses.  The mapper metadata is now kept in dedicated
# static shared memory" (te_group_mxfp8_mapper_meta_in_tma_buffer_fixed.cake).
# The kernel (transformer_engine/common/cast/mxfp8/group_quantize_mxfp8.cuh):
# the leading thread maps the CTA's work to an expert and writes the
# expert's metadata (row offset, sizes) into shared memory, a barrier
# publishes it, every warp reads it, and the leading thread starts the TMA
# loads of the input tile ring - whose first stage is the same bytes.
# Written in CAKE IR: 4 warps, each its own instance (warp 0's elected
# thread is the leading thread; __syncthreads is a named barrier over the
# warps), a 2-stage 64x128 bf16 input ring filled by TMA (`full`, one
# expect_tx per stage), the metadata as a 32-int view at byte 0 of the
# same pool; each warp reads its 16-row band of a stage, quantizes it
# (a cast to e4m3) and stores it to global memory; a generic read of a
# TMA-filled stage is fenced (fence.proxy.async) and the stage is freed by
# the per-stage __syncthreads before the leader refills it.  Left out: the
# MXFP8 scale computation, the TMA store ring of the output (issue #3474's
# other finding), the descriptor update (bug 2 of the PR).
# expect: sync.race
# may-also: data.stale-read proxy.missing-fence
@cake.schedule(target="sm_100a")
def te_group_mxfp8_mapper_meta_in_tma_buffer(lm, In: LM.tma2d, Out: LM.gmem, n_blocks: LM.i32):
    lm.assume(n_blocks >= 1)
    pool   = lm.smem(32768)
    in_buf = pool.view(offset=0, shape=(64, 128), dtype=lm.bf16, stages=2)
    meta   = pool.view(offset=0, shape=(1, 32), dtype=lm.i32, stages=1)   # BUG: dynamic smem, under in_buf
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
        lm.copy(m_r, meta[0])                      # every warp reads it                   # expect-error: sync.race
        if w == 0:
            in_buf.tma_load(In, coords=(row0, 0), iter=0, barrier=full)                  # expect-error: sync.race
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
