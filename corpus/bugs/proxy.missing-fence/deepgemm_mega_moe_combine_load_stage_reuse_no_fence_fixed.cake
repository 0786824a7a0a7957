# FIXED form of deepgemm_mega_moe_combine_load_stage_reuse_no_fence.cake
# (deepseek-ai/DeepGEMM PR #389, mlc-ai/TIRx-kernels PR #53):
# fence.proxy.async.shared::cta after the warp has consumed a load stage,
# before the stage can be refilled by the next top-k prefetch.
# expect: pass
@cake.schedule(target="sm_100a")
def deepgemm_mega_moe_combine_load_stage_fenced_fixed(lm, Comb: LM.tma3d, Y: LM.tma2d, n_tok: LM.i32):
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
            ld.tma_load(Comb, coords=(0, tok, 0), stage=2 * w + base % 2, phase=base // 2, barrier=comb)
            lm.fill(red, 0.0)
            for j in lm.range(0, 3):
                it = base + j
                if j + 1 < 3:
                    ld.tma_load(Comb, coords=(j + 1, tok, 0), stage=2 * w + (it + 1) % 2, phase=(it + 1) // 2, barrier=comb)
                lm.wait(comb, stage=2 * w + it % 2, phase=it // 2)
                lm.copy(x, ld[2 * w + it % 2])
                lm.binary(red, red, x, op="add")
                lm.fence_proxy()                                             # the fix (PR #389)
            lm.tma_store_wait(pending=0)
            lm.copy(st[w], red)
            lm.fence_proxy()
            st.tma_store(Y, coords=(tok, 0), stage=w)
            lm.tma_store_commit()
        lm.tma_store_wait(pending=0)
