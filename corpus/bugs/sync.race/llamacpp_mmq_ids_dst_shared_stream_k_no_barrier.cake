# BUG (sync.race): ggml-org/llama.cpp PR #13294 ("CUDA: fix race condition
# in MMQ ids_dst", 2026-05-04; fixes issue #13287, "b5237 broke Llama
# Scout"; the stream-k fixup got the same fix in PR #13299).
# ggml/src/ggml-cuda/mmq.cuh, mul_mat_q for MUL_MAT_ID (MoE): a CTA of the
# stream-k decomposition walks several output tiles; for each tile of an
# expert it gathers the destination column ids into
# `__shared__ int ids_dst_shared[mmq_x]` (thread j of the block writes
# entry j, `ids_dst_shared[j] = ids_dst[col_low + jt*mmq_x + j]`) and then
# runs mul_mat_q_process_tile, whose k loop loads the x / y tiles,
# __syncthreads(), does the dot products, __syncthreads(), and whose
# write_back reads ids_dst_shared[j] for the columns each warp stores
# (warp y takes columns j0 + y, j0 = 0, nwarps, ...: entries written by
# every warp).  Nothing orders the write-back's reads of one tile before
# the next tile's gather: a warp that finished its write-back overwrites
# ids_dst_shared while a lagging warp still reads the previous tile's ids,
# and its results land in the wrong destination rows ("depending on the
# exact matrix shape and streaming multiprocessor count").  The fix adds a
# __syncthreads() before the gather and one after it.
# Modelled: four warps (nwarps = 4, mmq_x = 128), each a one-warp instance
# (`group=1`); __syncthreads() a named barrier over them; ids_dst_shared a
# 4-slot view of 32 ints, warp w writing slot w (its 32 threads' entries)
# and every warp reading all four in the write-back; the CTA's stream-k
# tiles a loop of n_tiles tiles of kb k-blocks each (kb >= 1: a tile the
# stream-k split gives this CTA has at least one k-block); the x / y tile
# loads generic copies (each warp its band), mma.sync on int8 into i32.
# Left out: the expert skip (`if (jt*mmq_x >= col_diff) continue;`, data),
# the partial first / last tiles and their fixup buffer.
# Fix: llamacpp_mmq_ids_dst_shared_stream_k_no_barrier_fixed.cake.
# expect: sync.race
# may-also: data.stale-read
@cake.schedule(target="sm_80")
def llamacpp_mmq_ids_dst_shared_stream_k_no_barrier(lm, X: LM.gmem, Y: LM.gmem, Ids: LM.gmem, Dst: LM.gmem,
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
            # BUG: no __syncthreads() before the gather (the previous tile's write-back may still read)
            lm.copy(idr, Ids, coords=(tile, 32 * w))
            lm.copy(ids[w], idr)                                              # expect-error: sync.race
            # (and none after it: the k loop's barriers happen to order it before the write-back)
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
                lm.copy(idr, ids[s])                                          # expect-error: sync.race
            lm.copy(Dst, acc, coords=(64 * tile + 16 * w, 0))
