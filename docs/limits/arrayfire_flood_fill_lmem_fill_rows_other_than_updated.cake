# Reproducer (helper hunt51, session 51): the fixed form of
# corpus/bugs/sync.race/arrayfire_flood_fill_barrier_or_no_trailing_barrier_fixed.cake
# (arrayfire/arrayfire PR #3535) with lmem's initial fill as the kernel
# spells it: the strided loop `for (b = ly; b < LMEM_HEIGHT; b += 16)` has
# sub-group w (two image rows) load lmem rows 2w, 2w+1 and sub-group 0 also
# rows 16, 17, while the flood step updates rows 2w+1, 2w+2 (j = ly +
# RADIUS).  Correct (every access is barrier-ordered; the corpus form,
# which fills each sub-group's updated rows instead, is proved), but a
# false data.stale-read: "groups[1] reads lmem[0][2:6, :] bytes [144, 288)
# meaning lap 1 of the slot (index 0), but it holds the data of lap 0 of
# the slot (index 0) (for iters=2)": row 2 is filled by sub-group 1 and
# updated by sub-group 0, so at iteration 1 the read finds sub-group 0's
# first write while its returns count two.  docs/known-limits.md
# "data.stale-read: an in-place stencil whose first lap another instance
# wrote".
# expect: pass
@cake.schedule(target="sm_80")
def arrayfire_flood_fill_barrier_or_no_trailing_barrier_fixed(lm, Out: LM.gmem, Img: LM.gmem, iters: LM.i32):
    pool = lm.smem(2560)
    lmem = pool.view(offset=0, shape=(18, 18), dtype=lm.f32)
    pred = pool.view(offset=1408, shape=(1, 32), dtype=lm.f32, stages=8)
    rows = lm.regs(shape=(2, 18), dtype=lm.f32)
    img  = lm.regs(shape=(2, 16), dtype=lm.f32)
    orig = lm.regs(shape=(2, 16), dtype=lm.f32)
    nb   = lm.regs(shape=(4, 18), dtype=lm.f32)
    cnt  = lm.regs(shape=(4, 1), dtype=lm.f32)
    cur  = lm.regs(shape=(2, 16), dtype=lm.f32)
    p    = lm.regs(shape=(1, 32), dtype=lm.f32)
    q    = lm.regs(shape=(1, 32), dtype=lm.f32)
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
            lm.binary(cur, cur, cnt[1:3, :], op="max")
            lm.copy(p, cur[0:1, :])
            lm.binary(p, p, cur[1:2, :], op="max")
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
        lm.copy(p, orig[0:1, :])                          # brdrChngd
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
