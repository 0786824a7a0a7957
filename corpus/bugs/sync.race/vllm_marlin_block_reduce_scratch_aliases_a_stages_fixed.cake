# FIXED: vllm_marlin_block_reduce_scratch_aliases_a_stages.cake as
# vllm-project/vllm PR #11493 fixes it: the block reduction's scratch is a
# region of its own after the pipeline buffers (`int4* sh_red = sh_s +
# (stages * s_sh_stage);`), so a warp that enters thread_block_reduce no
# longer writes bytes that a lagging warp still reads as A; the barriers
# are unchanged.
# lower: unsupported (an mma operand sliced at a per-warp column, the K split of thread_block_reduce: the lowering needs a constant start column)
# expect: pass
@cake.schedule(target="sm_80")
def vllm_marlin_block_reduce_own_scratch(lm, A: LM.gmem, B: LM.gmem, C: LM.gmem,
                                                      n_slices: LM.i32, K: LM.i32):
    lm.assume(K >= 64)
    pool   = lm.smem(49152)
    sh_a   = pool.view(offset=0,    shape=(16, 64), dtype=lm.f16, stages=4)
    a_band = pool.view(offset=0,    shape=(4, 64),  dtype=lm.f16, stages=16)
    sh_b   = pool.view(offset=8192, shape=(64, 64), dtype=lm.f16, stages=4)
    b_band = pool.view(offset=8192, shape=(16, 64), dtype=lm.f16, stages=16)
    red    = pool.view(offset=40960, shape=(16, 64), dtype=lm.f32, stages=2)  # sh_red: its own region
    acc    = lm.regs(shape=(16, 64), dtype=lm.f32)
    t0     = lm.regs(shape=(16, 64), dtype=lm.f32)
    t1     = lm.regs(shape=(16, 64), dtype=lm.f32)

    warps = lm.role(warps=[0, 1, 2, 3], group=1)
    bar   = lm.named_barrier(roles=[warps])

    k_tiles = lm.cdiv(K, 64)

    with warps:
        w = lm.instance()
        for s in lm.range(0, n_slices):
            n0 = 64 * (lm.block_idx(0) + s * lm.grid_dim(0))
            for i in lm.range(0, 3):                                  # start_pipes
                if i < k_tiles:
                    a_band.cp_async(A, coords=(4 * w, 64 * i), stage=4 * i + w)
                    b_band.cp_async(B, coords=(n0 + 16 * w, 64 * i), stage=4 * i + w)
                lm.cp_async_commit()
            for k in lm.range(0, k_tiles):
                lm.cp_async_wait(pending=2)                           # wait_for_stage
                lm.sync(bar)
                if k + 3 < k_tiles:                                   # fetch_to_shared
                    a_band.cp_async(A, coords=(4 * w, 64 * (k + 3)), stage=4 * ((k + 3) % 4) + w)
                    b_band.cp_async(B, coords=(n0 + 16 * w, 64 * (k + 3)), stage=4 * ((k + 3) % 4) + w)
                lm.cp_async_commit()
                lm.mma(acc, sh_a[k % 4][:, 16 * w:16 * w + 16], sh_b[k % 4][:, 16 * w:16 * w + 16],
                       init=(k == 0))
            lm.cp_async_wait(pending=0)
            # thread_block_reduce, on sh_red
            if w >= 2:
                lm.copy(red[w - 2], acc)
            lm.sync(bar)
            if w == 1:
                lm.copy(t1, red[1])
                lm.copy(t0, red[0])
                lm.binary(acc, acc, t1, op="add")
                lm.binary(acc, acc, t0, op="add")
                lm.copy(red[0], acc)
            lm.sync(bar)
            if w == 0:
                lm.copy(t0, red[0])
                lm.binary(acc, acc, t0, op="add")
            lm.sync(bar)
            if w == 0:
                lm.copy(C, acc, coords=(0, n0))                       # write_result
