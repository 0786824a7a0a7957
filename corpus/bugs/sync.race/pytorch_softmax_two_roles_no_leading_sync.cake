# BUG (sync.race): corpus/normalization/sm80_pytorch_softmax_fwd_two_roles.cake without the
# bar.sync before the second block reduction's stores (the bug of
# pytorch_softmax_block_reduce_in_a_row_no_leading_sync.cake, its warps as two roles): a warp
# stores its sum partial over red[w] while warp 0 may still read the max partials there.
# expect: sync.race
@cake.schedule(target="sm_80")
def softmax_fwd_smem(lm, X: LM.gmem, Y: LM.gmem, n_vec: LM.i32):
    lm.assume(n_vec >= 1)
    lm.assume(n_vec <= 8)
    pool  = lm.smem(32784)
    cache = pool.view(offset=0,     shape=(1, 256), dtype=lm.bf16, stages=32)
    red   = pool.view(offset=32768, shape=(1, 1),   dtype=lm.f32,  stages=4)
    x     = lm.regs(shape=(1, 256), dtype=lm.bf16)
    xf    = lm.regs(shape=(1, 256), dtype=lm.f32)
    part  = lm.regs(shape=(1, 1),   dtype=lm.f32)
    oth   = lm.regs(shape=(1, 1),   dtype=lm.f32)
    mx    = lm.regs(shape=(1, 1),   dtype=lm.f32)
    sm    = lm.regs(shape=(1, 1),   dtype=lm.f32)
    y     = lm.regs(shape=(1, 256), dtype=lm.bf16)

    hi    = lm.role(warps=[2, 3], group=1)
    lo    = lm.role(warps=[0, 1], group=1)
    block = lm.named_barrier(roles=[lo, hi])

    row = lm.block_idx(0)

    with hi:
        w = lm.instance() + 2
        lm.fill(part, -1.0e30)
        for c in lm.range(0, n_vec):
            lm.copy(x, X, coords=(row, 1024 * c + 256 * w))
            lm.copy(cache[4 * c + w], x)
            lm.copy(xf, x)
            lm.reduce(oth, xf, op="max", axis=1)
            lm.binary(part, part, oth, op="max")
        lm.sync(block)
        lm.copy(red[w], part)
        lm.sync(block)
        lm.sync(block)
        lm.copy(mx, red[0])
        lm.fill(part, 0.0)
        for c in lm.range(0, n_vec):
            lm.copy(x, cache[4 * c + w])
            lm.copy(xf, x)
            lm.binary(xf, xf, mx, op="sub")
            lm.unary(xf, xf, op="exp2")
            lm.reduce(oth, xf, op="sum", axis=1)
            lm.binary(part, part, oth, op="add")
        lm.copy(red[w], part)
        lm.sync(block)
        lm.sync(block)
        lm.copy(sm, red[0])
        lm.unary(sm, sm, op="recip")
        for c in lm.range(0, n_vec):
            lm.copy(x, cache[4 * c + w])
            lm.copy(xf, x)
            lm.binary(xf, xf, mx, op="sub")
            lm.unary(xf, xf, op="exp2")
            lm.binary(xf, xf, sm, op="mul")
            lm.copy(y, xf)
            lm.copy(Y, y, coords=(row, 1024 * c + 256 * w))

    with lo:
        w = lm.instance()
        lm.fill(part, -1.0e30)
        for c in lm.range(0, n_vec):
            lm.copy(x, X, coords=(row, 1024 * c + 256 * w))
            lm.copy(cache[4 * c + w], x)
            lm.copy(xf, x)
            lm.reduce(oth, xf, op="max", axis=1)
            lm.binary(part, part, oth, op="max")
        lm.sync(block)
        lm.copy(red[w], part)
        lm.sync(block)
        if lm.instance() == 0:
            lm.copy(mx, red[0])
            for i in lm.range(1, 4):
                lm.copy(oth, red[i])
                lm.binary(mx, mx, oth, op="max")
            lm.copy(red[0], mx)
        lm.sync(block)
        lm.copy(mx, red[0])
        lm.fill(part, 0.0)
        for c in lm.range(0, n_vec):
            lm.copy(x, cache[4 * c + w])
            lm.copy(xf, x)
            lm.binary(xf, xf, mx, op="sub")
            lm.unary(xf, xf, op="exp2")
            lm.reduce(oth, xf, op="sum", axis=1)
            lm.binary(part, part, oth, op="add")
        lm.copy(red[w], part)
        lm.sync(block)
        if lm.instance() == 0:
            lm.copy(sm, red[0])
            for i in lm.range(1, 4):
                lm.copy(oth, red[i])
                lm.binary(sm, sm, oth, op="add")
            lm.copy(red[0], sm)
        lm.sync(block)
        lm.copy(sm, red[0])
        lm.unary(sm, sm, op="recip")
        for c in lm.range(0, n_vec):
            lm.copy(x, cache[4 * c + w])
            lm.copy(xf, x)
            lm.binary(xf, xf, mx, op="sub")
            lm.unary(xf, xf, op="exp2")
            lm.binary(xf, xf, sm, op="mul")
            lm.copy(y, xf)
            lm.copy(Y, y, coords=(row, 1024 * c + 256 * w))
