# LayerNorm backward, the gamma/beta gradients as a two-stage column
# reduction (NVIDIA/apex csrc/layer_norm_cuda_kernel.cu, also PyTorch's
# layer_norm_kernel.cu before its fused variant), two kernels in one file:
#  1) cuComputePartGradGammaBeta: grid (column chunks of 32, part_size),
#     block (32, 4): warp y owns rows y, y + 4, y + 8, y + 12 of a 16-row
#     shared buffer per column chunk.  Over the CTA's row segment each warp
#     adds dy * xhat (gamma) and dy (beta) into ITS OWN rows (no barrier
#     needed between the load-add steps), folds its four rows into row y,
#     __syncthreads; then the tree: at offset 2 warps 0, 1 add rows 2, 3
#     (written by warps 2, 3) into rows 0, 1, __syncthreads; warp 0 sums
#     rows 0 and 1 (row 1 written by warp 1) into the partial gradients
#     PG[part, column] and PB[part, column].
#  2) cuComputeGradGammaBeta: block (32, 4) per 32 columns: warp y sums
#     its part_size / 4 partials straight from global memory, then a tree
#     whose every level has TWO barriers: the upper half of the live warps
#     writes its sums into buf[y - offset], __syncthreads, the lower half
#     adds buf[y], __syncthreads (the next level rewrites buf[0]); warp 0
#     writes dgamma / dbeta.
# Bug twin: corpus/bugs/sync.race/layernorm_bwd_gamma_tree_one_barrier_per_level.cake.
# expect: pass
@cake.schedule(target="sm_80")
def layernorm_bwd_part_grad(lm, DY: LM.gmem, XHAT: LM.gmem, PG: LM.gmem, PB: LM.gmem,
                            rows_per_part: LM.i32):
    lm.assume(rows_per_part >= 16)
    lm.assume(rows_per_part % 16 == 0)
    pool  = lm.smem(4096)
    buf_g = pool.view(offset=0,    shape=(1, 32), dtype=lm.f32, stages=16)
    buf_b = pool.view(offset=2048, shape=(1, 32), dtype=lm.f32, stages=16)
    dy   = lm.regs(shape=(1, 32), dtype=lm.f32)
    xh   = lm.regs(shape=(1, 32), dtype=lm.f32)
    acc  = lm.regs(shape=(1, 32), dtype=lm.f32)
    oth  = lm.regs(shape=(1, 32), dtype=lm.f32)
    accb = lm.regs(shape=(1, 32), dtype=lm.f32)
    othb = lm.regs(shape=(1, 32), dtype=lm.f32)

    warps = lm.role(warps=[0, 1, 2, 3], group=1)
    block = lm.named_barrier(roles=[warps])

    col0 = lm.block_idx(0) * 32
    row0 = lm.block_idx(1) * rows_per_part
    n_seg = rows_per_part // 16

    with warps:
        y = lm.instance()
        for k in lm.range(0, 4):                    # cuLoadWriteStridedInputs
            lm.copy(dy, DY, coords=(row0 + y + 4 * k, col0))
            lm.copy(xh, XHAT, coords=(row0 + y + 4 * k, col0))
            lm.binary(xh, xh, dy, op="mul")
            lm.copy(buf_g[y + 4 * k], xh)
            lm.copy(buf_b[y + 4 * k], dy)
        for seg in lm.range(1, n_seg):              # cuLoadAddStridedInputs
            for k in lm.range(0, 4):
                lm.copy(dy, DY, coords=(row0 + 16 * seg + y + 4 * k, col0))
                lm.copy(xh, XHAT, coords=(row0 + 16 * seg + y + 4 * k, col0))
                lm.binary(xh, xh, dy, op="mul")
                lm.copy(acc, buf_g[y + 4 * k])
                lm.binary(acc, acc, xh, op="add")
                lm.copy(buf_g[y + 4 * k], acc)
                lm.copy(accb, buf_b[y + 4 * k])
                lm.binary(accb, accb, dy, op="add")
                lm.copy(buf_b[y + 4 * k], accb)
        lm.fill(acc, 0.0)                           # sum within each warp
        lm.fill(accb, 0.0)
        for k in lm.range(0, 4):
            lm.copy(oth, buf_g[y + 4 * k])
            lm.binary(acc, acc, oth, op="add")
            lm.copy(othb, buf_b[y + 4 * k])
            lm.binary(accb, accb, othb, op="add")
        lm.copy(buf_g[y], acc)
        lm.copy(buf_b[y], accb)
        lm.sync(block)
        if y < 2:                                   # offset 2
            lm.copy(oth, buf_g[y + 2])
            lm.binary(acc, acc, oth, op="add")
            lm.copy(buf_g[y], acc)
            lm.copy(othb, buf_b[y + 2])
            lm.binary(accb, accb, othb, op="add")
            lm.copy(buf_b[y], accb)
        lm.sync(block)
        if y == 0:
            lm.copy(acc, buf_g[0])
            lm.copy(oth, buf_g[1])
            lm.binary(acc, acc, oth, op="add")
            lm.copy(PG, acc, coords=(lm.block_idx(1), col0))
            lm.copy(accb, buf_b[0])
            lm.copy(othb, buf_b[1])
            lm.binary(accb, accb, othb, op="add")
            lm.copy(PB, accb, coords=(lm.block_idx(1), col0))


@cake.schedule(target="sm_80")
def layernorm_bwd_grad_gamma(lm, PG: LM.gmem, PB: LM.gmem, DG: LM.gmem, DB: LM.gmem,
                             part_size: LM.i32):
    lm.assume(part_size >= 4)
    lm.assume(part_size % 4 == 0)
    pool  = lm.smem(512)
    buf_g = pool.view(offset=0,   shape=(1, 32), dtype=lm.f32, stages=2)
    buf_b = pool.view(offset=256, shape=(1, 32), dtype=lm.f32, stages=2)
    sg  = lm.regs(shape=(1, 32), dtype=lm.f32)
    sbt = lm.regs(shape=(1, 32), dtype=lm.f32)
    pg  = lm.regs(shape=(1, 32), dtype=lm.f32)
    pb  = lm.regs(shape=(1, 32), dtype=lm.f32)

    warps = lm.role(warps=[0, 1, 2, 3], group=1)
    block = lm.named_barrier(roles=[warps])

    col0 = lm.block_idx(0) * 32
    n_red = part_size // 4

    with warps:
        y = lm.instance()
        lm.fill(sg, 0.0)
        lm.fill(sbt, 0.0)
        for r in lm.range(0, n_red):
            lm.copy(pg, PG, coords=(y * n_red + r, col0))
            lm.binary(sg, sg, pg, op="add")
            lm.copy(pb, PB, coords=(y * n_red + r, col0))
            lm.binary(sbt, sbt, pb, op="add")
        for lv in lm.range(0, 2):                   # offset = 2, then 1
            off = 2 - lv
            if y >= off and y < 2 * off:            # top half writes
                lm.copy(buf_g[y - off], sg)
                lm.copy(buf_b[y - off], sbt)
            lm.sync(block)
            if y < off:                             # bottom half sums
                lm.copy(pg, buf_g[y])
                lm.binary(sg, sg, pg, op="add")
                lm.copy(pb, buf_b[y])
                lm.binary(sbt, sbt, pb, op="add")
            lm.sync(block)
        if y == 0:
            lm.copy(DG, sg, coords=(0, col0))
            lm.copy(DB, sbt, coords=(0, col0))
