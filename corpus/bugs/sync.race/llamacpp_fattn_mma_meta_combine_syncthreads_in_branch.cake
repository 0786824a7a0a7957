# BUG (sync.race): ggml-org/llama.cpp PR #27870 ("ggml-cuda: fix
# divergent barrier in f16 flash attention", 2026-08-28; issue #27678:
# compute-sanitizer synccheck "Barrier error detected. Divergent thread(s)
# in block" at fattn-mma-f16.cuh:1538, thousands of errors).
# flash_attn_ext_f16_process_tile, np > 1 (np warps share one column
# group of the tile): after the KV loop every warp stores its KQ max and
# rowsum (the "meta data") into the padding of tile_Q, __syncthreads(), and
#     if (np > 1 && threadIdx.y % np == 0) {
#         read the np warps' meta, compute the combined max / scales / rowsum
#         __syncthreads();                       // inside the branch
#         write the combined meta back over the np warps' entries
#     }
#     if (np > 1) __syncthreads();
#     every warp scales its VKQ accumulator by its entry, stores it ...
# Only the group leaders reach the inner __syncthreads(): it completes
# with the other warps' arrival at the outer one, the others then read
# their scale while the leaders still write it, and from there on the
# leaders are one barrier ahead.  The fix moves the barrier out of the
# branch (the compute and the write-back stay in it).
# Modelled: np = 2, 4 one-warp instances (groups {0, 1} and {2, 3}); meta
# and the VKQ partials as one 32-float row per warp (two 4-slot views);
# the KV loop's results loaded from global memory; __syncthreads() a named
# barrier over the block.  What cake reports first is the race the
# misaligned barrier lets through (a warp reads its scale while its leader
# writes it); the leaders' extra barrier is also a deadlock in the model at
# the combine's last __syncthreads(), where the others have exited (on the
# GPU, synccheck's divergent barrier).  Left out: the ntiles > 1 path,
# needs_fixup, the VRAM meta write of np == 1, the batched VKQ combine
# loop.
# Fix: llamacpp_fattn_mma_meta_combine_syncthreads_in_branch_fixed.cake.
# expect: sync.race
# may-also: sync.deadlock data.stale-read
@cake.schedule(target="sm_80")
def llamacpp_fattn_mma_meta_combine_syncthreads_in_branch(lm, KQ: LM.gmem, VKQ: LM.gmem, Dst: LM.gmem):
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
            lm.sync(bar)                                # BUG: only the leaders    # expect-error: sync.race
            lm.copy(meta[w], cmr)                       # combined meta, both warps
            lm.copy(meta[w + 1], cmr)                                              # expect-error: sync.race
        lm.sync(bar)                                    # if (np > 1)
        lm.copy(m1, meta[w])                            # this warp's scale        # expect-error: sync.race
        lm.binary(acc, acc, m1, op="mul")
        lm.copy(vkqs[w], acc)
        lm.sync(bar)
        if w % 2 == 0:
            lm.copy(oth, vkqs[w + 1])
            lm.binary(acc, acc, oth, op="add")
            lm.copy(Dst, acc, coords=(0, 16 * w))
