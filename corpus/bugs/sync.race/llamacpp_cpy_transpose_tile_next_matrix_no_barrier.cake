# BUG (sync.race): ggml-org/llama.cpp PR #20507 ("Fix data race in CUDA's
# \"cpy\" kernel (influences GGML's DUP, CONT operations)", 2026-03-13).
# ggml/src/ggml-cuda/cpy.cu, cpy_flt_transpose: a 32x8 block copies up to
# CUDA_CPY_BLOCK_NM matrices in a loop through one shared tile
#     __shared__ float tile[32][32 + 1];
#     for (int i = 0; i < CUDA_CPY_BLOCK_NM; ++i) {
#         for (j = 0; j < 32; j += 8) tile[threadIdx.y + j][threadIdx.x] = src[...];
#         __syncthreads();
#         for (j = 0; j < 32; j += 8) dst[...] = tile[threadIdx.x][threadIdx.y + j];
#     }
# with one barrier per matrix, between the stores and the transposed reads.
# A warp that finished reading matrix i stores matrix i + 1's rows into the
# tile while another warp still reads matrix i's columns, which hold those
# rows' elements: the slower warp writes data of the next matrix into the
# previous output.  The fix adds a second __syncthreads() after the store
# to dst.
# Modelled: the 32x8 block as eight one-warp instances (threadIdx.y = w),
# warp w storing rows w, w+8, w+16, w+24 of the tile and reading columns
# w, w+8, w+16, w+24 (tile[lane][w + j]); the loop over matrices with a
# trip count n_mats >= 1 (the `imat >= nmat` break); __syncthreads() a
# named barrier over the block.  Left out: the bounds predicates of partial
# tiles, the +1 padding column (bank conflicts only), dtype conversion.
# Fix: llamacpp_cpy_transpose_tile_next_matrix_no_barrier_fixed.cake.
# expect: sync.race
# may-also: data.stale-read
@cake.schedule(target="sm_80")
def llamacpp_cpy_transpose_tile_next_matrix_no_barrier(lm, Src: LM.gmem, Dst: LM.gmem,
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
                lm.copy(tile[0][r:r + 1, :], rowv)              # tile[ty + j][tx] = src    # expect-error: sync.race
            lm.sync(bar)
            for j in lm.range(0, 4):
                c = w + 8 * j
                lm.copy(colv, tile[0][:, c:c + 1])              # tile[tx][ty + j]          # expect-error: sync.race
                lm.copy(Dst, colv, coords=(m0, c))
            # BUG: no __syncthreads() before the next matrix's stores
