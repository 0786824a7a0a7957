# BUG (proxy.missing-fence): deepseek-ai/DeepGEMM PR #389 ("fix: fence
# combine buffer reuse in mega moe", 2026-07-22; the same fix merged in
# the TIRx port, mlc-ai/TIRx-kernels PR #53, "publish MegaMoE
# combine-stage generic loads before TMA reuses the stage through the
# async proxy").  deep_gemm/include/deep_gemm/impls/sm100_bf16_mega_moe.cuh
# (and sm100_fp8_fp4_mega_moe.cuh), the final combine: every epilogue warp
# owns two shared-memory load stages (combine_load_buffer[0/1]) with one
# mbarrier each (combine_barriers[2 * warp + i]) and a store buffer; for
# each of its tokens it walks the valid top-k slots, prefetching slot j + 1
# with an elected tma_load_1d (+ arrive_and_set_tx) into stage
# `load_stage_idx ^ 1` before it waits for slot j's stage and accumulates
# it with generic ld.shared (`combine_load_buffer[load_stage_idx][j * 32 +
# lane]`); the wait's phase is `combine_phase`, flipped after every stage-1
# use, and load_stage_idx carries across tokens.  The stage just read is
# refilled by the next prefetch through the async proxy with no
# fence.proxy.async between the lanes' generic reads and the TMA write
# (the mbarrier wait orders the earlier TMA write before the reads, not the
# reads before a later TMA write).  The fix adds
# `fence.proxy.async.shared::cta` after the stage is consumed.
# Modelled: two epilogue warps, each a one-warp instance (`group=1`) using
# slots 2 * w and 2 * w + 1 of a 4-slot load view and of a 4-slot barrier,
# addressed with `stage=` and the explicit phase `it // 2` (it: the warp's
# running top-k slot count, as load_stage_idx / combine_phase carry it);
# every token with 3 valid top-k slots (odd, so the stage alternates across
# tokens), a chunk of 256 bf16 (the kernel's chunk is hidden / 1 or 2,
# thousands of elements, loaded as one 1-D bulk copy; a 2-D box of 256
# stands for it); the reduction lm.binary; the chunk's store through the
# warp's store buffer: tma_store_wait(0), st.shared, fence, TMA store.
# Left out: the data-dependent top-k mask, the chunk loop, the NVLink
# barrier before the combine.
# Fix: deepgemm_mega_moe_combine_load_stage_reuse_no_fence_fixed.cake.
# expect: proxy.missing-fence
@cake.schedule(target="sm_100a")
def deepgemm_mega_moe_combine_load_stage_reuse_no_fence(lm, Comb: LM.tma3d, Y: LM.tma2d, n_tok: LM.i32):
    lm.assume(n_tok >= 1)
    pool = lm.smem(4096)
    ld   = pool.view(offset=0,    shape=(1, 256), dtype=lm.bf16, stages=4)   # combine_load_buffer, 2 per warp
    st   = pool.view(offset=2048, shape=(1, 256), dtype=lm.bf16, stages=2)   # combine_store_buffer, 1 per warp
    x    = lm.regs(shape=(1, 256), dtype=lm.f32)
    red  = lm.regs(shape=(1, 256), dtype=lm.f32)

    epi  = lm.role(warps=[0, 1], group=1)
    comb = lm.barrier(count=4, prod=[epi], cons=[epi], init_count=1)         # combine_barriers[2 * warp + i]

    with epi:
        w = lm.instance()
        for t in lm.range(0, n_tok):
            tok = (lm.block_idx(0) + t * lm.grid_dim(0)) * 2 + w
            base = 3 * t
            ld.tma_load(Comb, coords=(0, tok, 0), stage=2 * w + base % 2, phase=base // 2, barrier=comb)  # expect-error: proxy.missing-fence
            lm.fill(red, 0.0)
            for j in lm.range(0, 3):
                it = base + j
                if j + 1 < 3:
                    ld.tma_load(Comb, coords=(j + 1, tok, 0), stage=2 * w + (it + 1) % 2, phase=(it + 1) // 2, barrier=comb)  # expect-error: proxy.missing-fence
                lm.wait(comb, stage=2 * w + it % 2, phase=it // 2)
                lm.copy(x, ld[2 * w + it % 2])                               # expect-error: proxy.missing-fence
                lm.binary(red, red, x, op="add")
                # BUG: no fence.proxy.async before the stage is refilled by TMA
            lm.tma_store_wait(pending=0)
            lm.copy(st[w], red)
            lm.fence_proxy()
            st.tma_store(Y, coords=(tok, 0), stage=w)
            lm.tma_store_commit()
        lm.tma_store_wait(pending=0)
