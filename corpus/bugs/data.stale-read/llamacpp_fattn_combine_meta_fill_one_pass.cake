# BUG (data.stale-read): ggml-org/llama.cpp PR #13852 ("CUDA: fix FA tg at
# long context for CC >= 8.9", 2025-05-28; the failure reported in issue
# #12816).  flash_attn_combine_results<D> (ggml/src/ggml-cuda/fattn-common.cuh)
# merges the parallel_blocks partial results of one output row: it runs with
# D threads (D = head size), stages the (max, rowsum) pairs of every part in
# the dynamic shared array `extern __shared__ float2 meta[]` and, after a
# __syncthreads(), every thread reads all of them:
#     if (tid < 2*parallel_blocks) {
#         ((float *) meta)[threadIdx.x] = ((const float *) VKQ_meta)[tid];
#     }
#     __syncthreads();
#     float kqmax = meta[0].x;
#     for (int l = 1; l < parallel_blocks; ++l) kqmax = max(kqmax, meta[l].x);
#     ... meta[l].x, meta[l].y for every l < parallel_blocks
# The one-pass fill was right while parallel_blocks was a small template
# constant; once it became a runtime value (issue #12182) a long context can
# ask for 2*parallel_blocks > D, and the floats meta[D .. 2*parallel_blocks)
# are never written: the combine reads what an earlier block left in shared
# memory ("the shared memory is not being initialized correctly").  The fix
# replaces the conditional with a block-stride loop,
#     for (int i = tid; i < 2*parallel_blocks; i += D) ((float *) meta)[i] = ...;
# (llamacpp_fattn_combine_meta_fill_one_pass_fixed.cake).
# Modelled: D = 64 (two warps, one-warp instances of one role; thread tid is
# lane tid % 32 of warp tid / 32), one output row per block (block_idx(0)),
# meta as a float view sized for the largest parallel_blocks allowed here
# (64 parts, 128 floats); the guard `tid < 2*parallel_blocks` becomes the
# number of lanes of each warp that store (n_w); every thread then reads the
# whole meta[0 .. 2*parallel_blocks) and its column of each part.  Left out:
# the exponent arithmetic of the merge (one max, one scaled sum) and the
# stream-k path (flash_attn_stream_k_fixup).
# The bounded check alone meets the bug at parallel_blocks = 33: the
# covering values place the read's bound 2*parallel_blocks one past the
# stores' saturated bound 32 + min(32, ...) = 64 (GoalCollector::
# sliceCrossGoals, helper cover47; before, its values 2..20 never took the
# read past the 64 stored floats, and the file said `# check: proof`:
# docs/known-limits.md "Closed: a slice bound that moves past another
# access's slice with a parameter").
# lower: unsupported (slices whose extents move with a parameter)
# expect: data.stale-read
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
        n_w = min(32, max(0, 2 * parallel_blocks - 32 * w))         # lanes with tid < 2*parallel_blocks
        if n_w > 0:
            lm.copy(part[0:1, 0:n_w], VKQ_meta, coords=(row, 32 * w))
            lm.copy(meta[0][0:1, 32 * w:32 * w + n_w], part[0:1, 0:n_w])
        lm.sync(block)
        lm.copy(mall[0:1, 0:2 * parallel_blocks], meta[0][0:1, 0:2 * parallel_blocks])  # expect-error: data.stale-read
        lm.reduce(kqmax, mall[0:1, 0:2 * parallel_blocks], op="max", axis=1)
        lm.fill(acc, 0.0)
        for l in lm.range(0, parallel_blocks):
            lm.copy(vkq, VKQ_parts, coords=(row, l * 64 + 32 * w))
            lm.binary(vkq, vkq, kqmax[0:1, 0:1], op="mul")
            lm.binary(acc, acc, vkq, op="add")
        lm.copy(Dst, acc, coords=(row, 32 * w))
