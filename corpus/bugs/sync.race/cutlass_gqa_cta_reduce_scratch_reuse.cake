# BUG (sync.race): NVIDIA/cutlass issue #3597 ("[BUG] Example 93 GQA
# reduction races when reusing shared scratch", 2026-09-08), fix PR #3600
# ("Synchronize GQA reduction scratch before reuse").  In
# examples/93_blackwell_low_latency_gqa, cta_reduce combines the four
# softmax warps' partial row maxima through shared scratch: each warp
# publishes its partial, a 128-thread named barrier orders the publication
# before the reads, every warp reads all four partials - and the next
# reduction writes the same scratch with nothing ordering those reads
# before the reuse.  A fast warp overwrites a partial a slow warp has not
# read yet (compute-sanitizer racecheck: eight hazards and 2,193 wrong
# values with 2 CTAs, 512 KV tokens, head dim 64, three stages).  The fix
# is a second arrival on the same 128-thread barrier after the reads.
# Modelled: the sm_100a low-latency layout as we read it from the issue
# (not from the example's source): S^T = K Q^T with the KV tokens of a
# tile on the 128 TMEM lanes and the GQA group's 32 query heads on the
# columns, so each softmax warp owns the 32 tokens of its lane quarter and
# the per-head maximum over the tile needs the cross-warp cta_reduce; a
# TMA warp streams K through a 2-stage ring (Q loaded once), an MMA warp
# issues one tcgen05.mma per KV tile and commits it to s_full; each
# softmax warp (a one-warp instance) tcgen05.ld's its quarter, waits for
# the load and releases S (s_empty, 4 arrivals) before the reduction.
# With the fixture's 3 stages the fix is checked but its proof runs out of
# the default work budget (docs/corpus.md, helper rb9); 2 stages prove.
# Left out: the exponentials, P.V and the split-KV mailboxes (#3598).
# Fix: cutlass_gqa_cta_reduce_scratch_reuse_fixed.cake.
# expect: sync.race
# may-also: data.stale-read
@cake.schedule(target="sm_100a")
def cutlass_gqa_cta_reduce_scratch_reuse(lm, K: LM.tma2d, Q: LM.tma2d, Mx: LM.gmem, n_kv: LM.i32):
    lm.assume(n_kv >= 1)
    pool    = lm.smem(65536)
    smem_k  = pool.view(offset=0,     shape=(128, 64), dtype=lm.bf16, stages=2)
    smem_q  = pool.view(offset=49152, shape=(32, 64), dtype=lm.bf16, stages=1)
    scratch = pool.view(offset=53248, shape=(1, 32), dtype=lm.f32, stages=4)    # cta_reduce scratch
    tmem_s  = lm.tmem(cols=0, width=32, shape=(128, 32), dtype=lm.f32)
    s_q  = lm.regs(shape=(32, 32), dtype=lm.f32)
    part = lm.regs(shape=(1, 32), dtype=lm.f32)
    red  = lm.regs(shape=(1, 32), dtype=lm.f32)
    oth  = lm.regs(shape=(1, 32), dtype=lm.f32)
    mrow = lm.regs(shape=(1, 32), dtype=lm.f32)

    softmax = lm.role(warps=[0, 1, 2, 3], group=1)
    load    = lm.role(warps=[4])
    mma     = lm.role(warps=[5])
    pipe    = lm.pipeline(stages=2)
    k_full  = lm.barrier(prod=[load], cons=[mma], init_count=1, pipeline=pipe)
    k_empty = lm.barrier(prod=[mma], cons=[load], init_count=1, pipeline=pipe)
    q_full  = lm.barrier(count=1, prod=[load], cons=[mma], init_count=1)
    s_full  = lm.barrier(count=1, prod=[mma], cons=[softmax], init_count=1)
    s_empty = lm.barrier(count=1, prod=[softmax], cons=[mma], init_count=4)
    red_bar = lm.named_barrier(roles=[softmax])                                  # 128 threads

    n_tiles = lm.cdiv(n_kv, 128)

    with load:
        smem_q.tma_load(Q, coords=(32 * lm.block_idx(0), 0), stage=0, barrier=q_full)
        for j in lm.range(0, n_tiles):
            lm.wait(k_empty, iter=j - 2)
            smem_k.tma_load(K, coords=(128 * j, 0), iter=j, barrier=k_full)

    with mma:
        lm.wait(q_full, stage=0)
        for j in lm.range(0, n_tiles):
            lm.wait(k_full, iter=j)
            lm.wait(s_empty, iter=j - 1)
            lm.mma(tmem_s, smem_k[j], smem_q[0], init=True)
            lm.mma_commit(barrier=k_empty, iter=j)
            lm.mma_commit(barrier=s_full, iter=j)

    with softmax:
        w = lm.instance()
        lm.fill(mrow, -1.0e30)
        for j in lm.range(0, n_tiles):
            lm.wait(s_full, iter=j)
            lm.tmem_load(s_q, tmem_s[32 * w:32 * w + 32, :])
            lm.tmem_load_wait()
            lm.arrive(s_empty, iter=j)
            lm.reduce(part, s_q, op="max", axis=0)          # this warp's 32 tokens
            lm.copy(scratch[w], part)                       # expect-error: sync.race
            lm.sync(red_bar)                                # publication before the reads
            lm.copy(red, scratch[0])                        # expect-error: sync.race
            for i in lm.range(1, 4):
                lm.copy(oth, scratch[i])                    # expect-error: sync.race
                lm.binary(red, red, oth, op="max")
            lm.binary(mrow, mrow, red, op="max")
            # BUG: nothing orders these reads before the next tile's publication
        if w == 0:
            lm.copy(Mx, mrow, coords=(lm.block_idx(0), 0))
