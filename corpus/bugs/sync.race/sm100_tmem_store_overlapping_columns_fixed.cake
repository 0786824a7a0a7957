# Two warpgroup roles fill disjoint column slices of one TMEM region with
# asynchronous tcgen05.st (lm.tmem_store; e.g. P tiles for a TS-MMA), each
# waits for its stores (tcgen05.wait::st), then they meet at a named
# barrier before the reader loads the whole region.
# expect: pass
@cake.schedule(target="sm_100a")
def tmem_two_writers(lm, X: LM.gmem):
    tmem_p = lm.tmem(cols=0, width=128, shape=(128, 128), dtype=lm.f32)
    lo     = lm.regs(shape=(128, 64), dtype=lm.f32)
    hi     = lm.regs(shape=(128, 64), dtype=lm.f32)
    whole  = lm.regs(shape=(128, 128), dtype=lm.f32)

    left  = lm.role(warps=[0, 1, 2, 3])
    right = lm.role(warps=[4, 5, 6, 7])
    done  = lm.named_barrier(roles=[left, right])

    with left:
        lm.fill(lo, 1.0)
        lm.tmem_store(tmem_p[:, 0:64], lo)
        lm.tmem_store_wait()
        lm.sync(done)
        lm.tmem_load(whole, tmem_p)
        lm.tmem_load_wait()
        lm.copy(X, whole, coords=(0, 0))

    with right:
        lm.fill(hi, 2.0)
        lm.tmem_store(tmem_p[:, 64:128], hi)
        lm.tmem_store_wait()
        lm.sync(done)
