# BUG (sync.race): facebookexperimental/triton PR #378 "[GDPA][Proton]
# Fixed the named_barrier and the merge_epi race condition" (2025-09-25,
# on top of PR #349, which added an epilogue partition for the TMA store).
# Blackwell GDPA (third_party/tlx/tutorials/blackwell-gdpa.py) with
# MERGE_EPI off: the two activation partitions (128 threads each) each
# write their half of the output tile, o0 / o1, from registers into shared
# memory (tlx.local_store), and a separate 1-warp epilogue partition
# TMA-stores both halves.  Nothing made the epilogue's TMA store wait for
# the activations' shared-memory writes ("add a barrier to sync the
# merge_epi to avoid the race condition").
# Fix (PR #378): each activation partition does named_barrier_arrive(11,
# 288) after its local_store, the epilogue named_barrier_wait(11, 288)
# before the TMA stores: 128 + 128 + 32 = 288 threads ("we make sure the
# write back to gmem happens after two activation's epilogue smem write").
# Written in CAKE IR: a TMA load warp, an MMA warp computing the two
# halves O0 = A0 B^T, O1 = A1 B^T into two TMEM regions and committing
# them to o_full, two activation warpgroups (each reads its half from TMEM,
# stores it as bf16 to its staging slot and fences for the TMA store), and
# the epilogue warp.  The PR shows only the added barrier, not what the
# epilogue waited on before it; it is modelled waiting for o_full, the MMA
# completion the activations also wait for (the only event it can see).
# Left out: the attention main loop (one K step stands for it), the
# activation math and the persistent tile loop.
# Fix: fbtriton_gdpa_merge_epi_no_named_barrier_fixed.cake.
# expect: sync.race
# may-also: proxy.missing-fence data.stale-read
@cake.schedule(target="sm_100a")
def fbtriton_gdpa_merge_epi_no_named_barrier(lm, A: LM.tma2d, B: LM.tma2d, O: LM.tma2d):
    pool   = lm.smem(114688)
    smem_a0 = pool.view(offset=0,     shape=(128, 64),  dtype=lm.bf16, swizzle="128B")
    smem_a1 = pool.view(offset=16384, shape=(128, 64),  dtype=lm.bf16, swizzle="128B")
    smem_b  = pool.view(offset=32768, shape=(128, 64),  dtype=lm.bf16, swizzle="128B")
    o_s     = pool.view(offset=49152, shape=(128, 128), dtype=lm.bf16, stages=2)
    o0      = lm.tmem(cols=0,   width=128, shape=(128, 128), dtype=lm.f32)
    o1      = lm.tmem(cols=128, width=128, shape=(128, 128), dtype=lm.f32)
    o_r     = lm.regs(shape=(128, 128), dtype=lm.f32)

    load = lm.role(warps=[0])
    mma  = lm.role(warps=[1])
    epi  = lm.role(warps=[2])
    act0 = lm.role(warps=[4, 5, 6, 7])
    act1 = lm.role(warps=[8, 9, 10, 11])

    full   = lm.barrier(count=1, prod=[load], cons=[mma], init_count=1)
    o_full = lm.barrier(count=1, prod=[mma], cons=[act0, act1, epi], init_count=1)

    m0 = lm.block_idx(0) * 256

    with load:
        smem_a0.tma_load(A, coords=(m0, 0), stage=0, barrier=full)
        smem_a1.tma_load(A, coords=(m0 + 128, 0), stage=0, barrier=full)
        smem_b.tma_load(B, coords=(0, 0), stage=0, barrier=full)

    with mma:
        lm.wait(full, stage=0)
        lm.mma(o0, smem_a0[0], smem_b[0], init=True)
        lm.mma(o1, smem_a1[0], smem_b[0], init=True)
        lm.mma_commit(barrier=o_full, stage=0)

    with act0:
        lm.wait(o_full, stage=0)
        lm.copy(o_r, o0)
        lm.copy(o_s[0], o_r)                                                    # expect-error: sync.race
        lm.fence_proxy()

    with act1:
        lm.wait(o_full, stage=0)
        lm.copy(o_r, o1)
        lm.copy(o_s[1], o_r)                                                    # expect-error: sync.race
        lm.fence_proxy()

    with epi:
        lm.wait(o_full, stage=0)
        o_s.tma_store(O, coords=(m0, 0), stage=0)                               # expect-error: sync.race
        o_s.tma_store(O, coords=(m0 + 128, 0), stage=1)                         # expect-error: sync.race
        lm.tma_store_commit()
        lm.tma_store_wait(pending=0)
