# BUG (sync.race): CUTLASS's SM90 mixed-input mainloop
# (include/cutlass/gemm/collective/sm90_mma_tma_gmma_rs_warpspecialized_mixed_input.hpp,
# the pre-4.0 form stored at commit 044405ce, against the 4.x form stored
# with the `Utils::` helpers).  SGLang's w4afp8 MoE grouped GEMM carries a
# copy of this mainloop: sgl-project/sglang PR #9392 ("[Bug] Fix w4afp8 moe
# kernel": "the test may occasionally produce incorrect results",
# inconsistent DeepSeek-R1 outputs with the same seed) fixed it with the
# code of NVIDIA CUTLASS v4.0.0 (PR #2294; also TensorRT-LLM PR #7072).
# The PR texts do not show the diff; the pair models the difference of the
# two stored CUTLASS versions that bears on the A registers, the wait
# placement.  A is narrow in shared memory; the math warpgroup copies each
# k-block of it to registers (tCrA_load), converts it into the wgmma
# A-operand fragment tCrA_mma(_,_,k_block) and issues register-A wgmmas,
# one commit group per k-block.  In the steady-state k-tile loop the only
# warpgroup_wait<K_BLOCK_MAX - 1>() sat at the last k-block; the transform
# of k-block j + 1, issued right after k-block j's wgmma, rewrites the
# registers that the PREVIOUS k-tile's wgmma of k-block j + 1 may still be
# reading (only that tile's k-block 0 is retired by the wait).  The first
# k-tile is safe (nothing read the fragment yet); the race starts with the
# second.
# Modelled: K_BLOCK_MAX = 4 (TileShapeK 64 for 16-bit math, the 4.0
# static_assert's minimum), A as i8 in shared memory converted to bf16, one
# TMA producer warp, one math warpgroup of 64 rows, a 3-stage ring, the
# release of a stage one k-tile late (smem_pipe_release) and mma_tail's
# release of the last.  The group scales / zero points and the grouped
# (array) scheduling are left out.
# Fix: cutlass_sm90_mixed_input_a_regs_transform_before_wait_fixed.cake.
# lower: unsupported (the column slice of an mma operand must start at a constant: the k-blocks are a loop over j)
# expect: sync.race
@cake.schedule(target="sm_90a")
def cutlass_sm90_mixed_input_a_regs_transform_before_wait(lm, A: LM.tma2d, B: LM.tma2d, C: LM.tma2d, K: LM.i32):
    lm.assume(K > 0)
    pool   = lm.smem(45056)
    smem_a = pool.view(offset=0,     shape=(64, 64), dtype=lm.i8,   stages=3, swizzle="64B")
    smem_b = pool.view(offset=12288, shape=(64, 64), dtype=lm.bf16, stages=3, swizzle="128B")
    smem_c = pool.view(offset=36864, shape=(64, 64), dtype=lm.bf16, stages=1)
    a_load = lm.regs(shape=(64, 64), dtype=lm.i8)      # tCrA_load
    a_mma  = lm.regs(shape=(64, 64), dtype=lm.bf16)    # tCrA_mma
    acc    = lm.regs(shape=(64, 64), dtype=lm.f32)

    producer = lm.role(warps=[0])
    math     = lm.role(warps=[4, 5, 6, 7])

    pipe  = lm.pipeline(stages=3)
    full  = lm.barrier(prod=[producer], cons=[math], init_count=1, pipeline=pipe)
    empty = lm.barrier(prod=[math], cons=[producer], init_count=1, pipeline=pipe)

    k_tiles = lm.cdiv(K, 64)
    m_blk = lm.block_idx(0) * 64
    n_blk = lm.block_idx(1) * 64

    with producer:
        for k in lm.range(0, k_tiles):
            lm.wait(empty, iter=k - 3)
            smem_a.tma_load(A, coords=(m_blk, k * 64), iter=k, barrier=full)
            smem_b.tma_load(B, coords=(n_blk, k * 64), iter=k, barrier=full)

    with math:
        # first k tile
        lm.wait(full, iter=0)
        lm.copy(a_load[:, 0:16], smem_a[0][:, 0:16])
        lm.copy(a_load[:, 16:32], smem_a[0][:, 16:32])
        lm.copy(a_mma[:, 0:16], a_load[:, 0:16])
        for j in lm.range(0, 4):
            if j < 2:
                lm.copy(a_load[:, 16 * j + 32:16 * j + 48], smem_a[0][:, 16 * j + 32:16 * j + 48])
            if j < 3:
                lm.copy(a_mma[:, 16 * j + 16:16 * j + 32], a_load[:, 16 * j + 16:16 * j + 32])
            lm.mma(acc, a_mma[:, 16 * j:16 * j + 16], smem_b[0][:, 16 * j:16 * j + 16], init=(j == 0))
            lm.mma_commit()
        if k_tiles > 1:
            lm.wait(full, iter=1)
            lm.copy(a_load[:, 0:16], smem_a[1][:, 0:16])
            lm.copy(a_load[:, 16:32], smem_a[1][:, 16:32])
            lm.mma_wait(pending=3)                  # warpgroup_wait<K_BLOCK_MAX - 1>
            lm.copy(a_mma[:, 0:16], a_load[:, 0:16])
        # mainloop: k tiles 1 .. k_tiles - 2
        for k in lm.range(1, k_tiles - 1):
            for j in lm.range(0, 4):
                lm.mma(acc, a_mma[:, 16 * j:16 * j + 16], smem_b[k][:, 16 * j:16 * j + 16], init=False)  # expect-error: sync.race
                lm.mma_commit()
                if j == 3:
                    lm.mma_wait(pending=3)          # the only wait of the k tile
                    lm.fence_proxy()
                    lm.arrive(empty, iter=k - 1)    # consumer_release(smem_pipe_release)
                    lm.wait(full, iter=k + 1)
                    lm.copy(a_load[:, 0:16], smem_a[k + 1][:, 0:16])
                    lm.copy(a_load[:, 16:32], smem_a[k + 1][:, 16:32])
                    lm.copy(a_mma[:, 0:16], a_load[:, 0:16])
                else:
                    if j < 2:
                        lm.copy(a_load[:, 16 * j + 32:16 * j + 48], smem_a[k][:, 16 * j + 32:16 * j + 48])
                    lm.copy(a_mma[:, 16 * j + 16:16 * j + 32], a_load[:, 16 * j + 16:16 * j + 32])  # expect-error: sync.race
        # last k tile
        if k_tiles > 1:
            kl = k_tiles - 1
            for j in lm.range(0, 4):
                lm.mma(acc, a_mma[:, 16 * j:16 * j + 16], smem_b[kl][:, 16 * j:16 * j + 16], init=False)  # expect-error: sync.race
                lm.mma_commit()
                if j == 3:
                    lm.mma_wait(pending=3)
                    lm.fence_proxy()
                    lm.arrive(empty, iter=kl - 1)
                if j < 2:
                    lm.copy(a_load[:, 16 * j + 32:16 * j + 48], smem_a[kl][:, 16 * j + 32:16 * j + 48])
                if j < 3:
                    lm.copy(a_load[:, 16 * j + 16:16 * j + 32], smem_a[kl][:, 16 * j + 16:16 * j + 32])
                    lm.copy(a_mma[:, 16 * j + 16:16 * j + 32], a_load[:, 16 * j + 16:16 * j + 32])  # expect-error: sync.race
        # mma_tail
        lm.mma_wait(pending=0)
        lm.fence_proxy()
        lm.arrive(empty, iter=k_tiles - 1)
        lm.copy(smem_c[0], acc)
        lm.fence_proxy()
        smem_c.tma_store(C, coords=(m_blk, n_blk), stage=0)
        lm.tma_store_commit()
        lm.tma_store_wait(pending=0)
