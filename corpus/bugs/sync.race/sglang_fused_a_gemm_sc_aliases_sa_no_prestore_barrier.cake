# BUG (sync.race): SGLang's CuTe DSL port of the DeepSeek-V3 fused-A GEMM,
# as fixed by sgl-project/sglang PR #37287 ("Fix shared-memory reuse race in
# CuTe DSL DSV3 fused-A GEMM").  The kernel splits K across its compute
# warps and reduces the split-K partial accumulators through shared memory
# that it reuses from the A/B pipeline: sC aliases sA stage 0.  The port
# kept the barrier AFTER the sC stores (before the reduction reads them) but
# dropped the one BEFORE them, so one compute warpgroup can overwrite sC -
# i.e. sA stage 0 - while another is still reading its last k-block out of
# sA stage 0 ("the original CUDA implementation has both pre-store and
# post-store barriers; the CuTe DSL port omitted the pre-store barrier").
# Modelled (sm_90a): a TMA loader warp, two compute warpgroups (group=4)
# taking alternate k-blocks (instance i reads only ring slot i: slot k % 2,
# k = i, i + 2, ...), the partial of warpgroup 1 stored to sC = sA slot 0,
# the post-store named barrier, warpgroup 0 adding it and storing the tile.
# (With a single k-block the store also lands on the loader's TMA write of
# slot 0, which only the compute warpgroups' wait for it orders.)
# Fix: sglang_fused_a_gemm_sc_aliases_sa_no_prestore_barrier_fixed.cake.
# expect: sync.race
# may-also: proxy.missing-fence data.stale-read
# K > 64: the kernel's K is DeepSeek-V3's hidden size (7168); below two
# k-blocks warpgroup 1 has none and would store an accumulator it never
# wrote (data.uninitialized: an empty loop at a positive size writes
# nothing, docs/rules/data.uninitialized.md "Decision (session 31)").
@cake.schedule(target="sm_90a")
def sglang_fused_a_gemm_sc_aliases_sa_no_prestore_barrier(lm, A: LM.tma2d, B: LM.tma2d, C: LM.tma2d, K: LM.i32):
    lm.assume(K > 64)
    pool   = lm.smem(65536)
    smem_a = pool.view(offset=0,     shape=(64, 64),  dtype=lm.bf16, stages=2, swizzle="128B")
    smem_b = pool.view(offset=16384, shape=(128, 64), dtype=lm.bf16, stages=2, swizzle="128B")
    smem_c = pool.view(offset=0,     shape=(16, 128), dtype=lm.f32)                 # aliases smem_a slot 0
    smem_o = pool.view(offset=49152, shape=(64, 128), dtype=lm.bf16)
    acc    = lm.regs(shape=(64, 128), dtype=lm.f32)
    part   = lm.regs(shape=(16, 128), dtype=lm.f32)

    loader  = lm.role(warps=[0])
    compute = lm.role(warps=[4, 5, 6, 7, 8, 9, 10, 11], group=4)

    ring  = lm.pipeline(stages=2)
    full  = lm.barrier(prod=[loader], cons=[compute], init_count=1, pipeline=ring)
    empty = lm.barrier(prod=[compute], cons=[loader], init_count=1, pipeline=ring)
    post  = lm.named_barrier(roles=[compute])

    k_tiles = lm.cdiv(K, 64)
    m_blk = lm.block_idx(0) * 64
    n_blk = lm.block_idx(1) * 128

    with loader:
        for k in lm.range(0, k_tiles):
            lm.wait(empty, iter=k - 2)
            smem_a.tma_load(A, coords=(m_blk, k * 64), iter=k, barrier=full)      # expect-error: sync.race
            smem_b.tma_load(B, coords=(n_blk, k * 64), iter=k, barrier=full)

    with compute:
        for k in lm.range(lm.instance(), k_tiles, 2):
            lm.wait(full, iter=k)
            lm.mma(acc, smem_a[k], smem_b[k], init=(k == lm.instance()))   # expect-error: sync.race
            lm.mma_commit()
            lm.mma_wait(pending=0)
            lm.arrive(empty, iter=k)
        # split-K reduction through sC (16 rows of the partial, the slot of the
        # real kernel's small-M tile)
        if lm.instance() == 1:
            lm.copy(smem_c[0], acc[0:16, :])                                  # expect-error: sync.race
        lm.sync(post)
        if lm.instance() == 0:
            lm.copy(part, smem_c[0])
            lm.binary(acc[0:16, :], acc[0:16, :], part, op="add")
            lm.copy(smem_o[0], acc)
            lm.fence_proxy()
            smem_o.tma_store(C, coords=(m_blk, n_blk), stage=0)
            lm.tma_store_commit()
            lm.tma_store_wait(pending=0)
