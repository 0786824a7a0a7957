# BUG (sync.race): NVIDIA/cudnn-frontend PR #892 ("sdpa: consume the
# persistent THD scheduler in the last two FP8 kernels", merged
# 2026-09-14), python/cudnn/sdpa/fwd/kernels/sm120/prefill_fp8.py.  The
# SM120 FP8 prefill kernel has one K and one V buffer in shared memory,
# filled by one load warp with TMA (k_tma_mbar / v_tma_mbar) and released
# by the compute warps through two CTA named barriers, bar_k_consumed and
# bar_v_consumed (thread count = compute + load threads): compute_one_kv_tile
# does bar.arrive on each after its ldmatrix reads of the tile, the load
# warp bar.syncs on each before it refills the buffer.  Per tile range the
# compute warps arrive N times, the load warp syncs only between tiles
# (N - 1 times).  Made persistent (one CTA runs several (q-tile, head)
# units), the load warp of the next unit issues the first K (and V) TMA
# load with no sync at all, over the buffer the compute warps may still be
# reading for the previous unit's last tile; its next sync is then
# completed by the stale arrival ("a CTA that starts a SECOND range finds
# the barrier already part-signalled, satisfies its first sync
# immediately, and issues the next mbarrier.arrive.expect_tx while the
# previous transaction is still outstanding", the PR's own comment).  The
# PR drains the last tile's arrivals with one more bar.sync on each
# barrier after the unit's load loop.
# Modelled: q_tile 64 (compute warps 0-3, one instance; load warp 4),
# kv_tile 64, head dim 128, units and kv_tiles per unit as parameters; the
# TMA barriers count loads across units (iter = u * kv_tiles + j, as the
# merged kernel's phase does).  Written on sm_90a (cake has no sm_120
# target): SM120's mma.sync reads its operands with ldmatrix, so the QK and
# PV products are the ldmatrix copies (lm.copy) plus register arithmetic.
# The compute warps fence (lm.fence_proxy()) after their ldmatrix reads and
# before each bar.arrive: cake asks it of a generic read that a TMA load
# later overwrites (docs/rules/proxy.missing-fence.md, write-after-read
# across proxies); the kernel's mma_qk / mma_pv show no fence.proxy.async,
# a separate finding this pair leaves out so that it isolates the drain.
# Fix: cudnn_fe_sm120_persistent_kv_consumed_not_drained_fixed.cake.
# expect: sync.race
# may-also: sync.arrival-overflow sync.lost-phase proxy.missing-fence data.stale-read sync.deadlock
@cake.schedule(target="sm_90a")
def cudnn_fe_sm120_persistent_kv_consumed_not_drained(lm, K: LM.tma2d, V: LM.tma2d, O: LM.gmem,
                                                      units: LM.i32, kv_tiles: LM.i32):
    lm.assume(units > 0)
    lm.assume(kv_tiles > 0)
    pool  = lm.smem(32768)
    sK    = pool.view(offset=0,     shape=(64, 128), dtype=lm.e4m3, stages=1, swizzle="128B")
    sV    = pool.view(offset=16384, shape=(64, 128), dtype=lm.e4m3, stages=1, swizzle="128B")
    kfrag = lm.regs(shape=(64, 128), dtype=lm.e4m3)
    vfrag = lm.regs(shape=(64, 128), dtype=lm.e4m3)
    s     = lm.regs(shape=(64, 128), dtype=lm.f32)
    o     = lm.regs(shape=(64, 128), dtype=lm.f32)

    compute = lm.role(warps=[0, 1, 2, 3])
    load    = lm.role(warps=[4])
    k_full  = lm.barrier(count=1, prod=[load], cons=[compute], init_count=1)
    v_full  = lm.barrier(count=1, prod=[load], cons=[compute], init_count=1)
    k_consumed = lm.named_barrier(roles=[compute, load])
    v_consumed = lm.named_barrier(roles=[compute, load])

    with load:
        for u in lm.range(0, units):
            base = u * kv_tiles
            sK.tma_load(K, coords=(base * 64, 0), iter=base, barrier=k_full)   # expect-error: sync.race
            sV.tma_load(V, coords=(base * 64, 0), iter=base, barrier=v_full)
            for j in lm.range(1, kv_tiles):
                lm.sync(k_consumed)
                sK.tma_load(K, coords=((base + j) * 64, 0), iter=base + j, barrier=k_full)
                lm.sync(v_consumed)
                sV.tma_load(V, coords=((base + j) * 64, 0), iter=base + j, barrier=v_full)
            # BUG: the last tile's consumer arrivals are never consumed here

    with compute:
        for u in lm.range(0, units):
            lm.fill(o, 0.0)
            for j in lm.range(0, kv_tiles):
                it = u * kv_tiles + j
                lm.wait(k_full, iter=it)
                lm.copy(kfrag, sK[it])                  # ldmatrix K (QK^T)
                lm.copy(s, kfrag)
                lm.fence_proxy()                        # see the header
                lm.bar_arrive(k_consumed)
                lm.wait(v_full, iter=it)
                lm.unary(s, s, op="exp2")               # online softmax
                lm.copy(vfrag, sV[it])                  # ldmatrix V (PV)
                lm.fence_proxy()
                lm.bar_arrive(v_consumed)
                lm.binary(o, o, s, op="add")
            lm.copy(O, o, coords=(u * 64, 0))
