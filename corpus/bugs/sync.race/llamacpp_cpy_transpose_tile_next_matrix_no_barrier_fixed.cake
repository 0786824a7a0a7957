# FIXED form of llamacpp_cpy_transpose_tile_next_matrix_no_barrier.cake
# (ggml-org/llama.cpp PR #20507): a second __syncthreads() after the
# transposed store to dst, so no warp stores the next matrix's rows while
# another still reads the current matrix's columns.  Same model as the
# broken file.
# expect: pass
@cake.schedule(target="sm_80")
def llamacpp_cpy_transpose_tile_next_matrix_no_barrier_fixed(lm, Src: LM.gmem, Dst: LM.gmem,
                                                       n_mats: LM.i32):
    lm.assume(n_mats >= 1)
    pool = lm.smem(4096)
    tile = pool.view(offset=0, shape=(32, 32), dtype=lm.f32)
    rowv = lm.regs(shape=(1, 32), dtype=lm.f32)
    colv = lm.regs(shape=(32, 1), dtype=lm.f32)

    block = lm.role(warps=[0, 1, 2, 3, 4, 5, 6, 7], group=1)
    bar   = lm.named_barrier(roles=[block])

    with block:
        w = lm.instance()
        for i in lm.range(0, n_mats):
            m0 = 32 * i
            for j in lm.range(0, 4):
                r = w + 8 * j
                lm.copy(rowv, Src, coords=(m0 + r, 0))
                lm.copy(tile[0][r:r + 1, :], rowv)              # tile[ty + j][tx] = src
            lm.sync(bar)
            for j in lm.range(0, 4):
                c = w + 8 * j
                lm.copy(colv, tile[0][:, c:c + 1])              # tile[tx][ty + j]
                lm.copy(Dst, colv, coords=(m0, c))
            lm.sync(bar)                                        # the fix
