# Real bug: arrayfire/arrayfire PR #3535 ("Fix race condition in OpenCL
# kernel", merged), in barrierOR() of src/backend/opencl/kernel/
# flood_fill.cl (the confidence-connected-components flood step, a 16 x 16
# work-group of 256 work-items, GROUP_SIZE = 256, RADIUS = 1, lmem 18 x 18).
# The step loops `for (blkChngd = true; blkChngd; blkChngd =
# barrierOR(predicates))`: each iteration reads the 3 x 3 neighbourhood in
# lmem, writes `predicates[tid] = outChanged`, barriers, updates its own
# pixel, then barrierOR ORs the 256 predicates with a tree (barrier,
# `predicates[tid] |= predicates[tid + nt]` for nt = 128 .. 1, a barrier per
# level) and every work-item reads `retVal = predicates[0]`.  Before the fix
# barrierOR returned right after that read: "it is possible for work-item 0
# to start the next loop iteration and update predicates[0] while other
# work-items are still inside barrierOR reading predicates, meaning they
# read the next loop iteration's exit condition.  This results in a
# divergent loop, where not all work-items reach the same barriers" (the
# PR; it failed confidence_connected_opencl on Intel's FPGA emulator and on
# oneAPI Construction Kit devices).  The same read races the write of
# predicates[tid] = brdrChngd after the loop.  The fix adds a barrier after
# the read of predicates[0]; the fixed form is
# arrayfire_flood_fill_barrier_or_no_trailing_barrier_fixed.cake.
# Written in CAKE IR as an sm_80 schedule: the eight 32-work-item sub-groups
# (two image rows each) are one-warp instances and barrier() a named
# barrier over the role; a sub-group's 32 predicates are one slot of
# `pred`; the tree's levels nt = 128, 64, 32 fold whole slots (sub-groups
# 0-3, 0-1, 0) and nt = 16 .. 1 fold inside slot 0 (sub-group 0 alone, the
# others only take the barriers); the data-dependent loop runs `iters`
# times (the race needs none of its iterations to be skipped).  Left out:
# the global-memory atomic that asks the host for another launch.
# expect: sync.race
@cake.schedule(target="sm_80")
def arrayfire_flood_fill_barrier_or_no_trailing_barrier(lm, Out: LM.gmem, Img: LM.gmem, iters: LM.i32):
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
            lm.copy(pred[w], p)                           # predicates[tid] = outChanged  # expect-error: sync.race
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
            lm.copy(flag, pred[0][0:1, 0:1])              # retVal = predicates[0]  # expect-error: sync.race
        lm.copy(cur, lmem[0][2 * w + 1:2 * w + 3, 1:17])  # newOutVal
        lm.binary(orig, orig, cur, op="sub")
        lm.copy(p, orig)                                  # brdrChngd
        lm.copy(pred[w], p)                               # predicates[tid] = brdrChngd  # expect-error: sync.race
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
