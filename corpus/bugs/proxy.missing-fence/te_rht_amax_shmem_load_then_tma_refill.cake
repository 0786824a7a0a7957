# BUG (proxy.missing-fence): TransformerEngine's RHT (random Hadamard
# transform) amax kernels, as fixed by NVIDIA/TransformerEngine PR #2695
# ("Fix race condition in RHT amax kernels").  The kernel streams the input
# through a shared-memory ring filled by TMA: each stage is read by the
# threads with ordinary shared loads (the generic proxy) to compute the
# amax, and the same stage is then refilled with the TMA copy of a later
# stage (the async proxy).  There was no proxy fence between the shared
# loads and that TMA copy, so the copy could overwrite the stage before the
# generic reads of it were ordered ("a potential race").  The fix puts a
# proxy fence between the shmem load and the TMA copy of the next stage.
# Written in CAKE IR as one 4-warp role that both reads and refills the
# ring (iter= addressing, a 2-stage ring, the refill of iteration k + 2
# issued after the read of iteration k); the thread barrier before the
# elected TMA issue is lowering's (IR.md "Control"), the fence is the
# schedule's.  Modelled on sm_90a (the TMA load and the generic read are
# the same on sm_100a).  Left out: the Hadamard multiply itself (a
# register op) and the global amax atomics.
# Fix: te_rht_amax_shmem_load_then_tma_refill_fixed.cake.
# expect: proxy.missing-fence
@cake.schedule(target="sm_90a")
def te_rht_amax_shmem_load_then_tma_refill(lm, X: LM.tma2d, Amax: LM.gmem, n_tiles: LM.i32):
    lm.assume(n_tiles >= 2)
    pool  = lm.smem(32768)
    stage = pool.view(offset=0, shape=(64, 64), dtype=lm.bf16, stages=2, swizzle="128B")
    x     = lm.regs(shape=(64, 64), dtype=lm.f32)
    amax  = lm.regs(shape=(64, 64), dtype=lm.f32)

    work = lm.role(warps=[0, 1, 2, 3])
    full = lm.barrier(count=2, prod=[work], cons=[work], init_count=1)

    row = lm.block_idx(0) * 64 * n_tiles
    with work:
        lm.fill(amax, 0.0)
        stage.tma_load(X, coords=(row, 0), iter=0, barrier=full)
        stage.tma_load(X, coords=(row + 64, 0), iter=1, barrier=full)
        for k in lm.range(0, n_tiles):
            lm.wait(full, iter=k)
            lm.copy(x, stage[k])
            lm.binary(amax, amax, x, op="max")
            if k + 2 < n_tiles:
                stage.tma_load(X, coords=(row + (k + 2) * 64, 0), iter=k + 2, barrier=full)   # expect-error: proxy.missing-fence
        lm.copy(Amax, amax, coords=(lm.block_idx(0) * 64, 0))
