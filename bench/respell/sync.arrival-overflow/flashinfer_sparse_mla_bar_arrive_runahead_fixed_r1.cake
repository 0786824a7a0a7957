# RESPELLING of corpus/bugs/sync.arrival-overflow/flashinfer_sparse_mla_bar_arrive_runahead_fixed.cake
# (flashinfer-ai/flashinfer PR #4732): as _r1, two named barriers that
# alternate by tile parity, chosen with `t % 2 == 1` / `tiles % 2 == 1`
# (tile tiles - 1 is even exactly when tiles is odd).
# expect: pass
@cake.schedule(target="sm_90a")
def sparse_mla_decode_fixed(lm, kv: LM.gmem, out: LM.gmem, num_tiles: LM.i32):
    lm.assume(num_tiles >= 1)
    smem = lm.smem(32768)
    ring = smem.view(offset=0, shape=(64, 128), dtype=lm.bf16, stages=2)
    ld   = lm.regs(shape=(64, 128), dtype=lm.bf16)
    x0   = lm.regs(shape=(64, 128), dtype=lm.f32)
    x1   = lm.regs(shape=(64, 128), dtype=lm.f32)
    mwg0 = lm.role(warps=[0, 1, 2, 3])
    mwg1 = lm.role(warps=[4, 5, 6, 7])
    io   = lm.role(warps=[8, 9, 10, 11])
    kv_full = lm.barrier(count=2, prod=[io], cons=[mwg0, mwg1], init_count=2)
    even    = lm.named_barrier(roles=[mwg0, mwg1, io])
    odd     = lm.named_barrier(roles=[mwg0, mwg1, io])
    with io:
        for t in lm.range(0, num_tiles):
            lm.copy(ld, kv, coords=(64 * t, 0))
            lm.copy(ring[t % 2], ld)
            lm.arrive(kv_full, stage=t % 2, count=2)
            if not t == 0:
                if t % 2 == 1:
                    lm.sync(even)
                else:
                    lm.sync(odd)
        if num_tiles % 2 == 1:
            lm.sync(even)
        else:
            lm.sync(odd)
    with mwg0:
        for t in lm.range(0, num_tiles):
            lm.wait(kv_full, stage=t % 2, phase=t // 2)
            lm.copy(x0, ring[t % 2])
            if t % 2 == 1:
                lm.bar_arrive(odd)
            else:
                lm.bar_arrive(even)
            lm.unary(x0, x0, op="exp2")
            lm.copy(out, x0, coords=(64 * t, 0))
    with mwg1:
        for t in lm.range(0, num_tiles):
            lm.wait(kv_full, stage=t % 2, phase=t // 2)
            lm.copy(x1, ring[t % 2])
            if t % 2 == 1:
                lm.bar_arrive(odd)
            else:
                lm.bar_arrive(even)
            lm.unary(x1, x1, op="exp2")
            lm.copy(out, x1, coords=(64 * t, 64))
