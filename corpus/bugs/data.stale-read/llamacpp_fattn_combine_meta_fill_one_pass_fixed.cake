# FIXED form of llamacpp_fattn_combine_meta_fill_one_pass.cake: ggml-org/llama.cpp
# PR #13852 ("CUDA: fix FA tg at long context for CC >= 8.9"; issue #12816).
# flash_attn_combine_results<D> stages the (max, rowsum) pairs of all
# parallel_blocks parts with a block-stride loop, so every float of
# meta[0 .. 2*parallel_blocks) is written before the __syncthreads() even
# when 2*parallel_blocks > D:
#     extern __shared__ float2 meta[];
#     for (int i = tid; i < 2*parallel_blocks; i += D) {
#         ((float *) meta)[i] = ((const float *) VKQ_meta)[i];
#     }
#     __syncthreads();
# (the text of ggml/src/ggml-cuda/fattn-common.cuh after the PR).  Modelled
# as the broken form: D = 64 (two one-warp instances), meta sized for 64
# parts; pass p of the loop stores floats [64 p, 64 p + 64), warp w the lanes
# [64 p + 32 w, 64 p + 32 w + 32) below 2*parallel_blocks (n_w).  Until
# session 47 this form was *unknown* (exit 2): the bounded check asked for a
# third pass no allowed parallel_blocks gives, and the proof refused the two
# loops of different bounds (docs/known-limits.md "Closed: a loop whose trip
# count the facts bound, next to a second symbolic loop").
# lower: unsupported (slices whose extents move with a parameter)
# expect: pass
@cake.schedule(target="sm_80")
def llamacpp_fattn_combine_results_d64(lm, VKQ_parts: LM.gmem, VKQ_meta: LM.gmem, Dst: LM.gmem,
                                       parallel_blocks: LM.i32):
    lm.assume(parallel_blocks >= 2)
    lm.assume(parallel_blocks <= 64)
    pool = lm.smem(512)
    meta = pool.view(offset=0, shape=(1, 128), dtype=lm.f32)       # (float *) meta
    part = lm.regs(shape=(1, 32), dtype=lm.f32)
    mall = lm.regs(shape=(1, 128), dtype=lm.f32)
    kqmax = lm.regs(shape=(1, 1), dtype=lm.f32)
    vkq = lm.regs(shape=(1, 32), dtype=lm.f32)
    acc = lm.regs(shape=(1, 32), dtype=lm.f32)

    warps = lm.role(warps=[0, 1], group=1)                          # D = 64 threads
    block = lm.named_barrier(roles=[warps])

    with warps:
        w = lm.instance()
        row = lm.block_idx(0)                                       # j_dst_unrolled
        for p in lm.range(0, lm.cdiv(2 * parallel_blocks, 64)):     # i = tid; i < 2*parallel_blocks; i += D
            i0 = 64 * p + 32 * w
            n_w = min(32, max(0, 2 * parallel_blocks - i0))         # lanes with i < 2*parallel_blocks
            if n_w > 0:
                lm.copy(part[0:1, 0:n_w], VKQ_meta, coords=(row, i0))
                lm.copy(meta[0][0:1, i0:i0 + n_w], part[0:1, 0:n_w])
        lm.sync(block)
        lm.copy(mall[0:1, 0:2 * parallel_blocks], meta[0][0:1, 0:2 * parallel_blocks])
        lm.reduce(kqmax, mall[0:1, 0:2 * parallel_blocks], op="max", axis=1)
        lm.fill(acc, 0.0)
        for l in lm.range(0, parallel_blocks):
            lm.copy(vkq, VKQ_parts, coords=(row, l * 64 + 32 * w))
            lm.binary(vkq, vkq, kqmax[0:1, 0:1], op="mul")
            lm.binary(acc, acc, vkq, op="add")
        lm.copy(Dst, acc, coords=(row, 32 * w))
