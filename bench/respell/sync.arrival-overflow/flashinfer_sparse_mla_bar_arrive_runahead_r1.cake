# RESPELLING of corpus/bugs/sync.arrival-overflow/flashinfer_sparse_mla_bar_arrive_runahead.cake
# (flashinfer-ai/flashinfer PR #4732): the full ring addressed with
# stage=t % 2 and an explicit phase=t // 2, the "tile t - 1 done" guard as
# `not t == 0`, the math warps as two 4-warp roles.
# expect: sync.arrival-overflow
@cake.schedule(target="sm_90a")
def sparse_mla_decode(lm, kv: LM.gmem, out: LM.gmem, num_tiles: LM.i32):
    lm.assume(num_tiles >= 1)
    smem = lm.smem(32768)
    ring = smem.view(offset=0, shape=(64, 128), dtype=lm.bf16, stages=2)
    ld   = lm.regs(shape=(64, 128), dtype=lm.bf16)
    x0   = lm.regs(shape=(64, 128), dtype=lm.f32)
    x1   = lm.regs(shape=(64, 128), dtype=lm.f32)
    mwg0 = lm.role(warps=[0, 1, 2, 3])
    mwg1 = lm.role(warps=[4, 5, 6, 7])
    io   = lm.role(warps=[8, 9, 10, 11])
    kv_full  = lm.barrier(count=2, prod=[io], cons=[mwg0, mwg1], init_count=2)
    consumed = lm.named_barrier(roles=[mwg0, mwg1, io])
    with io:
        for t in lm.range(0, num_tiles):
            lm.copy(ld, kv, coords=(64 * t, 0))
            lm.copy(ring[t % 2], ld)
            lm.arrive(kv_full, stage=t % 2, count=2)
            if not t == 0:
                lm.sync(consumed)
        lm.sync(consumed)
    with mwg0:
        for t in lm.range(0, num_tiles):
            lm.wait(kv_full, stage=t % 2, phase=t // 2)
            lm.copy(x0, ring[t % 2])
            lm.bar_arrive(consumed)  # expect-error: sync.arrival-overflow
            lm.unary(x0, x0, op="exp2")
            lm.copy(out, x0, coords=(64 * t, 0))
    with mwg1:
        for t in lm.range(0, num_tiles):
            lm.wait(kv_full, stage=t % 2, phase=t // 2)
            lm.copy(x1, ring[t % 2])
            lm.bar_arrive(consumed)  # expect-error: sync.arrival-overflow
            lm.unary(x1, x1, op="exp2")
            lm.copy(out, x1, coords=(64 * t, 64))
