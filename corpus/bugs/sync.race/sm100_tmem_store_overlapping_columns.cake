# BUG: the right role's column slice starts at 32 instead of 64, so the
# two roles' tcgen05.st write columns [32, 64) of every lane with nothing
# ordering them. (Fixed: sm100_tmem_store_overlapping_columns_fixed.cake.)
# Two warpgroup roles fill (meant to be) disjoint column slices of one TMEM region with
# asynchronous tcgen05.st (lm.tmem_store; e.g. P tiles for a TS-MMA), each
# waits for its stores (tcgen05.wait::st), then they meet at a named
# barrier before the reader loads the whole region.
# expect: sync.race
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
        lm.tmem_store(tmem_p[:, 0:64], lo)  # expect-error: sync.race
        lm.tmem_store_wait()
        lm.sync(done)
        lm.tmem_load(whole, tmem_p)
        lm.tmem_load_wait()
        lm.copy(X, whole, coords=(0, 0))

    with right:
        lm.fill(hi, 2.0)
        lm.tmem_store(tmem_p[:, 32:96], hi)  # expect-error: sync.race
        lm.tmem_store_wait()
        lm.sync(done)
