# FIXED form of llamacpp_mmq_ids_dst_shared_stream_k_no_barrier.cake
# (ggml-org/llama.cpp PR #13294): __syncthreads() before the gather of a
# tile's ids_dst_shared (the previous tile's write-back has read it) and
# after it (every warp's entries are written before any write-back).
# lower: unsupported (mma.sync on int8 operands into an i32 accumulator, as MMQ's q8 dot products: the lowering takes f32 accumulators only)
# expect: pass
@cake.schedule(target="sm_80")
def llamacpp_mmq_ids_dst_shared_stream_k_barriers_fixed(lm, X: LM.gmem, Y: LM.gmem, Ids: LM.gmem, Dst: LM.gmem,
                                                    n_tiles: LM.i32, kb: LM.i32):
    lm.assume(n_tiles >= 1)
    lm.assume(kb >= 1)
    pool = lm.smem(8704)
    ids  = pool.view(offset=0,    shape=(1, 32), dtype=lm.i32, stages=4)   # ids_dst_shared[mmq_x]
    xs   = pool.view(offset=512,  shape=(64, 64), dtype=lm.i8)             # tile_x (q8 values)
    ys   = pool.view(offset=4608, shape=(64, 64), dtype=lm.i8)             # tile_y
    idr  = lm.regs(shape=(1, 32), dtype=lm.i32)
    a    = lm.regs(shape=(16, 64), dtype=lm.i8)
    b    = lm.regs(shape=(64, 64), dtype=lm.i8)
    acc  = lm.regs(shape=(16, 64), dtype=lm.i32)

    warps = lm.role(warps=[0, 1, 2, 3], group=1)
    block = lm.named_barrier(roles=[warps])

    with warps:
        w = lm.instance()
        for t in lm.range(0, n_tiles):
            tile = lm.block_idx(0) * n_tiles + t
            lm.copy(idr, Ids, coords=(tile, 32 * w))
            lm.sync(block)                                                    # the fix (PR #13294)
            lm.copy(ids[w], idr)
            lm.sync(block)                                                    # the fix (PR #13294)
            lm.fill(acc, 0)
            for k in lm.range(0, kb):
                lm.copy(xs[0][16 * w:16 * w + 16, :], X, coords=(64 * tile + 16 * w, 64 * k))
                lm.copy(ys[0][16 * w:16 * w + 16, :], Y, coords=(64 * tile + 16 * w, 64 * k))
                lm.sync(block)
                lm.copy(a, xs[0][16 * w:16 * w + 16, :])
                lm.copy(b, ys[0])
                lm.mma(acc, a, b, init=(k == 0))
                lm.sync(block)
            # write_back: warp w stores columns j0 + w, j0 = 0, 4, ..., 124 -> entries of every slot
            for s in lm.range(0, 4):
                lm.copy(idr, ids[s])
            lm.copy(Dst, acc, coords=(64 * tile + 16 * w, 0))
