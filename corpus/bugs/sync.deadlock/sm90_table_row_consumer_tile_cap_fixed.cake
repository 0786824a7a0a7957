# Fixed form of sm90_table_row_consumer_tile_cap.cake: the consumer's cap
# is four tiles, which `K <= 256` never exceeds, so both warps run
# `lm.cdiv(K, 64)` tiles; the proof reads the two bounds in one spelling
# (equal for every allowed K) and proves it.
# expect: pass
@cake.schedule(target="sm_90a")
def table_row_consumer_tile_cap_fixed(lm, T: LM.gmem, O: LM.gmem, K: LM.i32):
    lm.assume(K > 0)
    lm.assume(K <= 256)
    pool = lm.smem(256)
    row  = pool.view(offset=0, shape=(1, 32), dtype=lm.f32, stages=1)
    v    = lm.regs(shape=(1, 32), dtype=lm.f32)
    w    = lm.regs(shape=(1, 32), dtype=lm.f32)
    prod = lm.role(warps=[0])
    cons = lm.role(warps=[1])
    bar  = lm.named_barrier(roles=[prod, cons])
    with prod:
        for t in lm.range(0, lm.cdiv(K, 64)):
            lm.sync(bar)
            lm.copy(v, T, coords=(t, 0))
            lm.copy(row[0], v)
            lm.sync(bar)
    with cons:
        for t in lm.range(0, min((K + 63) // 64, 4)):
            lm.sync(bar)
            lm.sync(bar)
            lm.copy(w, row[0])
            lm.copy(O, w, coords=(t, 0))
