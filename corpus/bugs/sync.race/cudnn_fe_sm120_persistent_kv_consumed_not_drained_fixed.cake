# FIX of cudnn_fe_sm120_persistent_kv_consumed_not_drained.cake:
# NVIDIA/cudnn-frontend PR #892 as merged: after the unit's load loop the
# load warp bar.syncs once more on bar_k_consumed and bar_v_consumed,
# consuming the compute warps' arrivals for the unit's last tile, so the
# next unit's first K / V TMA load waits for the compute warps to be done
# with the buffers and every sync pairs with the arrival it means.  Same
# model as the broken file (with its lm.fence_proxy() before each
# bar.arrive, see there).
# expect: pass
@cake.schedule(target="sm_90a")
def cudnn_fe_sm120_persistent_kv_consumed_drained_fixed(lm, K: LM.tma2d, V: LM.tma2d, O: LM.gmem,
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
            sK.tma_load(K, coords=(base * 64, 0), iter=base, barrier=k_full)
            sV.tma_load(V, coords=(base * 64, 0), iter=base, barrier=v_full)
            for j in lm.range(1, kv_tiles):
                lm.sync(k_consumed)
                sK.tma_load(K, coords=((base + j) * 64, 0), iter=base + j, barrier=k_full)
                lm.sync(v_consumed)
                sV.tma_load(V, coords=((base + j) * 64, 0), iter=base + j, barrier=v_full)
            lm.sync(k_consumed)                 # the fix (PR #892): consume the LAST
            lm.sync(v_consumed)                 # tile's consumer arrivals

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
