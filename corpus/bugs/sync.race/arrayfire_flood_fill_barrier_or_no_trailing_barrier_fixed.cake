# Fixed form of arrayfire_flood_fill_barrier_or_no_trailing_barrier.cake
# (arrayfire/arrayfire PR #3535, merged): barrierOR() ends with a barrier
# after every work-item's read of predicates[0] (`int retVal =
# predicates[0]; barrier(CLK_LOCAL_MEM_FENCE); return retVal;`), so neither
# the next iteration's `predicates[tid] = outChanged` nor the loop's
# `predicates[tid] = brdrChngd` overwrites predicates[0] under a late
# reader.  Written as the broken form: eight 32-work-item sub-groups as
# one-warp instances of an sm_80 role, barrier() a named barrier, the
# data-dependent loop run `iters` times.  Sub-group w fills lmem rows 2w,
# 2w+1 (and sub-group 0 rows 16, 17) but updates rows 2w+1, 2w+2: each
# sub-group reads back a row it filled and another updates (was a false
# data.stale-read before session 51, docs/rules/data.stale-read.md "A value
# its reader seeds, in part").
# expect: pass
@cake.schedule(target="sm_80")
def arrayfire_flood_fill_barrier_or_no_trailing_barrier_fixed(lm, Out: LM.gmem, Img: LM.gmem, iters: LM.i32):
    pool = lm.smem(2560)
    lmem = pool.view(offset=0, shape=(18, 18), dtype=lm.f32)
    pred = pool.view(offset=1408, shape=(2, 16), dtype=lm.f32, stages=8)
    rows = lm.regs(shape=(2, 18), dtype=lm.f32)
    img  = lm.regs(shape=(2, 16), dtype=lm.f32)
    orig = lm.regs(shape=(2, 16), dtype=lm.f32)
    nb   = lm.regs(shape=(4, 18), dtype=lm.f32)
    cnt  = lm.regs(shape=(4, 1), dtype=lm.f32)
    cmax = lm.regs(shape=(1, 1), dtype=lm.f32)
    cur  = lm.regs(shape=(2, 16), dtype=lm.f32)
    p    = lm.regs(shape=(2, 16), dtype=lm.f32)
    q    = lm.regs(shape=(2, 16), dtype=lm.f32)
    flag = lm.regs(shape=(1, 1), dtype=lm.f32)

    groups = lm.role(warps=[0, 1, 2, 3, 4, 5, 6, 7], group=1)
    block  = lm.named_barrier(roles=[groups])

    with groups:
        w = lm.instance()
        lm.copy(rows, Out, coords=(2 * w, 0))             # lmem[b][a] = out[...]
        lm.copy(lmem[0][2 * w:2 * w + 2, :], rows)
        if w == 0:
            lm.copy(rows, Out, coords=(16, 0))
            lm.copy(lmem[0][16:18, :], rows)
        lm.copy(img, Img, coords=(2 * w, 0))              # isPxBtwnThresholds
        lm.sync(block)
        lm.copy(orig, lmem[0][2 * w + 1:2 * w + 3, 1:17]) # origOutVal
        for it in lm.range(0, iters):
            lm.copy(nb, lmem[0][2 * w:2 * w + 4, :])      # 3 x 3 neighbourhood
            lm.reduce(cnt, nb, op="max", axis=1)          # validNeighbors
            lm.copy(cur, lmem[0][2 * w + 1:2 * w + 3, 1:17])
            lm.reduce(cmax, cnt, op="max", axis=0)
            lm.binary(cur, cur, cmax, op="max")           # outChanged
            lm.copy(p, cur)
            lm.copy(pred[w], p)                           # predicates[tid] = outChanged
            lm.sync(block)
            lm.binary(cur, cur, img, op="min")
            lm.copy(lmem[0][2 * w + 1:2 * w + 3, 1:17], cur)
            # barrierOR(predicates)
            lm.sync(block)
            if w < 4:
                lm.copy(p, pred[w])
                lm.copy(q, pred[w + 4])
                lm.binary(p, p, q, op="max")
                lm.copy(pred[w], p)
            lm.sync(block)
            if w < 2:
                lm.copy(p, pred[w])
                lm.copy(q, pred[w + 2])
                lm.binary(p, p, q, op="max")
                lm.copy(pred[w], p)
            lm.sync(block)
            if w == 0:
                lm.copy(p, pred[0])
                lm.copy(q, pred[1])
                lm.binary(p, p, q, op="max")
                lm.copy(pred[0], p)
            lm.sync(block)
            for nt in lm.range(0, 5):
                if w == 0:
                    lm.copy(p, pred[0])
                    lm.binary(p, p, p, op="max")
                    lm.copy(pred[0], p)
                lm.sync(block)
            lm.copy(flag, pred[0][0:1, 0:1])              # retVal = predicates[0]
            lm.sync(block)                                # the barrier #3535 adds
        lm.copy(cur, lmem[0][2 * w + 1:2 * w + 3, 1:17])  # newOutVal
        lm.binary(orig, orig, cur, op="sub")
        lm.copy(p, orig)                                  # brdrChngd
        lm.copy(pred[w], p)
        lm.sync(block)
        if w < 4:
            lm.copy(p, pred[w])
            lm.copy(q, pred[w + 4])
            lm.binary(p, p, q, op="max")
            lm.copy(pred[w], p)
        lm.sync(block)
        if w < 2:
            lm.copy(p, pred[w])
            lm.copy(q, pred[w + 2])
            lm.binary(p, p, q, op="max")
            lm.copy(pred[w], p)
        lm.sync(block)
        if w == 0:
            lm.copy(p, pred[0])
            lm.copy(q, pred[1])
            lm.binary(p, p, q, op="max")
            lm.copy(pred[0], p)
        lm.sync(block)
        for nt in lm.range(0, 5):
            if w == 0:
                lm.copy(p, pred[0])
                lm.binary(p, p, p, op="max")
                lm.copy(pred[0], p)
            lm.sync(block)
        lm.copy(flag, pred[0][0:1, 0:1])
        lm.sync(block)
        lm.binary(cur, cur, flag, op="max")
        lm.copy(Out, cur, coords=(2 * w, 0))              # out[...] = lmem[j][i]
